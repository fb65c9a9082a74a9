"""The commit protocol decisions, driven end to end by a tiny executor over a dict-backed fake store."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import pytest

from lakesink.domain.commit.lenses_chain import (
    PLACEHOLDER_ETAG,
    Copy,
    Delete,
    FailureDecision,
    HeldLock,
    LockRef,
    Outcome,
    PutIfAbsent,
    PutIfMatch,
    StepError,
    StoreAction,
    UploadFile,
    after_success,
    begin_commit,
    decide_failure,
    fenced,
    master_lock_update,
    migrate_old_master,
    next_action,
    obsolete_granular_locks,
    open_lock,
    seek_offset,
    writer_start_offset,
)
from lakesink.domain.commit.locks import (
    CopyOp,
    DeleteOp,
    IndexLock,
    PendingState,
    UploadOp,
    decode_lock,
    encode_lock,
    granular_lock_key,
    master_lock_key,
    temp_upload_key,
)
from lakesink.domain.errors import CommitConflictError, CommitError

FINAL = "out/orders/0/000000000001_1000_1001.json"
TEMP = temp_upload_key("orders", 0, "uuid-1", FINAL)
GRANULAR = LockRef("b", granular_lock_key(".indexes", "s3-sink", "orders", 0, "partition=0_topic=orders"))
MASTER = LockRef("b", master_lock_key(".indexes", "s3-sink", "orders", 0))


class Missing(Exception):
    """The fake's not-found."""


class Conflict(Exception):
    """The fake's failed precondition."""


@dataclass
class FakeStore:
    """One bucket in a dict; etags are a counter. Records every lock body written, in order."""

    objects: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    local_files: dict[str, bytes] = field(default_factory=dict)
    lock_writes: list[bytes] = field(default_factory=list)
    _etags: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def _put(self, key: str, body: bytes) -> str:
        etag = f"E{next(self._etags)}"
        self.objects[key] = (body, etag)
        if key.endswith(".lock"):
            self.lock_writes.append(body)
        return etag

    def execute(self, action: StoreAction) -> str | None:
        match action:
            case PutIfAbsent(key=key, body=body):
                if key in self.objects:
                    raise Conflict(key)
                return self._put(key, body)
            case UploadFile(local_path=path, key=key):
                if path not in self.local_files:
                    raise Missing(path)
                if key in self.objects:
                    raise Conflict(key)
                return self._put(key, self.local_files[path])
            case PutIfMatch(key=key, body=body, etag=etag):
                if self.objects.get(key, (b"", None))[1] != etag:
                    raise Conflict(key)
                return self._put(key, body)
            case Copy(source=source, destination=destination, if_match=if_match):
                if source not in self.objects:
                    if action.done_if_destination_exists and destination in self.objects:
                        return None
                    raise Missing(source)
                if if_match is not None and self.objects[source][1] != if_match:
                    raise Conflict(source)
                self._put(destination, self.objects[source][0])
                return None
            case Delete(key=key):
                self.objects.pop(key, None)
                return None
        raise AssertionError(action)


def run_chain(
    store: FakeStore, held: HeldLock, lock: IndexLock, *, stop_after_steps: int | None = None
) -> HeldLock:
    """The executor loop of lakesink.domain.commit.lenses_chain's docstring; optionally "crashes" after n steps."""
    steps = 0
    while (action := next_action(lock)) is not None:
        if stop_after_steps is not None and steps == stop_after_steps:
            return held
        etag = store.execute(action)
        lock = after_success(lock, etag)
        try:
            new_etag = store.execute(held.write(lock))
        except Conflict:
            raise fenced(held.ref) from None
        assert new_etag is not None
        held = held.written(lock, new_etag)
        steps += 1
    return held


def open_held(store: FakeStore, ref: LockRef, owner: str = "U") -> HeldLock:
    stored = store.objects.get(ref.key)
    opening = open_lock(ref, decode_lock(stored[0]) if stored else None, owner=owner)
    if opening.create is not None:
        etag = store.execute(opening.create)
        assert etag is not None
        return HeldLock(ref, opening.lock, etag)
    assert stored is not None
    held = HeldLock(ref, opening.lock, stored[1])
    return run_chain(store, held, opening.lock) if opening.needs_replay else held


