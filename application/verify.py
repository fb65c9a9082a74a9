"""The ``lakesink verify`` use case: list the store once, read the index, open objects only as far as needed, check.

One listing pass per root sorts every key (:class:`~lakesink.domain.verify.keys.KeySorter`); objects
are opened only when their key does not prove their offsets (:data:`OPENING_THREADS` at a time),
each only as far as its count or offsets need. An unreachable cluster leaves the topic's
watermarks out and says why; the store is still checked.
See docs/verify.md, "What proves an object's offsets" and "Exit codes".
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from lakesink.domain.commit.locks import decode_lock
from lakesink.domain.commit.range_plans import RangePlan, decode_plan
from lakesink.domain.errors import FormatError, LakesinkError, ObjectNotFoundError, RecordError, StorageError
from lakesink.domain.ports import ObjectInfo, ObjectStore
from lakesink.domain.progress import ProgressOutput, Throttle, silent
from lakesink.domain.records import TopicPartition
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.tables.target import TableTarget
from lakesink.domain.verify.check import PartitionFacts, check_partition, checked_end
from lakesink.domain.verify.claims import OffsetClaim
from lakesink.domain.verify.index_keys import (
    locks_folder,
    master_lock_of,
    old_locks_folder,
    plan_of,
    plans_folder,
)
from lakesink.domain.verify.keys import KeySorter, Located, listing_roots
from lakesink.domain.verify.report import VerifyReport
from lakesink.domain.verify.tables import LogObject, TableCheck
from lakesink.domain.verify.targets import VerifyPlan

OPENING_THREADS = 32
"""Objects read at once: each read is a store round trip. With a simulated 20 ms GET (bench/verify_store.py
``--latency-ms``) 8 threads read 344 objects/s, 32 read 1,320; on a local store the reads are CPU-bound and
32 threads are no slower than 8. Below S3's default pool of 50 connections."""
LENSES_CHAIN = "a Lenses commit chain"
"""The owner shown for a pending range a Lenses lock's ``pendingState`` names (not a lakesink plan)."""


class TopicOffsets(Protocol):
    """The topic's watermarks (the Kafka adapter's :class:`TopicMetadata` has these methods)."""

    def earliest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The low watermark of each partition."""

    def latest(self, keys: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The high watermark of each partition."""


@dataclass(frozen=True, slots=True)
class ObjectReaders:
    """How an object is read: its record count, and its envelope's offsets (each may download it to the
    path given, and removes it again)."""

    count: Callable[[ObjectStore, RestoreRoot, IndexEntry, Path], int]
    offsets: Callable[[ObjectStore, RestoreRoot, IndexEntry, Path], list[int]]


TableChecker = Callable[[TableTarget, Sequence[LogObject]], TableCheck]
"""Compares a change table with its change log's objects (the verify adapter's ``check_change_table``)."""

RecordOffsets = Callable[[TopicPartition, int, int], tuple[int, ...]]
"""The offsets from the first to the last given that hold a record, read as the sink reads."""


@dataclass(frozen=True, slots=True)
class KafkaView:
    """The cluster's partitions of the sink's topics, their watermarks and a reader of the offsets that
    hold records, or why they are missing."""

    partitions: tuple[TopicPartition, ...] = ()
    offsets: TopicOffsets | None = None
    error: str | None = None
    records: RecordOffsets | None = None


