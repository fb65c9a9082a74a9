"""Replaying one origin partition into Kafka with transactions: no loss, no duplicates.

Each transaction holds at most LIMIT records AND the progress record saying how far the origin
got, so Kafka makes both visible or neither; a reopened origin fences its older producer and skips
what was delivered (:func:`~lakesink.domain.restore.progress.records_to_skip`). Post-process
actions run only after an object's last transaction committed.
See docs/restore.md, "Delivery guarantees" and "Post-process".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from lakesink.application.restore.read_ahead import ReadAhead
from lakesink.application.waiting import waiting_out
from lakesink.domain.dialects.confluent.restore_keys import sibling_path
from lakesink.domain.errors import FormatError, ObjectNotFoundError, PreconditionFailedError, RecordError
from lakesink.domain.ports import ObjectStore
from lakesink.domain.restore.batch import MessageBatch, topic_runs
from lakesink.domain.restore.chunking import resume_at, transaction_slices
from lakesink.domain.restore.index import IndexEntry, WorkItem
from lakesink.domain.restore.partitions import target_partition
from lakesink.domain.restore.plan import RestorePlan
from lakesink.domain.restore.ports import BatchReader, OriginProducer
from lakesink.domain.restore.post_process import post_process_step
from lakesink.domain.restore.progress import Progress, records_to_skip
from lakesink.domain.restore.results import OriginResult

logger = logging.getLogger(__name__)


class OriginReplay:
    """Restores one :class:`WorkItem` through its producer; one per origin inside a task."""

    def __init__(
        self, plan: RestorePlan, item: WorkItem, *, producer: OriginProducer, store: ObjectStore, read: BatchReader
    ) -> None:
        self._plan = plan
        self._item = item
        self._root = plan.roots[item.root]
        self._producer = producer
        self._store = store
        self._read = read
        self._opened = False
        self._reader: ReadAhead | None = None
        self._in_transaction = 0  # records in the open transaction
        self._last_progress: Progress | None = None
        self._pending: list[IndexEntry] = []  # objects finished inside the open transaction
        self._transactions = 0  # committed

    def open(self) -> None:
        """Open the origin's producer (broker waits only: a task opens its next origins meanwhile)
        and decide, from the progress read back, which objects and records are still to send."""
        self._progress = self._producer.open()
        self._partitions = self._producer.partitions()
        self._skips = [records_to_skip(self._progress, entry) for entry in self._item.objects]
        wanted = [entry for entry, skip in zip(self._item.objects, self._skips, strict=True) if skip is not None]
        self._reader = ReadAhead(wanted, self._download, partial(self._read, self._root))
        self._opened = True

    def prefetch(self) -> None:
        """Start fetching and opening the first object to deliver (after :meth:`open`)."""
        assert self._reader is not None, "prefetch() needs open() first"
        self._reader.start()

    def close(self) -> None:
        """Stop fetching ahead for an origin that will not be delivered (a no-op after :meth:`run`)."""
        if self._reader is not None:
            self._reader.close()

    def run(self) -> OriginResult:
        """Deliver the origin's objects (opening it first unless :meth:`open` was called)."""
        started = time.monotonic()
        if not self._opened:
            self.open()
        item, progress = self._item, self._progress
        objects = records = size = skipped = 0
        last = progress.position if progress else (-1, "")
        self._pending = []
        assert self._reader is not None
        self._begin()
        with self._reader as reader:
            for entry, skip in zip(item.objects, self._skips, strict=True):
                if skip is None:
                    self._post_process(entry)
                    continue
                delivered = self._deliver(entry, skip, reader)
                if delivered is None:
                    skipped += 1
                else:
                    records += delivered
                objects += 1
                size += entry.size
                last = entry.position
        if self._last_progress is not None:
            self._commit(self._last_progress)
        else:
            self._producer.abort()
        self._producer.close()
        return OriginResult(
            item.origin, objects, records, size, skipped, last[0], last[1], time.monotonic() - started,
            transactions=self._transactions,
        )

    def _begin(self) -> None:
        self._producer.begin()
        self._in_transaction = 0
        self._last_progress = None

    def _download(self, entry: IndexEntry, path: Path) -> None:
        """The object, and next to it the objects read with it (Confluent's keys and headers).

        A missing companion is left for the reader to report (a FormatError naming both
        objects, which ``tolerate_errors`` skips); a missing object itself has vanished. A store
        failing transiently beyond the SDK's retries is waited out (:mod:`..waiting`): the object
        is read before any of its records is produced, so a re-read changes no transaction.
        """
        bucket = self._root.bucket
        waiting_out(f"Reading {bucket}/{entry.key}", lambda: self._store.download_file(bucket, entry.key, path))
        for marker, key in self._root.companions(entry.key):
            try:
                waiting_out(f"Reading {bucket}/{key}",
                            lambda key=key, marker=marker: self._store.download_file(bucket, key, sibling_path(path, marker)))
            except ObjectNotFoundError:
                continue

    def _deliver(self, entry: IndexEntry, skip: int, reader: ReadAhead) -> int | None:
        """Produce the object's records after the first ``skip``; None when it was skipped as bad.

        Small objects share a transaction: one commits every LIMIT records (and at the end of
        the origin), its progress record naming the object and record reached. With
        ``tolerate_errors`` each object gets its own transactions, so skipping a bad one aborts
        nothing else.
        """
        if self._plan.tolerate_errors and self._last_progress is not None:
            # a bad object aborts its transaction: keep earlier objects out of it
            self._commit(self._last_progress)
            self._begin()
        try:
            batches = reader.next_object(entry)
        except ObjectNotFoundError:
            logger.warning("Object %s/%s vanished before it was read; skipped", self._root.bucket, entry.key)
            self._finish_object(entry, line=skip)
            return None
        try:
            return self._produce_object(entry, batches, skip)
        except (FormatError, RecordError) as error:
            if not self._plan.tolerate_errors:
                raise
            self._producer.abort()  # holds only this object's records
            logger.warning("Object %s/%s skipped: %s", self._root.bucket, entry.key, error)
            self._begin()
            self._commit(Progress.of(entry, line=skip, complete=True))
            self._begin()
            return None

    def _produce_object(self, entry: IndexEntry, batches: Iterator[MessageBatch], skip: int) -> int:
        """Produce the object's records after the first ``skip``, committing every LIMIT records."""
        limit = self._root.limit
        read = 0
        for batch in batches:
            size = len(batch)
            for start, stop in transaction_slices(resume_at(skip, read, size), size, self._in_transaction, limit):
                for run_start, run_stop, topic in topic_runs(batch, start, stop):
                    if topic is not None and topic.startswith("__"):
                        raise RecordError(
                            f"A record of {self._root.bucket}/{entry.key} names the internal topic {topic!r} in its "
                            "envelope (source.topic.from.envelope): internal topics (__…, this restore's progress "
                            "topic included) are never restored into."
                        )
                    self._producer.produce(batch, run_start, run_stop, self._targets(batch, run_start, run_stop, topic), topic)
                self._in_transaction += stop - start
                self._last_progress = Progress.of(entry, line=read + stop, complete=False)
                if self._in_transaction >= limit:
                    self._commit(self._last_progress)
                    self._begin()
            read += size
        self._finish_object(entry, line=read)
        return max(read - skip, 0)

    def _targets(
        self, batch: MessageBatch, start: int, stop: int, topic: str | None = None
    ) -> dict[int | None, int | None]:
        """The target partition of each origin partition in rows ``[start, stop)`` going to ``topic``
        (None: the work item's target topic); a None partition lets the producer choose."""
        rule = self._plan.partition_rule
        count = self._partitions if topic is None else self._producer.partitions(topic)
        name = topic or self._item.topic
        return {origin: target_partition(rule, origin, count, name) for origin in set(batch.partitions[start:stop])}

    def _finish_object(self, entry: IndexEntry, *, line: int) -> None:
        self._last_progress = Progress.of(entry, line=line, complete=True)
        self._pending.append(entry)

    def _commit(self, progress: Progress | None) -> None:
        """Commit the open transaction with ``progress``, then post-process the objects it finished."""
        if progress is None:
            raise ValueError("a transaction is committed with its progress record")
        self._producer.commit(progress)
        self._transactions += 1
        done, self._pending = self._pending, []
        for entry in done:
            self._post_process(entry)

    def _post_process(self, entry: IndexEntry) -> None:
        post = self._root.post_process
        if post is None:
            return
        step = post_process_step(self._root, post, entry.key)
        store, bucket = self._store, self._root.bucket
        if step.marker_key is not None:
            try:
                store.put_if_absent(bucket, step.marker_key, b"")
            except PreconditionFailedError:
                pass
        if step.move_key is not None and step.move_bucket is not None:
            try:
                store.copy(bucket, entry.key, step.move_key, destination_bucket=step.move_bucket)
            except ObjectNotFoundError:
                return  # moved by an earlier run
        store.delete(bucket, entry.key)