# --- opening ----------------------------------------------------------------------------------


def test_a_missing_lock_is_created_empty_with_a_create_only_put() -> None:
    opening = open_lock(MASTER, None, owner="U")
    assert opening.create == PutIfAbsent(
        "b", MASTER.key, b'{"owner":"U","committedOffset":null,"pendingState":null}'
    )
    assert not opening.needs_replay
    assert seek_offset(opening.lock) is None


def test_a_missing_master_lock_is_seeded_from_a_legacy_index_offset() -> None:
    opening = open_lock(MASTER, None, owner="U", fallback_offset=70)
    assert opening.create is not None and b'"committedOffset":70' in opening.create.body
    assert seek_offset(opening.lock) == 70


def test_an_existing_lock_seeks_to_its_committed_offset_without_writing() -> None:
    opening = open_lock(MASTER, IndexLock("other", 41, None), owner="U")
    assert opening.create is None and not opening.needs_replay
    assert seek_offset(opening.lock) == 41


def test_a_lock_with_a_pending_state_must_be_replayed_before_seeking() -> None:
    lock = IndexLock("other", 1, PendingState(3, (DeleteOp("b", TEMP, "E"),)))
    opening = open_lock(GRANULAR, lock, owner="U")
    assert opening.needs_replay
    with pytest.raises(CommitError, match="pending commit at offset 3"):
        seek_offset(opening.lock)


def test_a_writer_starts_from_its_granular_lock_else_from_the_master() -> None:
    assert writer_start_offset(IndexLock("U", 7, None), master_seek=3) == 7
    assert writer_start_offset(IndexLock("U", None, None), master_seek=3) == 3
    assert writer_start_offset(None, master_seek=None) is None


def test_an_old_master_lock_is_moved_by_copy_then_delete() -> None:
    assert migrate_old_master("b", "old.lock", "new.lock") == (
        Copy("b", "old.lock", "new.lock", if_match=None, done_if_destination_exists=False),
        Delete("b", "old.lock"),
    )


# --- the chain --------------------------------------------------------------------------------


def test_a_lenses_chain_is_upload_copy_delete_with_placeholder_etags() -> None:
    lock = begin_commit(
        IndexLock("U", None), bucket="b", staging_path="/s/f", final_key=FINAL, offset=1, temp_key=TEMP
    )
    assert lock.pending == PendingState(
        1,
        (
            UploadOp("b", "/s/f", TEMP),
            CopyOp("b", TEMP, FINAL, PLACEHOLDER_ETAG),
            DeleteOp("b", TEMP, PLACEHOLDER_ETAG),
        ),
    )
    assert next_action(lock) == UploadFile("b", "/s/f", TEMP)


def test_the_upload_etag_replaces_the_placeholders_of_the_remaining_steps() -> None:
    lock = begin_commit(
        IndexLock("U", None), bucket="b", staging_path="/s/f", final_key=FINAL, offset=1, temp_key=TEMP
    )
    after_upload = after_success(lock, "E1")
    assert after_upload == IndexLock(
        "U", None, PendingState(1, (CopyOp("b", TEMP, FINAL, "E1"), DeleteOp("b", TEMP, "E1")))
    )
    assert next_action(after_upload) == Copy("b", TEMP, FINAL, if_match="E1")
    after_copy = after_success(after_upload, None)
    assert after_copy == IndexLock("U", None, PendingState(1, (DeleteOp("b", TEMP, "E1"),)))
    assert next_action(after_copy) == Delete("b", TEMP)
    done = after_success(after_copy)
    assert done == IndexLock("U", 1, None)
    assert next_action(done) is None


def test_a_direct_chain_is_one_create_only_upload_to_the_final_key() -> None:
    lock = begin_commit(
        IndexLock("U", 4), bucket="b", staging_path="/s/f", final_key=FINAL, offset=9, temp_key=None
    )
    assert next_action(lock) == UploadFile("b", "/s/f", FINAL)
    assert after_success(lock, "E7") == IndexLock("U", 9, None)


