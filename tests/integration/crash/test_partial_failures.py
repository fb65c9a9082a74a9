"""Part of a running sink dies (one Python worker, or the driver alone), or its staging disk fills up.
Every offset still lands once.

``lakesink sink`` runs continuously on the demo's orders config (tests/support/order_sink.py) while
a producer feeds the topic, as in test_kill9.py, but instead of the whole process group each run
of the sink loses first Python workers, then its driver:

* **a Python worker**: one PySpark worker process (a child of the worker daemon) is SIGKILLed while
  the batch's tasks run (just after a data object of the batch appeared). Spark retries the task;
  the sink must keep running and commit the next batches (1 kill in ``make test``, 12 in
  ``make test-reliability``). At least one kill must have cost Spark a task ("Lost task" in the
  log): a worker between tasks dies without a trace.
* **the driver alone**: the ``lakesink sink`` Python process is SIGKILLed and nothing else. Its JVM
  and workers must go with it (an orphaned JVM would go on writing for a dead driver), and a restart
  on the same checkpoint resumes (1 kill in ``make test``, 8 in ``make test-reliability``).

Afterwards a final ``--once`` run drains the topic and the bucket is audited offset by offset. And:

* **a full staging disk**: the staging directory is a 256 KiB tmpfs (mounting one needs root; the
  test is skipped elsewhere). The ``--once`` run must stop with exit 1 and one ``lakesink: error:``
  line naming the directory and the setting that moves it, no traceback; with space again the
  next run finishes and every offset is stored once.

Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.kill_runs import COMMIT_MARKER, TrickleProducer, finish_after_kills
from tests.support.order_sink import (
    MAX_RECORDS,
    assert_every_offset_once,
    data_objects,
    order_chunks,
    orders_config,
)
from tests.support.reliability import FULL, kills, record_cell
from tests.support.sink_process import SinkProcess, group_members

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability,
              pytest.mark.timeout(600)]

WORKER_KILLS = kills(sample=1, full=12)
DRIVER_KILLS = kills(sample=1, full=8)
CHUNK = 20  # records per second
STEP_TIMEOUT_S = 60.0


def _workers(sink: SinkProcess) -> list[psutil.Process]:
    """The PySpark worker processes under the sink: forked by the worker daemon, so a daemon's children."""
    found = []
    for process in psutil.Process(sink.process.pid).children(recursive=True):
        try:
            parent = process.parent()
            if parent is not None and "daemon" in " ".join(parent.cmdline()) and "python" in parent.name():
                found.append(process)
        except psutil.NoSuchProcess:
            continue
    return found


def _commits(sink: SinkProcess) -> int:
    return sink.log.read_text(errors="replace").count(COMMIT_MARKER)


def _kill_workers(sink: SinkProcess, output: S3Bucket, rng: random.Random, count: int) -> None:
    """SIGKILL ``count`` Python workers, each while a batch's tasks run; after each, the sink must
    still commit batches."""
    killed = 0
    while killed < count:
        before = data_objects(output)
        assert sink.wait_for(lambda seen=before: data_objects(output) > seen, STEP_TIMEOUT_S), sink.tail()
        workers = _workers(sink)
        if not workers:
            continue  # the batch's tasks ended before we looked: wait for the next batch
        victim = rng.choice(workers)
        victim.send_signal(signal.SIGKILL)
        killed += 1
        commits = _commits(sink)
        print(f"worker {victim.pid} of {len(workers)} killed")
        assert sink.wait_for(lambda seen=commits: _commits(sink) > seen + 1, STEP_TIMEOUT_S), (
            f"no batch committed after worker {victim.pid} was killed:\n{sink.tail()}"
        )
    assert sink.running(), sink.tail()


