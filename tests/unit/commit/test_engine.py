"""The exactly-once protocol of lakesink.domain.commit.engine, run on the in-memory store."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.domain.commit.actions import Get, HeldLock, PutIfAbsent, UploadFile, UploadFiles
from lakesink.domain.commit.engine import (
    IndexScope,
    PartitionIndex,
    commit_partition,
    make_range_durable,
    open_partition,
)
from lakesink.domain.commit.locks import (
    CopyOp,
    DeleteOp,
    IndexLock,
    PendingState,
    UploadOp,
    decode_lock,
    encode_lock,
)
from lakesink.domain.commit.range_plans import RangePlan, encode_plan
from lakesink.domain.commit.store_calls import perform
from lakesink.domain.errors import (
    CommitConflictError,
    CommitError,
    CommitOutcomeUnknownError,
    ObjectNotFoundError,
    TransientStorageError,
)
from lakesink.domain.ports import iter_objects
from tests.support.faulty_store import Crash, FaultyStore

SCOPE = IndexScope("b", ".indexes", "sink", "orders", 3)
MASTER = ".indexes/sink/.locks/Topic(orders)/3.lock"
OLD_MASTER = ".indexes/.locks/Topic(orders)/3.lock"
TEMP = ".temp-upload/Topic(orders)/3/u/data/orders/3/000000000009.json"
FINAL = "data/orders/3/000000000009.json"


@pytest.fixture
def store() -> InMemoryObjectStore:
    memory = InMemoryObjectStore()
    memory.create_bucket("b")
    return memory


def _lock(store: InMemoryObjectStore, key: str = MASTER) -> IndexLock:
    return decode_lock(store.get("b", key).data)


def _keys(store: InMemoryObjectStore) -> list[str]:
    return [info.key for info in iter_objects(store, "b")]


def _file(tmp_path: Path, key: str, body: bytes) -> UploadFile:
    path = tmp_path / key.replace("/", "_")
    path.write_bytes(body)
    return UploadFile("b", key, str(path), len(body))


# --- start-up ---------------------------------------------------------------------------------


def test_a_partition_without_a_lock_starts_from_nothing_and_is_claimed_with_a_lock_of_no_offset(
    store: InMemoryObjectStore,
) -> None:
    index = perform(open_partition(SCOPE, "run-1"), store)
    assert index.committed is None and index.granular == {} and index.pending == ()
    assert _keys(store) == [MASTER]
    assert store.get("b", MASTER).data == b'{"owner":"run-1","committedOffset":null,"pendingState":null}'


def test_an_older_sink_whose_first_commit_comes_after_the_claim_is_fenced(store: InMemoryObjectStore) -> None:
    """The older sink opened the partition before any lock existed, then a newer one claimed it: the
    older one's first commit meets the newer one's lock and stops (without the lock created at the
    open, that commit would create the lock and fence the newer sink instead)."""
    older = perform(open_partition(SCOPE, "older"), store)
    perform(open_partition(SCOPE, "newer"), store)
    with pytest.raises(CommitConflictError, match="another writer"):
        perform(commit_partition(older, 5, "older"), store)
    assert decode_lock(store.get("b", MASTER).data).owner == "newer"


class _CommitsUnderTheClaim(InMemoryObjectStore):
    """A store where a running sink commits ``times`` times just before each claim's write lands."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.create_bucket("b")
        self._left = times
        self._offset = 40

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        if key == MASTER and self._left:
            self._left -= 1
            self._offset += 1
            self.put(bucket, key, encode_lock(IndexLock("older", self._offset, None)))
        return super().put_if_match(bucket, key, data, etag)


def test_a_claim_meeting_a_commit_of_the_running_older_sink_reads_again_and_keeps_that_offset() -> None:
    """Starting while the older sink of the same name still runs: its commit lands between the
    newer one's read and write. That is the older one's last word, not a rival claim."""
    store = _CommitsUnderTheClaim(times=2)
    store.put("b", MASTER, encode_lock(IndexLock("older", 40, None)))
    index = perform(open_partition(SCOPE, "newer"), store)
    assert index.committed == 42
    assert _lock(store) == IndexLock("newer", 42, None)