def test_after_success_without_a_pending_state_is_an_error() -> None:
    with pytest.raises(CommitError, match="no pending commit chain"):
        after_success(IndexLock("U", 1))


def test_the_worked_example_writes_the_lenses_lock_sequence_byte_for_byte() -> None:
    store = FakeStore(local_files={"/s/f": b'{"a":1}\n{"a":2}\n'})
    held = open_held(store, GRANULAR)
    lock = begin_commit(held.lock, bucket="b", staging_path="/s/f", final_key=FINAL, offset=1, temp_key=TEMP)
    held = run_chain(store, held, lock)
    copy = f'{{"type":"copy","bucket":"b","source":"{TEMP}","destination":"{FINAL}","eTag":"E2"}}'
    delete = f'{{"type":"delete","bucket":"b","source":"{TEMP}","eTag":"E2"}}'
    assert [w.decode() for w in store.lock_writes] == [
        '{"owner":"U","committedOffset":null,"pendingState":null}',
        f'{{"owner":"U","committedOffset":null,"pendingState":{{"pendingOffset":1,"pendingOperations":[{copy},{delete}]}}}}',
        f'{{"owner":"U","committedOffset":null,"pendingState":{{"pendingOffset":1,"pendingOperations":[{delete}]}}}}',
        '{"owner":"U","committedOffset":1,"pendingState":null}',
    ]
    assert store.objects[FINAL][0] == b'{"a":1}\n{"a":2}\n'
    assert TEMP not in store.objects
    assert held.lock == IndexLock("U", 1, None)


@pytest.mark.parametrize("crash_after_steps", [1, 2])
def test_a_chain_interrupted_after_a_step_is_finished_by_the_next_owner(crash_after_steps: int) -> None:
    store = FakeStore(local_files={"/s/f": b"data"})
    held = open_held(store, GRANULAR)
    lock = begin_commit(held.lock, bucket="b", staging_path="/s/f", final_key=FINAL, offset=1, temp_key=TEMP)
    run_chain(store, held, lock, stop_after_steps=crash_after_steps)
    recovered = open_held(store, GRANULAR, owner="V")
    assert recovered.lock == IndexLock("U", 1, None)
    assert seek_offset(recovered.lock) == 1
    assert store.objects[FINAL][0] == b"data" and TEMP not in store.objects


def test_replaying_a_copy_whose_temp_object_is_gone_succeeds_when_the_final_object_exists() -> None:
    store = FakeStore()
    store.objects[FINAL] = (b"data", "E9")
    pending = IndexLock("U", 0, PendingState(1, (CopyOp("b", TEMP, FINAL, "E2"), DeleteOp("b", TEMP, "E2"))))
    store.objects[GRANULAR.key] = (encode_lock(pending), "E8")
    assert open_held(store, GRANULAR).lock == IndexLock("U", 1, None)


def test_replaying_a_copy_with_source_and_destination_gone_fails_and_keeps_the_lock() -> None:
    store = FakeStore()
    pending = IndexLock("U", 0, PendingState(1, (CopyOp("b", TEMP, FINAL, "E2"), DeleteOp("b", TEMP, "E2"))))
    store.objects[GRANULAR.key] = (encode_lock(pending), "E8")
    with pytest.raises(Missing):
        open_held(store, GRANULAR)
    assert decide_failure(pending, StepError.FAILED, live=False) == FailureDecision(Outcome.FATAL)
    assert decode_lock(store.objects[GRANULAR.key][0]) == pending


def test_a_second_writer_is_fenced_by_the_lock_etag() -> None:
    store = FakeStore(local_files={"/s/f": b"data"})
    zombie = open_held(store, GRANULAR)
    store.execute(PutIfMatch("b", GRANULAR.key, encode_lock(IndexLock("V", 5)), zombie.etag))
    lock = begin_commit(
        zombie.lock, bucket="b", staging_path="/s/f", final_key=FINAL, offset=1, temp_key=TEMP
    )
    with pytest.raises(CommitConflictError, match=re.escape(f"b/{GRANULAR.key}") + ".*fenced"):
        run_chain(store, zombie, lock)
    assert FINAL not in store.objects
    assert decode_lock(store.objects[GRANULAR.key][0]) == IndexLock("V", 5)