def _kill_driver(sink: SinkProcess, output: S3Bucket, rng: random.Random) -> None:
    """SIGKILL the driver alone just after a data object appeared; its whole group must exit within 30 s."""
    before = data_objects(output)
    assert sink.wait_for(lambda: data_objects(output) > before, STEP_TIMEOUT_S), sink.tail()
    time.sleep(rng.uniform(0, 1.5))
    os.kill(sink.process.pid, signal.SIGKILL)
    sink.process.wait()
    killed = time.monotonic()
    while group_members(sink.process.pid) and time.monotonic() < killed + 30:
        time.sleep(0.2)
    left = group_members(sink.process.pid)
    sink.kill9()
    assert left == [], f"the driver died and these went on running: {left}"
    print(f"driver {sink.process.pid} killed; its group was gone {time.monotonic() - killed:.1f} s later")


def test_killed_python_workers_are_retried_and_a_killed_driver_takes_its_jvm_along(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    topic, bucket, name = unique_name("partial"), unique_name("partial"), unique_name("partial-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket)
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()
    started = time.monotonic()
    lost_tasks = 0
    for run in range(DRIVER_KILLS):  # each run: its share of worker kills, then its driver killed
        sink = SinkProcess(config, tmp_path / f"run-{run}.log", checkpoint=tmp_path / "checkpoint")
        assert sink.wait_for(lambda running=sink: _commits(running) > 0, STEP_TIMEOUT_S), sink.tail()
        _kill_workers(sink, output, rng, WORKER_KILLS // DRIVER_KILLS + (run < WORKER_KILLS % DRIVER_KILLS))
        for _ in range(5):  # a worker between tasks dies without a trace: kill more until one cost a task
            if lost_tasks or "Lost task" in sink.log.read_text(errors="replace") or run < DRIVER_KILLS - 1:
                break
            _kill_workers(sink, output, rng, 1)
        _kill_driver(sink, output, rng)
        lost_tasks += sink.log.read_text(errors="replace").count("Lost task")
    assert lost_tasks > 0, "no worker kill hit a running task"
    produced = producer.stop()
    finish_after_kills(config, tmp_path, tmp_path / "checkpoint")
    elapsed = time.monotonic() - started

    assert_every_offset_once(kafka, topic, output, name, produced, seed)
    record_cell("kill -9", test="test_partial_failures (Python workers, then the driver alone)",
                target="Lenses KCQL, PARQUET, S3 (moto)", kills=WORKER_KILLS + DRIVER_KILLS, records=produced,
                seconds=elapsed, outcome=f"{lost_tasks} tasks lost and retried by Spark, the sink kept running; "
                "each killed driver's JVM and workers exited with it; every offset once")


@pytest.mark.skipif(not FULL, reason="make test-reliability runs it (20 s of make test's 15 minutes)")
def test_a_full_staging_disk_stops_the_sink_with_one_line_and_a_restart_finishes(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    staging = tmp_path / "staging"
    staging.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(staging)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    topic, bucket, name = unique_name("full"), unique_name("full"), unique_name("full-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket,
                           **{"connect.s3.local.tmp.directory": str(staging)})
    produced = order_chunks(kafka, topic, seed=7, chunk=MAX_RECORDS // 4)()
    try:
        full = SinkProcess(config, tmp_path / "full.log", checkpoint=tmp_path / "checkpoint", once=True)
        code = full.wait(timeout_s=180)
    finally:
        subprocess.run(["umount", "-l", str(staging)], check=True)
    log = full.log.read_text(errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("lakesink: error:")]
    assert code == 1, full.tail()
    assert len(errors) == 1 and "is full (No space left on device)" in errors[0], full.tail()
    assert str(staging) in errors[0] and "connect.s3.local.tmp.directory" in errors[0]
    assert "Traceback" not in log

    again = SinkProcess(config, tmp_path / "again.log", checkpoint=tmp_path / "checkpoint", once=True)
    assert again.wait(timeout_s=180) == 0, again.tail()
    assert_every_offset_once(kafka, topic, moto.bucket(bucket), name, produced, seed=7)
    record_cell("environment", test="test_partial_failures (staging disk full)", target="Lenses KCQL, PARQUET, S3 (moto)",
                records=produced, outcome="exit 1 with one line naming the directory and its setting; "
                "the next run finished; every offset once")
