"""kill -9 the running sink again and again; every record must still land exactly once.

``lakesink sink`` runs continuously as a child process group while a producer keeps feeding
the topic (10 records a second), with ``flush.count=200`` and ``flush.interval=1``, so a batch
and a commit follow every couple of seconds. The whole group (driver, Spark JVM, Python workers)
is SIGKILLed (3 times in ``make test``, 20 in ``make test-reliability``) in the phases of
tests/support/kill_runs.py, each at least once, the rest uploads or streaming, in a seeded order:

* start-up: 2-8 s after launch (JVM, SparkSession, reading the index and the plans; the session
  alone takes ~10 s on a 2-core machine);
* uploads: 0-1.5 s after the first new data object of the run appears in the bucket (the other
  files of the batch uploading, plans written, locks not yet or partly advanced: the window
  between "durable" and "committed");
* streaming: 0-5 s after the sink logged a committed batch (the next batches in flight).

The phases are anchored on what the sink does rather than on fixed delays because a loaded
machine stretches Spark's start from 10 to 30 s; if the anchor is not seen within 45 s the
kill happens anyway (and is reported; each anchored phase must be hit at least once). Each
kill is followed by a restart on the same checkpoint; one restart (never the first run) begins
with the checkpoint deleted, so the store's index alone must say where to resume.
A final ``--once`` run drains the topic; the output is read back with boto3 + pyarrow and
compared with the topic offset by offset, and each master lock must point at the last offset.

Backend: moto's S3 server (the S3 API with create-only and If-Match), not the local directory.
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
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit, finish_after_kills
from tests.support.order_sink import assert_every_offset_once, data_keys, order_chunks, orders_config
from tests.support.reliability import kills, record_cell

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(600)]

KILLS = kills(sample=3, full=20)  # one per phase in `make test`
CHUNK = 10  # records per second: a backlog small enough that a restart's first batch stays short


def test_sink_killed_with_sigkill_at_random_moments_stores_every_offset_exactly_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    plan = KillPlan.draw(random.Random(seed), KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {plan.forget_checkpoint_before}")

    topic, bucket, name = unique_name("crash"), unique_name("crash"), unique_name("crash-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket)
    checkpoint = tmp_path / "checkpoint"
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()

    started = time.monotonic()
    landed = plan.run(config, tmp_path, checkpoint, lambda: data_keys(output))
    kill_phase_s = time.monotonic() - started

    produced = producer.stop()  # raises what producing raised
    finish_after_kills(config, tmp_path, checkpoint)
    total_s = time.monotonic() - started
    print(f"{KILLS} kills in {kill_phase_s:.0f} s; {produced} records; total {total_s:.0f} s")

    assert_every_offset_once(kafka, topic, output, name, produced, seed)
    assert_anchored_phases_hit(landed)
    record_cell("kill -9", test="test_kill9", target="Lenses KCQL, PARQUET + PARTITIONBY, S3 (moto)", kills=KILLS,
                records=produced, seconds=total_s,
                outcome="every offset once; restarts resumed from the index (one without its checkpoint)")