def test_a_lock_changed_under_every_claim_stops_the_start_as_fenced() -> None:
    store = _CommitsUnderTheClaim(times=5)
    store.put("b", MASTER, encode_lock(IndexLock("older", 40, None)))
    with pytest.raises(CommitConflictError, match="another writer"):
        perform(open_partition(SCOPE, "newer"), store)
    assert _lock(store) == IndexLock("older", 45, None)


def test_an_existing_lock_is_claimed_with_this_runs_owner_and_its_offset_kept(store: InMemoryObjectStore) -> None:
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 41, None)))
    index = perform(open_partition(SCOPE, "run-1"), store)
    assert index.committed == 41
    assert store.get("b", MASTER).data == b'{"owner":"run-1","committedOffset":41,"pendingState":null}'


def test_a_lenses_900_master_lock_moves_to_the_current_path(store: InMemoryObjectStore) -> None:
    store.put("b", OLD_MASTER, encode_lock(IndexLock("lenses", 7, None)))
    index = perform(open_partition(SCOPE, "run-1"), store)
    assert index.committed == 7
    with pytest.raises(ObjectNotFoundError):
        store.head("b", OLD_MASTER)


def test_a_pending_lenses_chain_is_finished_step_by_step_before_the_claim(store: InMemoryObjectStore) -> None:
    temp_etag = store.put("b", TEMP, b"records 5..9")
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 4, PendingState(9, (
        CopyOp("b", TEMP, FINAL, temp_etag), DeleteOp("b", TEMP, temp_etag))))))
    index = perform(open_partition(SCOPE, "run-1"), store)
    assert index.committed == 9
    assert store.get("b", FINAL).data == b"records 5..9"
    with pytest.raises(ObjectNotFoundError):
        store.head("b", TEMP)
    assert _lock(store) == IndexLock("run-1", 9, None)


@pytest.mark.parametrize("crash_after", range(1, 8))
def test_a_chain_interrupted_after_any_call_is_finished_by_the_next_run(
    store: InMemoryObjectStore, crash_after: int
) -> None:
    temp_etag = store.put("b", TEMP, b"records 5..9")
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 4, PendingState(9, (
        CopyOp("b", TEMP, FINAL, temp_etag), DeleteOp("b", TEMP, temp_etag))))))
    try:
        perform(open_partition(SCOPE, "run-1"), FaultyStore(store, crash_after=crash_after))
    except Crash:
        pass
    index = perform(open_partition(SCOPE, "run-2"), store)
    assert index.committed == 9 and store.get("b", FINAL).data == b"records 5..9"
    assert _keys(store) == [MASTER, FINAL]


def test_a_copy_whose_temporary_object_is_gone_is_done_when_the_final_object_exists(
    store: InMemoryObjectStore,
) -> None:
    store.put("b", FINAL, b"copied before the crash")
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 4, PendingState(9, (
        CopyOp("b", TEMP, FINAL, "E"), DeleteOp("b", TEMP, "E"))))))
    assert perform(open_partition(SCOPE, "run-1"), store).committed == 9


def test_a_copy_with_both_objects_gone_stops_and_leaves_the_chain_in_the_lock(store: InMemoryObjectStore) -> None:
    chain = IndexLock("lenses", 4, PendingState(9, (CopyOp("b", TEMP, FINAL, "E"), DeleteOp("b", TEMP, "E"))))
    store.put("b", MASTER, encode_lock(chain))
    with pytest.raises(CommitError, match="Cannot finish the pending commit recorded in b/.indexes"):
        perform(open_partition(SCOPE, "run-1"), store)
    assert _lock(store) == chain


def test_a_pending_upload_of_a_dead_process_is_abandoned_and_the_old_offset_stands(
    store: InMemoryObjectStore,
) -> None:
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 4, PendingState(9, (
        UploadOp("b", "/tmp/gone", TEMP), CopyOp("b", TEMP, FINAL, "placeholder"))))))
    assert perform(open_partition(SCOPE, "run-1"), store).committed == 4
    assert _lock(store) == IndexLock("run-1", 4, None)


