"""The index's commit of a batch: every partition's lock advanced at once, a failed one raised after the others landed."""

from __future__ import annotations

import threading

import pytest

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.sink_index import PARTITION_THREADS, SinkIndex
from lakesink.domain.commit.lock_keys import master_lock_key
from lakesink.domain.commit.locks import decode_lock
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import TransientStorageError
from lakesink.domain.statement_plan import plan_sink

BUCKET, TOPIC, NAME = "lake", "orders", "indexed"
PLAN = plan_sink(ConnectorSettings.from_properties(
    {"name": NAME, "connect.memory.kcql": f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC}", "topics": TOPIC},
    role="sink"))
PARTITIONS = [(TOPIC, p) for p in range(40)]


class LockWrites(InMemoryObjectStore):
    """Fails the lock writes of ``failing`` partitions; records how many lock writes ran at once."""

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.failing = failing
        self.running = self.most = 0
        self._count = threading.Lock()
        self._gate = threading.Barrier(2, timeout=1)

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        with self._count:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            try:
                self._gate.wait()  # two writes in flight at once, when the index allows it
            except threading.BrokenBarrierError:
                pass
            if any(key.endswith(f"/{p}.lock") for p in self.failing):
                raise TransientStorageError(f"{key}: store unavailable (test)")
            return super().put_if_match(bucket, key, data, etag)
        finally:
            with self._count:
                self.running -= 1


def _lock(store: InMemoryObjectStore, partition: int) -> int | None:
    return decode_lock(store.get(BUCKET, master_lock_key(".indexes", NAME, TOPIC, partition)).data).committed_offset


def _opened(store: InMemoryObjectStore) -> SinkIndex:
    store.create_bucket(BUCKET)
    index = SinkIndex(store, PLAN, connector=NAME, indexes_name=".indexes", owner="run-1")
    index.open(PARTITIONS)
    return index


def test_a_batch_commits_its_partitions_concurrently() -> None:
    store = LockWrites()
    index = _opened(store)

    index.commit(dict.fromkeys(PARTITIONS, 9))

    assert 1 < store.most <= PARTITION_THREADS
    assert [_lock(store, p) for _, p in PARTITIONS] == [9] * len(PARTITIONS)


def test_a_failed_partition_is_raised_after_the_others_committed_and_they_commit_again_without_conflict() -> None:
    store = LockWrites()
    index = _opened(store)
    store.failing = frozenset({7})

    with pytest.raises(TransientStorageError, match="7.lock"):
        index.commit(dict.fromkeys(PARTITIONS, 9))

    assert [_lock(store, p) for _, p in PARTITIONS if p != 7] == [9] * (len(PARTITIONS) - 1)
    store.failing = frozenset()
    index.commit(dict.fromkeys(PARTITIONS, 19))  # the state of those that landed was kept: no self-fencing
    assert [_lock(store, p) for _, p in PARTITIONS] == [19] * len(PARTITIONS)
