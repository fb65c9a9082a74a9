"""kill -9 the running sink again and again; every record must still land exactly once.

``lakesink sink`` runs continuously as a child process group while a producer keeps feeding
the topic (10 records a second), with ``flush.count=200`` and ``flush.interval=1``, so a batch
and a commit follow every couple of seconds. The whole group (driver, Spark JVM, Python workers)
is SIGKILLed (3 times in ``make test``, 20 in ``make test-reliability``) in one of three phases, a
third of the kills each, in a seeded random order:

* start-up: 2-8 s after launch (JVM, SparkSession, reading the index and the plans; the session
  alone takes ~10 s on a 2-core machine);
* uploads: 0-1.5 s after the first new data object of the run appears in the bucket (the other
  files of the batch uploading, plans written, locks not yet or partly advanced: the window
  between "durable" and "committed");
* streaming: 0-5 s after the sink logged a committed batch (the next batches in flight).

The phases are anchored on what the sink does rather than on fixed delays because a loaded
machine stretches Spark's start from 10 to 30 s; if the anchor is not seen within 45 s the
kill happens anyway (and is reported; each anchored phase must be hit at least once). Each
kill is followed by a restart on the same checkpoint; one restart begins with the checkpoint
deleted, so the store's index alone must say where to resume.
A final ``--once`` run drains the topic; the output is read back with boto3 + pyarrow and
compared with the topic offset by offset, and each master lock must point at the last offset.

Backend: moto's S3 server (the S3 API with create-only and If-Match), not the local directory.
Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.kill_runs import TrickleProducer
from tests.support.order_sink import assert_every_offset_once, data_objects, order_chunks, orders_config
from tests.support.reliability import kills, record_cell
from tests.support.sink_process import SinkProcess

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(600)]

KILLS = kills(sample=3, full=20)  # one per phase in `make test`
CHUNK = 10  # records per second: a backlog small enough that a restart's first batch stays short
ANCHOR_TIMEOUT_S = 45.0
COMMIT_MARKER = "lakesink.application.sink_run: Batch "  # application/sink_run.py logs each committed batch
PHASES = {"start-up": (2.0, 8.0), "uploads": (0.0, 1.5), "streaming": (0.0, 5.0)}


@dataclass(frozen=True, slots=True)
class Kill:
    """When to kill one run: ``delay_s`` after the anchor of its ``phase``."""

    phase: str
    delay_s: float


def _kills(rng: random.Random) -> list[Kill]:
    phases = [list(PHASES)[index % len(PHASES)] for index in range(KILLS)]
    rng.shuffle(phases)
    return [Kill(phase, round(rng.uniform(*PHASES[phase]), 2)) for phase in phases]


def _kill_when_due(sink: SinkProcess, kill: Kill, output: S3Bucket) -> str:
    """Wait for the phase's anchor, then the delay; kill the group; say where the kill landed."""
    launched = time.monotonic()
    seen = True
    if kill.phase == "uploads":
        before = data_objects(output)
        seen = sink.wait_for(lambda: data_objects(output) > before, ANCHOR_TIMEOUT_S)
    elif kill.phase == "streaming":
        seen = sink.wait_for(lambda: sink.logged(COMMIT_MARKER), ANCHOR_TIMEOUT_S)
    time.sleep(kill.delay_s)
    assert sink.running(), f"the sink exited by itself (code {sink.process.returncode}):\n{sink.tail()}"
    sink.kill9()
    return f"{kill.phase} +{kill.delay_s}s, {time.monotonic() - launched:.1f}s after launch" + (
        "" if seen else " (anchor not seen)"
    )


def test_sink_killed_with_sigkill_at_random_moments_stores_every_offset_exactly_once(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    kills = _kills(rng)
    forget_checkpoint_before = rng.randrange(2, KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {forget_checkpoint_before}")

    topic, bucket, name = unique_name("crash"), unique_name("crash"), unique_name("crash-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket)
    checkpoint = tmp_path / "checkpoint"
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()

    started = time.monotonic()
    landed = []
    for run, kill in enumerate(kills):
        if run == forget_checkpoint_before:
            shutil.rmtree(checkpoint, ignore_errors=True)
        sink = SinkProcess(config, tmp_path / f"run-{run}.log", checkpoint=checkpoint)
        landed.append(_kill_when_due(sink, kill, output))
        print(f"kill {run}: {landed[-1]}")
    kill_phase_s = time.monotonic() - started

    produced = producer.stop()
    assert producer.error is None, f"producing failed: {producer.error!r}"
    final = SinkProcess(config, tmp_path / "final.log", checkpoint=checkpoint, once=True)
    assert final.wait(timeout_s=180) == 0, final.tail()
    total_s = time.monotonic() - started
    print(f"{KILLS} kills in {kill_phase_s:.0f} s; {produced} records; total {total_s:.0f} s")

    assert_every_offset_once(kafka, topic, output, name, produced, seed)
    for phase in ("uploads", "streaming"):
        assert any(text.startswith(phase) and "anchor not seen" not in text for text in landed), (
            f"no kill landed in the {phase} phase, so its window was not exercised: {landed}"
        )
    record_cell("kill -9", test="test_kill9", target="Lenses KCQL, PARQUET + PARTITIONBY, S3 (moto)", kills=KILLS,
                records=produced, seconds=total_s,
                outcome="every offset once; restarts resumed from the index (one without its checkpoint)")