def run_verify(
    plan: VerifyPlan,
    store: ObjectStore,
    readers: ObjectReaders,
    kafka: KafkaView,
    progress: ProgressOutput = silent,
    tables: TableChecker | None = None,
) -> VerifyReport:
    """Check every topic-partition the store or the cluster knows of, and with ``tables`` every change
    table against its change log; ``progress`` gets the steps (:class:`VerifyProgress`). The topic's
    watermarks are asked last, after the store was listed and the objects opened."""
    started = time.monotonic()
    lines = VerifyProgress(progress)
    sorter = KeySorter.of(plan)
    located: dict[TopicPartition, list[Located]] = defaultdict(list)
    buckets: dict[TopicPartition, str] = {}
    listed = 0
    for bucket, _info, found in sorted_listing(plan, store, sorter):
        listed += 1
        if found is not None:
            where = found.topic_partition
            located[where].append(found)
            buckets[where] = bucket
        lines.listing(listed)
    lines.listed(listed, located)
    committed, plans = read_index(plan, store, buckets)
    claims, unreadable, opened = _claims(store, readers, located, lines.opening)
    partitions = sorted(set(located) | set(committed) | set(plans) | set(kafka.partitions))
    starts, ends, kafka_error = watermarks(kafka, partitions)
    checks = []
    for topic, partition in partitions:
        facts = PartitionFacts(
            topic=topic,
            partition=partition,
            bucket=buckets.get((topic, partition), plan.buckets[0]),
            indexed=plan.indexed,
            committed=committed.get((topic, partition)),
            plans=tuple(plans.get((topic, partition), ())),
            topic_start=starts.get((topic, partition)),
            topic_end=ends.get((topic, partition)),
        )
        found, broken = claims.get((topic, partition), ()), unreadable.get((topic, partition), ())
        check = check_partition(facts, found, broken)
        end = checked_end(facts, check.last_stored)
        if check.gaps and kafka.records is not None and facts.topic_start is not None and end is not None:
            # offsets Kafka holds no record at (markers, aborted or compacted records) are no gaps
            try:
                held = kafka.records((topic, partition), facts.topic_start, end)
            except LakesinkError:  # the dense check stands; the gaps are compared with the topic by hand
                held = None
            if held is not None:
                check = check_partition(replace(facts, records=held), found, broken)
        checks.append(check)
    table_checks = () if tables is None else check_change_tables(plan, located, tables, lines.table)
    return VerifyReport(
        connector=plan.name,
        indexed=plan.indexed,
        partitions=tuple(checks),
        mismatches=sorter.mismatches(),
        kafka_error=kafka_error,
        listed=listed,
        opened=opened,
        seconds=time.monotonic() - started,
        tables=table_checks,
    )


def check_change_tables(
    plan: VerifyPlan, located: dict[TopicPartition, list[Located]], check: TableChecker, shown: Callable[[str], None]
) -> tuple[TableCheck, ...]:
    """Every change table of the plan against the objects of its log (``shown`` is told of each)."""
    logs: dict[tuple[str, ...], tuple[TableTarget, list[LogObject]]] = {
        table.identity: (table, []) for target in plan.targets if (table := target.table) and table.changes
    }
    for where, found in located.items():
        for each in found:
            if (table := each.target.table) is not None and table.identity in logs:
                logs[table.identity][1].append(LogObject(each.target.root.bucket, each.entry.key, where))
    checked = []
    for table, log in logs.values():
        shown(table.name)
        checked.append(check(table, log))
    return tuple(checked)


class VerifyProgress:
    """The progress lines of a verify (stderr; the report is stdout's): the listing and the objects
    opened every few seconds while they run, and what the listing found::

        verify: listing, 1,200,000 objects so far
        verify: listed 1,500,000 objects (1,499,000 in 48 topic-partitions), 12,000 to open
        verify: opened 3,000/12,000 objects
    """

    def __init__(self, show: ProgressOutput, now: Callable[[], float] = time.monotonic) -> None:
        self._show = show
        self._throttle = Throttle(now)

    def listing(self, listed: int) -> None:
        """``listed`` objects were listed so far: a line when one is due."""
        if self._throttle.due():
            self._show(f"verify: listing, {listed:,} objects so far")

    def listed(self, listed: int, located: dict[TopicPartition, list[Located]]) -> None:
        """The listing is done: ``located`` are the objects of the sink's topic-partitions."""
        objects = sum(len(found) for found in located.values())
        to_open = sum(found.opened for each in located.values() for found in each)
        self._show(
            f"verify: listed {listed:,} objects ({objects:,} in {len(located):,} topic-partitions), "
            f"{to_open:,} to open"
        )

    def table(self, name: str) -> None:
        """Change table ``name`` is being compared with its change log."""
        self._show(f"verify: comparing change table {name} with its change log")

    def opening(self, done: int, total: int) -> None:
        """``done`` of the ``total`` objects to open are read: a line when one is due."""
        if self._throttle.due():
            self._show(f"verify: opened {done:,}/{total:,} objects")


def sorted_listing(
    plan: VerifyPlan, store: ObjectStore, sorter: KeySorter
) -> Iterator[tuple[str, ObjectInfo, Located | None]]:
    """Every object under the plan's roots, listed once, with what ``sorter`` found it to be (None: no
    data object of the config; the sorter keeps it as a mismatch when it should not be there)."""
    for bucket, prefix, page_size in listing_roots(plan):
        for page in store.list_pages(bucket, prefix, page_size=page_size):
            for info in page.objects:
                yield bucket, info, sorter.sort(bucket, info.key, info.size)


