"""kill -9 a sink running a Confluent S3 sink config; every offset lands once, under Confluent's keys.

The config is the seed's Complete Example (two topics, ParquetFormat, TimeBasedPartitioner by
hour in UTC, ``rotate.interval.ms=600000``, ``errors.tolerance=all``, the default AWS credential
chain, here fed moto's keys through the environment) with two changes: ``timestamp.extractor=Record``,
because with the Wallclock default Confluent's own files depend on when they were written (no
golden list exists), and ``flush.size=20`` instead of 50000 so a few hundred records make cycles.

``lakesink sink`` runs continuously as a child process group while a producer feeds both topics
(records with fixed timestamps, partitions and values, so the files Confluent would write are a
pure function of them). The group is SIGKILLed 3 times in ``make test`` (8 in
``make test-reliability``), at least once in each phase of test_kill9.py (start-up; just after
a data object of the run appeared; after a committed batch), and restarted on the same
checkpoint, once without it. Then each partition gets a last record a day later,
which rotates the cycle before it (Confluent writes a cycle only when a rule closes it; that last
record's own cycle stays open), and a final ``--once`` run drains the topics.

The keys must equal :func:`~tests.support.confluent_golden.golden`'s list, each value file must
hold its golden records in offset order (read with pyarrow), and so every produced offset but
the last one of each partition is stored exactly once.
Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import io
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakesink.adapters.demo.s3 import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.confluent_configs import COMPLETE
from tests.support.confluent_golden import Producer, Sent, golden, utc_ms
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit, finish_after_kills
from tests.support.reliability import kills, record_cell, skip_unless_killed

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(600)]

KILLS = kills(sample=3, full=8)  # one per phase in `make test`
PARTITIONS = 4  # the embedded broker's partitions per topic
PER_SECOND = 16  # records per topic and second
FLUSH_SIZE = 20
T0 = utc_ms("2024-03-05T09:50:00")
EXTENSION = ".snappy.parquet"


def _timestamp(index: int) -> int:
    """Record ``index`` of a topic: 6 s after the previous one (24 s in its partition, so 20
    records span less than ``rotate.interval.ms``), 8 minutes after every 200th (the interval
    cuts that cycle); the hour changes every ~430 records (partition changes)."""
    return T0 + index * 6_000 + (index // 200) * 480_000


def _hour_of(record: Sent) -> str:
    """The seed's path.format ``'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH`` in UTC, hourly buckets."""
    start = time.gmtime(record.timestamp_ms // 3_600_000 * 3_600)
    return time.strftime("year=%Y/month=%m/day=%d/hour=%H", start)


def _trickle(producer: Producer, topics: list[str]) -> Callable[[], int]:
    """One second's records: ``PER_SECOND`` per topic, continuing each topic's timestamps."""

    def produce() -> int:
        sent = 0
        for topic in topics:
            first = sum(1 for s in producer.sent if s.topic == topic)
            rows = [
                (i % PARTITIONS, _timestamp(i), {"id": i, "topic": topic})
                for i in range(first, first + PER_SECOND)
            ]
            sent += len(producer.send(topic, rows))
        return sent

    return produce


def test_confluent_sink_killed_with_sigkill_stores_every_offset_once_under_the_golden_keys(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip_unless_killed("peer dialect", "confluent")
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    plan = KillPlan.draw(random.Random(seed), KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {plan.forget_checkpoint_before}")

    topics, bucket = [unique_name("events"), unique_name("transactions")], unique_name("confluent-crash")
    moto.create_bucket(bucket)
    config = {
        **COMPLETE,
        "topics": ",".join(topics),
        "s3.bucket.name": bucket,
        "store.url": moto.url,
        "bootstrap.servers": kafka.bootstrap_servers,
        "timestamp.extractor": "Record",
        "flush.size": str(FLUSH_SIZE),
    }
    config_file = tmp_path / "events-to-s3.json"
    config_file.write_text(json.dumps({"name": config["name"], "config": config}, indent=2))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", DEMO_ACCESS_KEY)  # the default chain, as the example says
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", DEMO_SECRET_KEY)
    checkpoint = tmp_path / "checkpoint"
    output = moto.bucket(bucket)
    producer = Producer(kafka)
    trickle = TrickleProducer(_trickle(producer, topics))
    trickle.start()

    started = time.monotonic()
    landed = plan.run(
        config_file, tmp_path, checkpoint, lambda: {item.key for item in output.list("topics/")}
    )
    kill_phase_s = time.monotonic() - started

    trickle.stop()
    for topic in topics:  # a day later: closes each partition's last cycle, stays open itself
        last = max(s.timestamp_ms for s in producer.sent if s.topic == topic)
        producer.send(topic, [(p, last + 86_400_000, {"id": -1, "topic": topic}) for p in range(PARTITIONS)])
    finish_after_kills(config_file, tmp_path, checkpoint)
    total_s = time.monotonic() - started
    print(f"{KILLS} kills in {kill_phase_s:.0f} s; {len(producer.sent)} records; total {total_s:.0f} s")

    expected = golden(
        producer.sent, _hour_of, FLUSH_SIZE, rotate_interval_ms=int(COMPLETE["rotate.interval.ms"])
    )
    assert expected.reasons >= {"flush.size", "time", "partition change"}, expected.reasons
    assert sorted((r.topic, r.partition) for r in expected.held) == sorted(
        (t, p) for t in topics for p in range(PARTITIONS)
    ), "only the last record of each partition is held"
    keys = [item.key for item in output.list() if not item.key.startswith(".indexes/")]
    assert sorted(keys) == expected.keys(EXTENSION), f"seed {seed}"
    for file in expected.files:
        key = file.key(EXTENSION)
        assert pq.read_table(io.BytesIO(output.read(key))).to_pylist() == [r.value for r in file.records], key
    stored = sorted((r.topic, r.partition, r.offset) for f in expected.files for r in f.records)
    assert stored == sorted((s.topic, s.partition, s.offset) for s in producer.sent if s not in expected.held)
    assert_anchored_phases_hit(landed)
    record_cell("kill -9", test="test_confluent_kill9", target="Confluent S3 sink config (Complete Example), S3 (moto)",
                kills=KILLS, records=len(producer.sent), seconds=total_s,
                outcome="every offset once, under Confluent's keys (golden list)")