def test_fenced_is_a_conflict_error_naming_the_lock() -> None:
    error = fenced(MASTER)
    assert isinstance(error, CommitConflictError)
    assert f"b/{MASTER.key}" in str(error)


# --- failures ---------------------------------------------------------------------------------

LENSES_CHAIN = begin_commit(
    IndexLock("U", 4), bucket="b", staging_path="/s/f", final_key=FINAL, offset=9, temp_key=TEMP
)
DIRECT_CHAIN = begin_commit(
    IndexLock("U", 4), bucket="b", staging_path="/s/f", final_key=FINAL, offset=9, temp_key=None
)


@pytest.mark.parametrize(("live", "outcome"), [(True, Outcome.FATAL), (False, Outcome.ABANDON)])
def test_a_missing_staging_file_clears_the_pending_state(live: bool, outcome: Outcome) -> None:
    decision = decide_failure(LENSES_CHAIN, StepError.STAGING_FILE_MISSING, live=live)
    assert decision == FailureDecision(outcome, IndexLock("U", 4, None))


@pytest.mark.parametrize("error", [StepError.FAILED, StepError.ALREADY_EXISTS])
def test_other_upload_errors_are_retried_with_the_staging_file_kept(error: StepError) -> None:
    assert decide_failure(LENSES_CHAIN, error, live=True) == FailureDecision(Outcome.RETRY)


def test_a_direct_upload_finding_its_final_key_already_there_counts_as_done() -> None:
    assert decide_failure(DIRECT_CHAIN, StepError.ALREADY_EXISTS, live=True) == FailureDecision(
        Outcome.AS_SUCCESS
    )
    assert decide_failure(DIRECT_CHAIN, StepError.FAILED, live=True) == FailureDecision(Outcome.RETRY)


def test_a_failed_middle_step_is_fatal_and_a_failed_last_step_is_retried() -> None:
    after_upload = after_success(LENSES_CHAIN, "E1")
    assert decide_failure(after_upload, StepError.FAILED, live=True) == FailureDecision(Outcome.FATAL)
    after_copy = after_success(after_upload)
    assert decide_failure(after_copy, StepError.FAILED, live=True) == FailureDecision(Outcome.RETRY)


def test_deciding_a_failure_without_a_pending_state_is_an_error() -> None:
    with pytest.raises(CommitError):
        decide_failure(IndexLock("U", 1), StepError.FAILED, live=True)


# --- preCommit and GC -------------------------------------------------------------------------


def test_the_master_lock_stores_one_below_the_safe_offset_under_the_held_etag() -> None:
    held = HeldLock(MASTER, IndexLock("U", None), "E5")
    assert master_lock_update(held, owner="U", global_safe_offset=2, last_written=None) == PutIfMatch(
        "b", MASTER.key, b'{"owner":"U","committedOffset":1,"pendingState":null}', "E5"
    )
    update = master_lock_update(held, owner="U", global_safe_offset=0, last_written=None)
    assert update is not None and b'"committedOffset":null' in update.body


def test_the_master_lock_is_not_rewritten_for_an_offset_already_written() -> None:
    held = HeldLock(MASTER, IndexLock("U", 1), "E5")
    assert master_lock_update(held, owner="U", global_safe_offset=2, last_written=2) is None
    assert master_lock_update(held, owner="U", global_safe_offset=3, last_written=2) is not None


def test_obsolete_granular_locks_are_empty_or_below_the_master_and_not_in_use() -> None:
    locks = {
        "k/below.lock": IndexLock("U", 3),
        "k/at.lock": IndexLock("U", 4),
        "k/empty.lock": IndexLock("U", None),
        "k/active.lock": IndexLock("U", 1),
        "k/pending.lock": IndexLock("U", 1, PendingState(2, (DeleteOp("b", "t", "e"),))),
    }
    assert obsolete_granular_locks(locks, master_committed=4, active_keys=["k/active.lock"]) == (
        "k/below.lock",
        "k/empty.lock",
    )
    assert obsolete_granular_locks(locks, master_committed=None, active_keys=[]) == ("k/empty.lock",)