def read_index(
    plan: VerifyPlan, store: ObjectStore, buckets: dict[TopicPartition, str]
) -> tuple[dict[TopicPartition, int], dict[TopicPartition, list[RangePlan]]]:
    """The committed offset of every master lock and the range plans, from every bucket written to
    (each bucket's locks and plans folders of the connector listed once).

    A partition's index lives in the bucket its objects are in (any bucket when it has none). A
    Lenses 9.0.0 master lock (no connector in its path) counts where the current one is missing,
    as the sink's start-up migrates it; a commit chain Lenses left in a lock is a pending range
    up to its ``pendingOffset`` (the next start finishes it, docs/commit-model.md).

    Raises:
        CommitError: a lock or plan is malformed (the message names its key).
    """
    committed: dict[TopicPartition, int] = {}
    plans: dict[TopicPartition, list[RangePlan]] = defaultdict(list)
    if not plan.indexed:
        return committed, plans
    for bucket in plan.buckets:
        for locks in (locks_folder(plan.indexes_name, plan.name), old_locks_folder(plan.indexes_name)):
            for info in _listed(store, bucket, locks):
                where = master_lock_of(locks, info.key)
                if where is None or where in committed or buckets.get(where, bucket) != bucket:
                    continue
                lock = decode_lock(store.get(bucket, info.key).data, key=info.key)
                if lock.committed_offset is not None:
                    committed[where] = lock.committed_offset
                floor = -1 if lock.committed_offset is None else lock.committed_offset
                if lock.pending is not None and lock.pending.pending_offset > floor:
                    plans[where].append(RangePlan(LENSES_CHAIN, floor + 1, lock.pending.pending_offset))
        folder = plans_folder(plan.indexes_name, plan.name)
        for info in _listed(store, bucket, folder):
            found = plan_of(folder, info.key)
            if found is None or buckets.get(found[:2], bucket) != bucket:
                continue
            plans[found[:2]].append(decode_plan(store.get(bucket, info.key).data, key=info.key))
    return committed, plans


def _listed(store: ObjectStore, bucket: str, prefix: str) -> Iterator[ObjectInfo]:
    for page in store.list_pages(bucket, prefix):
        yield from page.objects


def _claims(
    store: ObjectStore,
    readers: ObjectReaders,
    located: dict[TopicPartition, list[Located]],
    on_opened: Callable[[int, int], None],
) -> tuple[dict[TopicPartition, list[OffsetClaim]], dict[TopicPartition, list[tuple[str, str]]], int]:
    """Every object's claim; the objects that could not be read, by partition; how many were opened
    (``on_opened(done, total)`` after each)."""
    claims: dict[TopicPartition, list[OffsetClaim]] = defaultdict(list)
    unreadable: dict[TopicPartition, list[tuple[str, str]]] = defaultdict(list)
    to_open = [(where, found) for where, objects in located.items() for found in objects if found.opened]
    for where, objects in located.items():
        claims[where].extend(found.claim() for found in objects if not found.opened)
    with (
        tempfile.TemporaryDirectory(prefix="lakesink-verify-") as scratch,
        ThreadPoolExecutor(OPENING_THREADS) as pool,
    ):
        paths = (Path(scratch) / f"object-{number}" for number in range(len(to_open)))
        results = pool.map(
            lambda found, path: _open(store, readers, found, path), (f for _, f in to_open), paths
        )
        for done, ((where, found), result) in enumerate(zip(to_open, results, strict=True), 1):
            if isinstance(result, OffsetClaim):
                claims[where].append(result)
            else:
                unreadable[where].append((found.entry.key, result))
            on_opened(done, len(to_open))
    return claims, unreadable, len(to_open)


def _open(store: ObjectStore, readers: ObjectReaders, found: Located, path: Path) -> OffsetClaim | str:
    """Read what one object's claim needs (the readers may download it to ``path``, and remove it); the
    error's text when it cannot be read."""
    root, entry = found.target.root, found.entry
    try:
        if found.reads_offsets:
            offsets = readers.offsets(store, root, entry, path)
            return found.claim(len(offsets), offsets)
        return found.claim(readers.count(store, root, entry, path))
    except ObjectNotFoundError:
        return "deleted since it was listed"
    except StorageError:
        raise
    except (FormatError, RecordError, OSError, ValueError) as error:
        return str(error)


def watermarks(
    kafka: KafkaView, partitions: list[TopicPartition]
) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int], str | None]:
    """The low and high watermarks of the partitions the cluster has (a topic deleted since it was
    written has none), or none and why (the cluster did not answer)."""
    if kafka.offsets is None or kafka.error is not None:
        return {}, {}, kafka.error
    existing = set(kafka.partitions)
    asked = [where for where in partitions if where in existing]
    try:
        return kafka.offsets.earliest(asked), kafka.offsets.latest(asked), None
    except (ConnectionError, LakesinkError) as error:
        return {}, {}, str(error)