def test_granular_locks_ahead_of_the_master_are_records_to_skip(store: InMemoryObjectStore) -> None:
    granular = ".indexes/sink/.locks/Topic(orders)/3/"
    store.put("b", MASTER, encode_lock(IndexLock("lenses", 10, None)))
    store.put("b", granular + "name=a.lock", encode_lock(IndexLock("lenses", 15, None)))
    store.put("b", granular + "name=b.lock", encode_lock(IndexLock("lenses", 8, None)))
    store.put("b", granular + "sweep-marker.json", b"{}")
    assert perform(open_partition(SCOPE, "run-1"), store).granular == {"name=a": 15}


def test_plans_above_the_lock_are_pending_and_those_below_are_deleted(store: InMemoryObjectStore) -> None:
    store.put("b", MASTER, encode_lock(IndexLock("old", 9, None)))
    for plan in (RangePlan("old", 0, 9), RangePlan("old", 10, 14), RangePlan("old", 15, 19)):
        store.put("b", SCOPE.plan_key(plan.start), encode_plan(plan))
    index = perform(open_partition(SCOPE, "run-1"), store)
    assert [(p.start, p.last) for p in index.pending] == [(10, 14), (15, 19)]
    with pytest.raises(ObjectNotFoundError):
        store.head("b", SCOPE.plan_key(0))


# --- one range --------------------------------------------------------------------------------


def test_the_plan_is_written_before_any_upload(tmp_path: Path) -> None:
    files = (_file(tmp_path, "data/a.json", b"1"), _file(tmp_path, "data/b.json", b"22"))
    steps = make_range_durable(SCOPE, RangePlan("run-1", 5, 9), files)
    assert next(steps) == Get("b", MASTER)
    assert steps.throw(ObjectNotFoundError("no lock yet")) == PutIfAbsent(
        "b", SCOPE.plan_key(5), b'{"owner":"run-1","start":5,"last":9}'
    )
    assert steps.send("etag") == UploadFiles(files, create_only=True)


def test_a_sink_superseded_by_a_newer_one_stops_before_it_writes_a_plan_or_uploads(
    store: InMemoryObjectStore, tmp_path: Path
) -> None:
    store.put("b", MASTER, encode_lock(IndexLock("run-2", 4, None)))
    with pytest.raises(CommitConflictError, match="changed by another writer"):
        perform(make_range_durable(SCOPE, RangePlan("run-1", 5, 9), (_file(tmp_path, "data/a.json", b"1"),)), store)
    assert _keys(store) == [MASTER]


def test_at_least_once_uploads_without_a_plan_and_overwrites(tmp_path: Path) -> None:
    files = (_file(tmp_path, "data/a.json", b"1"),)
    assert next(make_range_durable(SCOPE, None, files)) == UploadFiles(files, create_only=False)


def test_a_plan_already_there_for_the_same_range_is_a_retry_and_its_objects_are_accepted(
    store: InMemoryObjectStore, tmp_path: Path
) -> None:
    store.put("b", SCOPE.plan_key(5), encode_plan(RangePlan("earlier", 5, 9)))
    store.put("b", "data/a.json", b"1")
    perform(make_range_durable(SCOPE, RangePlan("run-1", 5, 9), (_file(tmp_path, "data/a.json", b"1"),)), store)
    assert store.get("b", "data/a.json").data == b"1"


def test_a_plan_for_another_range_stops_the_task_before_any_upload(
    store: InMemoryObjectStore, tmp_path: Path
) -> None:
    store.put("b", SCOPE.plan_key(5), encode_plan(RangePlan("other", 5, 12)))
    with pytest.raises(CommitConflictError, match=r"already exists for offsets 5\.\.12 \(run other\)"):
        perform(make_range_durable(SCOPE, RangePlan("run-1", 5, 9), (_file(tmp_path, "data/a.json", b"1"),)), store)
    with pytest.raises(ObjectNotFoundError):
        store.head("b", "data/a.json")


def test_an_object_already_there_with_other_bytes_is_a_conflict(store: InMemoryObjectStore, tmp_path: Path) -> None:
    store.put("b", "data/a.json", b"somebody else's")
    with pytest.raises(CommitConflictError, match="already exists with 15 bytes, but this batch wrote 1"):
        perform(make_range_durable(SCOPE, RangePlan("run-1", 5, 9), (_file(tmp_path, "data/a.json", b"1"),)), store)


