"""The next object is downloaded and opened on a helper thread, one ahead, errors kept in place."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakesink.application.restore.read_ahead import AHEAD_MAX_BYTES, ReadAhead
from lakesink.domain.errors import FormatError, ObjectNotFoundError
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry


def _entry(number: int, size: int = 1) -> IndexEntry:
    return IndexEntry(0, f"src/0/{number:012d}_1_1.text", size, "src", 0, number)


def _batch(*values: bytes) -> MessageBatch:
    return MessageBatch.of_values(list(values), key=None, partition=0)


class FakeObjects:
    """Objects as lists of batches; records which were downloaded and where, and which reads failed."""

    def __init__(self, batches: dict[int, list[MessageBatch]], *, missing: tuple[int, ...] = (),
                 bad_after: dict[int, int] | None = None) -> None:
        self.batches, self.missing, self.bad_after = batches, missing, bad_after or {}
        self.downloaded: list[int] = []
        self.paths: list[Path] = []
        self.threads: set[str] = set()
        self.downloads_done = threading.Semaphore(0)

    def download(self, entry: IndexEntry, path: Path) -> None:
        self.threads.add(threading.current_thread().name)
        if entry.offset in self.missing:
            raise ObjectNotFoundError(f"bkt/{entry.key} not found")
        path.write_bytes(b"object")
        self.paths.append(path)
        self.downloaded.append(entry.offset)
        self.downloads_done.release()

    def read(self, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
        assert path.read_bytes() == b"object"
        for number, batch in enumerate(self.batches[entry.offset]):
            if self.bad_after.get(entry.offset) == number:
                raise FormatError(f"{entry.key}: not a text file")
            yield batch


def _values(batches: Iterator[MessageBatch]) -> list[bytes | None]:
    return [value for batch in batches for value in batch.values]


def test_objects_come_in_order_with_all_their_batches_downloaded_off_the_calling_thread() -> None:
    objects = FakeObjects({1: [_batch(b"a"), _batch(b"b")], 2: [_batch(b"c")]})
    with ReadAhead([_entry(1), _entry(2)], objects.download, objects.read) as reader:
        assert _values(reader.next_object(_entry(1))) == [b"a", b"b"]
        assert _values(reader.next_object(_entry(2))) == [b"c"]
    assert objects.threads == {"lakesink-read-ahead"}


def test_the_next_object_is_opened_while_the_current_one_is_read_but_no_further() -> None:
    objects = FakeObjects({n: [_batch(b"%d" % n)] for n in range(1, 5)})
    with ReadAhead([_entry(n) for n in range(1, 5)], objects.download, objects.read) as reader:
        current = reader.next_object(_entry(1))
        assert objects.downloads_done.acquire(timeout=5) and objects.downloads_done.acquire(timeout=5)
        assert not objects.downloads_done.acquire(timeout=0.2), "more than one object opened ahead"
        assert objects.downloaded == [1, 2]
        assert _values(current) == [b"1"]


def test_an_object_too_large_to_hold_ahead_is_opened_only_when_asked_for() -> None:
    objects = FakeObjects({1: [_batch(b"1")], 2: [_batch(b"2")]})
    entries = [_entry(1), _entry(2, size=AHEAD_MAX_BYTES + 1)]
    with ReadAhead(entries, objects.download, objects.read) as reader:
        current = reader.next_object(entries[0])
        assert objects.downloads_done.acquire(timeout=5)  # the first object
        assert not objects.downloads_done.acquire(timeout=0.3), "the large object was opened ahead"
        assert objects.downloaded == [1]
        assert _values(current) == [b"1"]
        assert _values(reader.next_object(entries[1])) == [b"2"]


def test_a_download_that_fails_is_raised_for_its_object_and_later_objects_still_come() -> None:
    objects = FakeObjects({1: [_batch(b"a")], 3: [_batch(b"c")]}, missing=(2,))
    with ReadAhead([_entry(n) for n in (1, 2, 3)], objects.download, objects.read) as reader:
        assert _values(reader.next_object(_entry(1))) == [b"a"]
        with pytest.raises(ObjectNotFoundError, match="000000000002"):
            reader.next_object(_entry(2))
        assert _values(reader.next_object(_entry(3))) == [b"c"]


@pytest.mark.parametrize("bad_batch", [0, 1])
def test_a_read_error_is_raised_while_iterating_its_object_after_the_batches_before_it(bad_batch: int) -> None:
    objects = FakeObjects({1: [_batch(b"a"), _batch(b"b")], 2: [_batch(b"c")]}, bad_after={1: bad_batch})
    with ReadAhead([_entry(1), _entry(2)], objects.download, objects.read) as reader:
        seen: list[bytes | None] = []
        with pytest.raises(FormatError, match="not a text file"):
            for batch in reader.next_object(_entry(1)):
                seen.extend(batch.values)
        assert seen == [b"a", b"b"][:bad_batch]
        assert _values(reader.next_object(_entry(2))) == [b"c"]


def test_downloads_are_removed_once_read_and_when_the_reader_is_closed_early() -> None:
    objects = FakeObjects({n: [_batch(b"%d" % n)] for n in range(1, 4)})
    with ReadAhead([_entry(n) for n in range(1, 4)], objects.download, objects.read) as reader:
        _values(reader.next_object(_entry(1)))
        assert objects.downloads_done.acquire(timeout=5) and objects.downloads_done.acquire(timeout=5)
    assert objects.downloaded == [1, 2]
    assert not any(path.exists() for path in objects.paths)


def test_a_closed_reader_never_starts() -> None:
    objects = FakeObjects({1: [_batch(b"a")]})
    reader = ReadAhead([_entry(1)], objects.download, objects.read)
    reader.close()
    reader.start()
    assert objects.downloaded == []
