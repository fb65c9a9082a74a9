"""Fixtures and helpers of the sink tests: a moto S3 server, config builders, read-back helpers.

Every test produces records whose value carries a unique ``id`` and checks, by reading the
objects back with an independent reader, that every produced record (every produced offset) is
stored exactly once. :func:`run_sink` runs a ``--once`` job (batches planned on the driver) or,
with ``once=False``, a continuous one (batches planned on the driver as they come) stopped once it has read what the
topic held when it started.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.client_config import admin_config
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka, ProducedRecord
from lakesink.adapters.kafka.topic_metadata import TopicMetadata
from lakesink.application.bootstrap.sink import sink_run
from lakesink.application.cli import main
from lakesink.application.sink_run import SinkRun
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import CommitConflictError
from lakesink.domain.ports import ObjectStore, iter_objects
from lakesink.domain.records import positions_json
from lakesink.domain.subscription import TopicSelection
from tests.conftest import unique_name

PARTITIONS = 4


@dataclass
class MotoS3:
    """A moto S3 server on 127.0.0.1."""

    url: str
    process: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def moto_s3() -> Iterator[MotoS3]:
    """moto_server on a free 127.0.0.1 port, stopped at the end of the session."""
    binary = Path(sys.executable).parent / "moto_server"
    if not binary.exists():
        pytest.skip("moto_server is not installed in this environment")
    port = _free_port()
    process = subprocess.Popen(
        [str(binary), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("moto_server did not start") from None
            time.sleep(0.05)
    yield MotoS3(f"http://127.0.0.1:{port}", process)
    process.terminate()
    process.wait(timeout=10)


def local_props(root: Path, kcql: str, topic: str, kafka: EmbeddedKafka, **extra: str) -> dict[str, str]:
    """A local-directory sink config."""
    return {
        "name": unique_name("sink"),
        "connect.local.root": str(root),
        "connect.local.kcql": kcql,
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        **extra,
    }


def s3_props(moto: MotoS3, kcql: str, topic: str, kafka: EmbeddedKafka, **extra: str) -> dict[str, str]:
    """An S3 (moto) sink config."""
    return {
        "name": unique_name("sink"),
        "connect.s3.aws.auth.mode": "Credentials",
        "connect.s3.aws.access.key": "testing",
        "connect.s3.aws.secret.key": "testing",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.custom.endpoint": moto.url,
        "connect.s3.vhost.bucket": "false",
        "connect.s3.kcql": kcql,
        "topics": topic,
        "bootstrap.servers": kafka.bootstrap_servers,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        **extra,
    }


def produce_ids(kafka: EmbeddedKafka, topic: str, ids: range, *, ts0: int = 1_700_000_000_000) -> None:
    """Records ``{"id": i, "region": ..., "n": i}`` with key ``k<i % 3>``, header ``h``; partition ``i % 4``."""
    kafka.produce(
        topic,
        [
            ProducedRecord(
                json.dumps({"id": i, "region": f"r{i % 2}", "n": i}).encode(),
                key=f"k{i % 3}".encode(),
                headers=(("h", f"v{i % 2}".encode()),),
                timestamp_ms=ts0 + i * 1000,
                partition=i % PARTITIONS,
            )
            for i in ids
        ],
    )


def run_sink(
    spark: SparkSession,
    props: Mapping[str, str],
    checkpoint: Path,
    *,
    once: bool = True,
    store: ObjectStore | None = None,
    feeding: threading.Thread | None = None,
) -> SinkRun:
    """Run one sink job and return it (its reports tell what each batch did).

    ``once=True`` is ``lakesink sink --once``; ``once=False`` runs the continuous sink
    until it drained the topic (:func:`run_until_drained`; after ``feeding``, a thread producing
    while the sink runs, has finished). ``store`` replaces the one the settings name (a
    fault-injecting wrapper of it, see tests/support/faulty_store.py).
    """
    settings = ConnectorSettings.from_properties(dict(props), role="sink")
    job = sink_run(settings, spark, checkpoint_dir=str(checkpoint), once=once, store=store)
    if once:
        job.run(timeout_s=120)
    else:
        run_until_drained(spark, job, feeding=feeding)
    return job


def run_until_drained(spark: SparkSession, job: SinkRun, timeout_s: float = 120,
                      feeding: threading.Thread | None = None) -> None:
    """Run a continuous job until a batch ends at the high watermarks its topics have now (or, with
    ``feeding``, once that thread has finished producing), then stop it.

    A thread watches where the job's next batch starts (``job.compute.position``, the end of the
    batch in progress) and stops the job once it is there; the job stops after committing that
    batch. A batch failure ends the run first.
    """
    assert not job.compute.once, "a --once job stops by itself"
    target = _high_watermarks(job) if feeding is None else None
    finished, drained = threading.Event(), threading.Event()

    def stop_when_drained() -> None:
        nonlocal target
        while feeding is not None and feeding.is_alive() and not finished.wait(0.25):
            pass
        target = target or _high_watermarks(job)
        while not finished.wait(0.1):
            if positions_json(job.compute.position) == target:
                drained.set()
                job.stop()
                return

    watcher = threading.Thread(target=stop_when_drained, name=f"stop-{job.settings.name}", daemon=True)
    watcher.start()
    try:
        job.run(timeout_s=timeout_s)
    finally:
        finished.set()
        watcher.join()
    assert drained.is_set(), f"the continuous sink did not reach {target} within {timeout_s} s"


def _high_watermarks(job: SinkRun) -> dict[str, dict[str, int]]:
    metadata = TopicMetadata(admin_config({"bootstrap.servers": job.settings.bootstrap_servers or ""}))
    try:
        selection = TopicSelection(",".join(job.settings.topics) or None, job.settings.topics_regex)
        return positions_json(metadata.latest(metadata.partitions(selection)))
    finally:
        metadata.close()


def data_keys(store: ObjectStore, bucket: str, prefix: str = "") -> list[str]:
    """Every data object key (index objects excluded), in key order."""
    return [info.key for info in iter_objects(store, bucket, prefix) if not info.key.startswith(".indexes/")]


def assert_exactly_once(ids: list[int], expected: range) -> None:
    """Every produced id (one per produced offset) is stored exactly once."""
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"stored more than once: {duplicates[:10]}"
    assert sorted(ids) == list(expected)


def newer_run_fences_older(
    spark: SparkSession, props: Mapping[str, str], tmp_path: Path, *, landed: Callable[[], bool],
    produce_more: Callable[[], None],
) -> None:
    """Two runs of one sink at once: the older continuous one (in a thread) until ``landed()`` says
    its first records are in; then a newer ``--once`` run claims everything at its start,
    ``produce_more`` feeds both, and the newer writes. The older must stop fenced
    (CommitConflictError); the caller checks what landed."""
    settings = ConnectorSettings.from_properties(dict(props))
    older = sink_run(settings, spark, checkpoint_dir=str(tmp_path / "ck-old"), once=False)
    failure: list[BaseException] = []

    def run_older() -> None:
        try:
            older.run(timeout_s=120)
        except BaseException as error:  # the thread's outcome, checked below
            failure.append(error)

    thread = threading.Thread(target=run_older, name="older-sink", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not landed():
        assert time.monotonic() < deadline, "the older sink did not write its first records in time"
        time.sleep(0.2)
    newer = sink_run(settings, spark, checkpoint_dir=str(tmp_path / "ck-new"), once=True)
    newer.prepare()  # claims every lock (and table) while the older one runs
    produce_more()
    newer.run(timeout_s=120)
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert len(failure) == 1 and isinstance(failure[0], CommitConflictError), failure


def assert_verifies_clean(
    props: Mapping[str, str], directory: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """``lakesink verify`` on the sink's config exits 0: every offset once, nothing it cannot explain;
    its report."""
    config = directory / "verified-sink.json"
    config.write_text(json.dumps({"name": props["name"], "config": dict(props)}))
    capsys.readouterr()
    code = main(["verify", "--config", str(config), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, str({key: value for key, value in report.items() if key != "partitions"})
    return report