@pytest.mark.parametrize("lost", [2, 3])  # call 1 reads the lock, 2 writes the plan, 3 uploads
def test_lost_answers_of_the_plan_and_the_upload_are_not_conflicts(
    store: InMemoryObjectStore, tmp_path: Path, lost: int
) -> None:
    files = (_file(tmp_path, "data/a.json", b"1"),)
    perform(make_range_durable(SCOPE, RangePlan("run-1", 5, 9), files), FaultyStore(store, lose={lost}))
    assert store.get("b", "data/a.json").data == b"1"


# --- commit -----------------------------------------------------------------------------------


def test_the_commit_advances_the_claimed_lock_and_deletes_the_plans_it_covers(store: InMemoryObjectStore) -> None:
    store.put("b", MASTER, encode_lock(IndexLock("old", 4, None)))
    index = perform(open_partition(SCOPE, "run-1"), store)
    for start, last in ((5, 9), (10, 14)):
        store.put("b", SCOPE.plan_key(start), encode_plan(RangePlan("run-1", start, last)))
    index = perform(commit_partition(index, 14, "run-1"), store)
    assert index.committed == 14 and _lock(store) == IndexLock("run-1", 14, None)
    assert _keys(store) == [MASTER]


def test_a_first_commit_creates_the_lock_create_only(store: InMemoryObjectStore) -> None:
    index = perform(commit_partition(PartitionIndex(SCOPE), 3, "run-1"), store)
    assert index.held is not None and _lock(store) == IndexLock("run-1", 3, None)


def test_a_commit_below_the_committed_offset_writes_nothing() -> None:
    index = PartitionIndex(SCOPE, HeldLock(SCOPE.master, IndexLock("run-1", 9, None), "E"))
    steps = commit_partition(index, 9, "run-1")
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert done.value.value is index


def test_a_second_sink_claiming_the_lock_fences_the_first_at_its_next_commit(store: InMemoryObjectStore) -> None:
    first = perform(commit_partition(PartitionIndex(SCOPE), 3, "run-1"), store)
    perform(open_partition(SCOPE, "run-2"), store)
    with pytest.raises(CommitConflictError, match="changed by another writer"):
        perform(commit_partition(first, 8, "run-1"), store)
    assert _lock(store) == IndexLock("run-2", 3, None)


@pytest.mark.parametrize("lost", [1, 2])
def test_a_lock_write_whose_answer_was_lost_is_accepted_not_fenced(store: InMemoryObjectStore, lost: int) -> None:
    """Call 1 creates the lock, call 2 (after a claim) rewrites it; each answer lost once, the retry 412s."""
    index = PartitionIndex(SCOPE)
    if lost == 2:
        index = perform(commit_partition(index, 3, "run-1"), store)
    faulty = FaultyStore(store, lose={1})
    index = perform(commit_partition(index, 8, "run-1"), faulty)
    assert index.committed == 8 and _lock(store) == IndexLock("run-1", 8, None)
    perform(commit_partition(index, 12, "run-1"), store)  # the etag held is the lock's real one
    assert _lock(store) == IndexLock("run-1", 12, None)


def test_a_failed_lock_write_that_did_not_happen_is_the_stores_error() -> None:
    steps = commit_partition(PartitionIndex(SCOPE), 5, "run-1")
    assert isinstance(next(steps), PutIfAbsent)
    assert steps.throw(TransientStorageError("503 SlowDown")) == Get("b", MASTER)
    with pytest.raises(TransientStorageError, match="SlowDown"):
        steps.throw(ObjectNotFoundError("no lock"))


def test_a_failed_lock_write_that_cannot_be_read_back_has_an_unknown_outcome() -> None:
    steps = commit_partition(PartitionIndex(SCOPE), 5, "run-1")
    next(steps)
    steps.throw(TransientStorageError("connection reset"))
    with pytest.raises(CommitOutcomeUnknownError, match="whether it was written is unknown"):
        steps.throw(TransientStorageError("connection reset"))
