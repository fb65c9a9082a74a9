"""A restore reading through a faulty network to S3 sends every record once.

Objects in the Lenses layout (TEXT, 2 partitions) are put into moto with boto3; the restore reads
them through the fault proxy (tests/support/fault_proxy.py), which fails 30 % of the requests with
throttling, resets, lost answers and slow answers, and produces them transactionally to a fresh
topic. The topic, read read_committed, holds every line once, in object order per partition:
store faults are ridden through by the SDK's retries and by re-reading an object, never by
resending what a committed transaction holds. The librdkafka mock broker shows the records of
aborted transactions to read_committed consumers too, so this also proves no transaction was
aborted and retried. ``make test-reliability`` runs 10 % and 30 % with 5 SDK retries and 30 % with 2;
``make test`` runs the last.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Iterator

import boto3
import pytest

from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from tests.integration.restore.conftest import read_topic
from tests.support.fault_proxy import FaultProxy
from tests.support.reliability import FULL, record_cell

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability,
              pytest.mark.timeout(600)]

CELLS = [(0.1, 5), (0.3, 5), (0.3, 2)] if FULL else [(0.3, 2)]
PARTITIONS, OBJECTS, RECORDS = 2, 30, 10
MODES = ("throttle", "reset", "lose-response", "slow")


@pytest.fixture
def proxy(moto_endpoint: str) -> Iterator[FaultProxy]:
    fault_proxy = FaultProxy(moto_endpoint, slow_s=1.0).start()
    yield fault_proxy
    fault_proxy.stop()


@pytest.mark.parametrize(("rate", "retries"), CELLS, ids=[f"{int(r * 100)}pct-{n}retries" for r, n in CELLS])
def test_a_restore_through_store_faults_sends_every_record_once(  # type: ignore[no-untyped-def]
    spark, kafka, moto_endpoint: str, proxy: FaultProxy, rate: float, retries: int
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    bucket, target = f"faults-{uuid.uuid4().hex[:8]}", f"restored-{uuid.uuid4().hex[:8]}"
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1",
                      aws_access_key_id="test", aws_secret_access_key="test")
    s3.create_bucket(Bucket=bucket)
    expected: dict[int, list[bytes]] = {}
    for partition in range(PARTITIONS):
        for number in range(OBJECTS):
            lines = [f"p{partition}-o{number}-r{r}".encode() for r in range(RECORDS)]
            last = (number + 1) * RECORDS - 1
            s3.put_object(Bucket=bucket, Key=f"in/src/{partition}/{last:012d}_1_1.text", Body=b"\n".join(lines) + b"\n")
            expected.setdefault(partition, []).extend(lines)
    config = {
        "name": f"restore-{target}",
        "connect.s3.kcql": f"INSERT INTO {target} SELECT * FROM {bucket}:in STOREAS `TEXT` LIMIT 50",
        "connect.s3.aws.auth.mode": "Credentials",
        "connect.s3.aws.access.key": "test",
        "connect.s3.aws.secret.key": "test",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.custom.endpoint": proxy.url,
        "connect.s3.vhost.bucket": "false",
        "connect.s3.http.max.retries": str(retries),
        "bootstrap.servers": kafka.bootstrap_servers,
    }
    proxy.fail_randomly(rate, MODES, seed=seed)
    started = time.monotonic()
    summary = restore(load_plan(config), spark, once=True)
    elapsed = time.monotonic() - started
    proxy.heal()

    total = PARTITIONS * OBJECTS * RECORDS
    messages = read_topic(kafka.bootstrap_servers, target, expected=total, timeout_s=60)
    assert summary.records == total
    assert {p: [m[2] for m in messages if m[0] == p] for p in range(PARTITIONS)} == expected
    print(f"{proxy.requests_seen} requests, faults served {dict(proxy.served)}, {elapsed:.1f} s")
    assert proxy.faults_served > 0
    record_cell("store faults", backend="S3 (moto)", fault="mixed", rate=rate, mode="restore --once",
                sdk_retries=retries, requests=proxy.requests_seen, faults=proxy.faults_served, records=total,
                seconds=elapsed, outcome="every record sent once (read_committed)")
