"""kill -9 a sink whose store answers badly: crashes and a faulty network at once, every offset once.

The demo's orders sink (tests/support/order_sink.py) runs continuously, as in test_kill9.py, but
reaches its S3 server through the fault proxy (tests/support/fault_proxy.py), which fails 10 % of
all requests with throttling, resets, lost answers of applied writes and slow answers. The whole
process group is SIGKILLed in the phases of tests/support/kill_runs.py (start-up, just after a data
object appeared, after a committed batch) and restarted, once without its checkpoint; a final
``--once`` run, still through the faults, drains the topic. Then the bucket is read from moto
directly: every produced offset once, each lock at its partition's last offset.

A crash right after a write whose answer was lost, and a restart whose first reads of the index
fail, are the cases neither the kill tests nor the fault matrix reach alone. ``make test-reliability``
only (36 kills, about 12 minutes); ``make test`` has the kill and fault samples of the other files.
Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.fault_proxy import FaultProxy
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit, finish_after_kills
from tests.support.order_sink import assert_every_offset_once, data_keys, order_chunks, orders_config
from tests.support.reliability import FULL, record_cell

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability,
              pytest.mark.timeout(1800),
              pytest.mark.skipif(not FULL, reason="make test-reliability only (make test runs the kill and fault samples)")]

KILLS = 36
RATE = 0.1
CHUNK = 10  # records per second


def test_sink_killed_while_its_store_fails_requests_stores_every_offset_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    plan = KillPlan.draw(rng, KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {plan.forget_checkpoint_before}")
    proxy = FaultProxy(moto.url, slow_s=1.0).start()
    proxy.fail_randomly(RATE, ("throttle", "reset", "lose-response", "slow"), seed=seed)
    topic, bucket, name = unique_name("faulty"), unique_name("faulty"), unique_name("faulty-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket, **{"connect.s3.custom.endpoint": proxy.url})
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()
    started = time.monotonic()
    try:
        landed = plan.run(config, tmp_path, tmp_path / "checkpoint", lambda: data_keys(output))
        produced = producer.stop()
        finish_after_kills(config, tmp_path, tmp_path / "checkpoint", timeout_s=300)
    finally:
        proxy.stop()
    elapsed = time.monotonic() - started
    print(f"{KILLS} kills; {produced} records; {proxy.requests_seen} requests, {proxy.faults_served} faults; "
          f"{elapsed:.0f} s")

    assert_every_offset_once(kafka, topic, output, name, produced, seed)
    assert_anchored_phases_hit(landed)
    record_cell("kill -9", test="test_kill9_under_store_faults", target="Lenses KCQL, PARQUET, S3 (moto) "
                f"through {RATE:.0%} faulty requests", kills=KILLS, records=produced, seconds=elapsed,
                outcome=f"every offset once; {proxy.faults_served} faults served")
