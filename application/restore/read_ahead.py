"""An origin's next object fetched and opened on a helper thread while the current one is produced.

Only the opening moves (the download and the first batch, which decodes the file; both release
the GIL): the delivery thread takes the remaining batches itself, gets them in the same order and
decides alone what goes into which transaction. Errors keep their place (:class:`ReadAhead`).
See docs/restore.md, "Throughput" (round 3).
"""

from __future__ import annotations

import queue
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry

AHEAD_MAX_BYTES = 8 << 20
"""Larger objects are opened only once the delivery asks for them.

An opened object is held decoded in memory (polars reads an Avro file whole): the benchmark's
2.8 MB objects took about 40 MB each, and a task holds up to two opened ahead (the next object
of its origin, the first of the next origin), so the bound keeps that to a few hundred MB.
"""

Download = Callable[[IndexEntry, Path], None]
Read = Callable[[IndexEntry, Path], Iterator[MessageBatch]]


@dataclass(slots=True)
class _Opened:
    """An object downloaded into ``work`` with its first batch taken (or the error taking it raised)."""

    entry: IndexEntry
    work: tempfile.TemporaryDirectory[str]
    batches: Iterator[MessageBatch]
    first: MessageBatch | None = None
    error: Exception | None = None


@dataclass(frozen=True, slots=True)
class _Failed:
    entry: IndexEntry
    error: Exception


class ReadAhead:
    """Opens ``entries`` in order on a helper thread, one object ahead of :meth:`next_object`.

    :meth:`start` may be called early (while an earlier origin is still being delivered); at most
    one opened object waits, and none over :data:`AHEAD_MAX_BYTES`. :meth:`close` (or leaving the context manager) stops the thread and
    removes downloads nobody took.

    Errors keep their place: a failed download is raised by :meth:`next_object` for that object, an
    error reading it while its batches are iterated, where it was raised before; later objects are
    opened all the same (with ``error.policy=NOOP`` the delivery skips the bad one and goes on).
    """

    def __init__(self, entries: Sequence[IndexEntry], download: Download, read: Read) -> None:
        self._entries = list(entries)
        self._download = download
        self._read = read
        self._ready: queue.Queue[_Opened | _Failed] = queue.Queue()
        self._asked = 0  # next_object calls so far
        self._turn = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="lakesink-read-ahead", daemon=True)
        self._started = False

    def start(self) -> None:
        """Begin opening the first object; does nothing once started or closed."""
        with self._turn:
            if not self._started and not self._stopped:
                self._started = True
                self._thread.start()

    def close(self) -> None:
        """Stop the reader (after the object it is opening) and remove downloads nobody took."""
        with self._turn:
            self._stopped = True
            started = self._started
            self._turn.notify_all()
        if started:
            self._thread.join()
        while not self._ready.empty():
            left = self._ready.get()
            if isinstance(left, _Opened):
                left.work.cleanup()

    def __enter__(self) -> ReadAhead:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    def next_object(self, entry: IndexEntry) -> Iterator[MessageBatch]:
        """The batches of ``entry``, the next object in order, once it is downloaded.

        Raises:
            ObjectNotFoundError: (or any error of the download) the object could not be fetched.
        """
        with self._turn:
            self._asked += 1
            self._turn.notify_all()
        item = self._ready.get()
        if item.entry != entry:
            raise RuntimeError(f"read ahead out of step: expected {entry.key}, got {item.entry.key}")
        if isinstance(item, _Failed):
            raise item.error
        return _batches(item)

    def _run(self) -> None:
        for index, entry in enumerate(self._entries):
            # object ``index`` opens once the one before it was asked for, a large one once it was
            ahead = 1 if entry.size <= AHEAD_MAX_BYTES else 0
            with self._turn:
                self._turn.wait_for(lambda: self._stopped or self._asked + ahead > index)  # noqa: B023
                if self._stopped:
                    return
            self._ready.put(self._open(entry))

    def _open(self, entry: IndexEntry) -> _Opened | _Failed:
        try:
            work = tempfile.TemporaryDirectory(prefix="lakesink-restore-")
            try:
                self._download(entry, Path(work.name) / "object")
            except BaseException:
                work.cleanup()
                raise
        except Exception as error:  # noqa: BLE001 - handed to the delivery thread, which decides
            return _Failed(entry, error)
        batches = self._read(entry, Path(work.name) / "object")
        try:
            return _Opened(entry, work, batches, first=next(batches, None))
        except Exception as error:  # noqa: BLE001 - raised in the delivery thread where it was before
            return _Opened(entry, work, batches, error=error)


def _batches(opened: _Opened) -> Iterator[MessageBatch]:
    """The opened object's batches: the first taken by the reader, the rest read here."""
    try:
        if opened.error is not None:
            raise opened.error
        if opened.first is None:
            return
        yield opened.first
        yield from opened.batches
    finally:
        opened.work.cleanup()
