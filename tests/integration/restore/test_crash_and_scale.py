"""kill -9 in the middle of a restore, then resume, on Apache Kafka: every record exactly once for a
read_committed consumer (the transaction the kill left open is aborted when the resumed restore fences
it); and a bucket of 10,000 objects listed page by page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.application.bootstrap.restore import restore
from lakesink.application.restore import load_plan
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.ports import ListPage
from tests.integration.restore.conftest import BUCKET, local_restore_props, read_topic
from tests.support.kafka_broker import kafka_version
from tests.support.reliability import FULL, record_cell

pytestmark = pytest.mark.integration

LIMIT = 3  # records per restore batch, so per transaction
KILL_AT = (0.2, 0.45, 0.7) if FULL else (0.3,)  # share of the records produced when each run is killed


def _write_text_objects(root: Path, prefix: str, partitions: int, objects: int, records: int) -> list[bytes]:
    values = []
    for partition in range(partitions):
        for number in range(objects):
            lines = [f"p{partition}-o{number}-r{r}".encode() for r in range(records)]
            last = (number + 1) * records - 1
            path = root / BUCKET / prefix / "src" / str(partition) / f"{last:012d}_1_1.text"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"\n".join(lines) + b"\n")
            values.extend(lines)
    return values


@pytest.mark.reliability
def test_kill_9_during_a_restore_then_resume_sends_every_record_exactly_once(apache_kafka, spark, store_root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Apache Kafka aborts the transaction a killed restore left open when the resumed one fences its
    transactional id, so a read_committed consumer sees each record exactly once, in order."""
    kafka = apache_kafka
    target = f"dst-{uuid.uuid4().hex[:8]}"
    expected = _write_text_objects(store_root, "crash", partitions=2, objects=150, records=10)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:crash STOREAS `TEXT` LIMIT {LIMIT}"
    props = local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}")
    config = tmp_path / "restore.json"
    config.write_text(json.dumps(props))
    started = time.monotonic()
    for share in KILL_AT:
        process = subprocess.Popen(
            [sys.executable, "-m", "lakesink.application.cli", "restore", "--config", str(config), "--once"],
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                produced = sum(high for _low, high in kafka.watermarks(target).values())
                if produced >= len(expected) * share:
                    break
                time.sleep(0.05)
            assert process.poll() is None, "the restore finished before it could be killed; make it bigger"
            os.killpg(process.pid, signal.SIGKILL)
        finally:
            process.wait(30)
    restore(load_plan(props), spark, once=True)
    messages = read_topic(kafka.bootstrap_servers, target, expected=len(expected), timeout_s=60)
    for partition in (0, 1):
        sent = [m[2] for m in messages if m[0] == partition]
        wanted = [v for v in expected if v.startswith(b"p%d-" % partition)]
        assert sent == wanted, f"partition {partition}: {_difference(sent, wanted)}"
    record_cell("kill -9", test="test_crash_and_scale (restore)",
                target=f"Lenses restore, TEXT, local directory, Apache Kafka {kafka_version()}",
                kills=len(KILL_AT), records=len(expected), seconds=time.monotonic() - started,
                outcome="every record exactly once, in order, for a read_committed consumer")


def _difference(sent: list[bytes], wanted: list[bytes]) -> str:
    """What a failed comparison shows: records sent twice, records missing, or the first out of order."""
    twice = [value for value, count in Counter(sent).items() if count > 1]
    missing = sorted(set(wanted) - set(sent))
    if twice or missing:
        return f"{len(twice)} sent twice (first {twice[:3]}), {len(missing)} missing (first {missing[:3]})"
    first = next(i for i, (a, b) in enumerate(zip(sent, wanted, strict=False)) if a != b)
    return f"out of order from position {first}: {sent[first:first + 3]} instead of {wanted[first:first + 3]}"


class CountingStore(LocalObjectStore):
    """The local store, counting listing pages (one page = one list call) and their sizes."""

    def __init__(self, settings: LocalSettings) -> None:
        super().__init__(settings)
        self.pages: list[int] = []

    def list_pages(self, bucket: str, prefix: str = "", **kwargs: Any) -> Iterator[ListPage]:
        for page in super().list_pages(bucket, prefix, **kwargs):
            self.pages.append(len(page.objects) + len(page.prefixes))
            yield page


def test_ten_thousand_objects_are_listed_in_pages_of_batch_size(spark, kafka, store_root: Path) -> None:  # type: ignore[no-untyped-def]
    target = f"dst-{uuid.uuid4().hex[:8]}"
    expected = _write_text_objects(store_root, "many", partitions=4, objects=2500, records=1)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:many BATCH=1000 STOREAS `TEXT`"
    plan = load_plan(local_restore_props(store_root, kafka.bootstrap_servers, kcql, f"r-{target}"))
    store = CountingStore(LocalSettings(root=store_root))
    started = time.monotonic()
    summary = restore(plan, spark, once=True, store=store)
    elapsed = time.monotonic() - started
    assert summary.list_calls == len(store.pages) == 10
    assert max(store.pages) == 1000
    assert (summary.objects, summary.records) == (10_000, 10_000)
    values = [m[2] for m in read_topic(kafka.bootstrap_servers, target, expected=10_000)]
    assert sorted(values) == sorted(expected)
    print(f"10,000 objects restored in {elapsed:.1f} s ({10_000 / elapsed:.0f} objects/s)")
