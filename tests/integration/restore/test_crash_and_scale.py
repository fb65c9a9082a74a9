"""kill -9 in the middle of a restore, then resume: nothing lost, and only the transaction the kill
left open sent again (a Kafka broker aborts it; the embedded broker cannot, see
:func:`_without_the_killed_transaction`); and a bucket of 10,000 objects listed page by page."""

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
from lakesink.application.restore import load_plan, restore
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.ports import ListPage
from tests.integration.restore.conftest import BUCKET, local_restore_props, read_topic
from tests.support.reliability import record_cell

pytestmark = pytest.mark.integration

LIMIT = 3  # records per restore batch, so per transaction


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
def test_kill_9_during_a_restore_then_resume_loses_nothing_and_resends_only_the_open_transaction(kafka, spark, store_root: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = f"dst-{uuid.uuid4().hex[:8]}"
    expected = _write_text_objects(store_root, "crash", partitions=2, objects=150, records=10)
    kcql = f"INSERT INTO {target} SELECT * FROM {BUCKET}:crash STOREAS `TEXT` LIMIT {LIMIT}"
    # The embedded (librdkafka mock) broker holds the killed producer's transaction open until it times
    # out (a Kafka broker aborts it when the resumed restore fences that producer): a short timeout
    # keeps the resumed restore's wait short.
    props = local_restore_props(
        store_root, kafka.bootstrap_servers, kcql, f"r-{target}", **{"connect.local.source.transaction.timeout.ms": "10000"}
    )
    config = tmp_path / "restore.json"
    config.write_text(json.dumps(props))
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "lakesink.application.cli", "restore", "--config", str(config), "--once"],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            produced = sum(high for _low, high in kafka.watermarks(target).values())
            if produced >= len(expected) // 4:
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
        assert _without_the_killed_transaction(sent, LIMIT) == wanted, f"partition {partition}"
    record_cell("kill -9", test="test_crash_and_scale (restore)", target="Lenses restore, TEXT, local directory",
                kills=1, records=len(expected), seconds=time.monotonic() - started,
                outcome="nothing lost; only the open transaction resent (the mock broker shows it)")


def _without_the_killed_transaction(sent: list[bytes], batch: int) -> list[bytes]:
    """``sent`` without the records of the transaction the kill left open, which the embedded broker shows.

    On a Kafka broker the resumed restore's producer fences the killed one and its open
    transaction is aborted: read_committed consumers never see it. The librdkafka mock has no
    transactional isolation (read_committed consumers see aborted and open transactions' records
    alike), so that transaction's records are there too. What must hold: the restore resumed after
    the last committed transaction, i.e. the only records sent twice are one contiguous run of at
    most one transaction (``batch`` records), each once more, directly before their resent copies;
    without it the partition's records are exactly the objects' lines, in order.
    """
    twice = [value for value, count in Counter(sent).items() if count > 1]
    assert all(sent.count(value) == 2 for value in twice), "a record was sent three times or more"
    assert len(twice) <= batch, f"{len(twice)} records sent twice: more than one transaction's"
    if not twice:
        return sent
    start = sent.index(twice[0])
    assert sent[start : start + len(twice)] == twice, "the records sent twice are not one run"
    assert sent[start + len(twice) : start + 2 * len(twice)] == twice, "the resent copy does not follow the killed one"
    return sent[:start] + sent[start + len(twice) :]


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
