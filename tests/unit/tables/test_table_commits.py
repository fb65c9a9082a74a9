"""The table commit protocol (lakesink.domain.tables.table_commits) on an in-memory table.

The fake keeps a log of commits (files and marks) and fails a commit based on an older version
exactly as the port says a format must: that is all the protocol relies on.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import pytest

from lakesink.domain.errors import CommitConflictError, CommitError, TableMovedError
from lakesink.domain.records import TopicPartition
from lakesink.domain.tables.marks import (
    UNKNOWN_OWNER,
    TableMark,
    mark_of,
    mark_properties,
)
from lakesink.domain.tables.table_commits import (
    ATTEMPTS,
    RangeWrite,
    TableClaim,
    ahead_of_index,
    claim_table,
    commit_to_table,
)
from lakesink.domain.tables.table_port import DataFile, TableHead

P0: TopicPartition = ("orders", 0)
P1: TopicPartition = ("orders", 1)


@dataclass
class MemoryTable:
    """A table as a list of commits; ``creates_empty`` False behaves like Delta (no table without a column)."""

    creates_empty: bool = True
    keeps_owner: bool = True
    commits: list[tuple[tuple[DataFile, ...], TableMark]] = field(default_factory=list)
    exists: bool = False
    before_commit: list[object] = field(default_factory=list)
    """Callables run just before the next commits land (another writer's commit in between)."""
    lost_answers: int = 0

    name = "shop.orders"

    def head(self, connector: str, partitions: Collection[TopicPartition]) -> TableHead:
        if not self.exists:
            return TableHead(None, None)
        marks = [mark for _, mark in self.commits if mark.connector == connector]
        newest = marks[-1] if marks else None
        if newest is not None and not self.keeps_owner:
            newest = TableMark(connector, UNKNOWN_OWNER, newest.epoch, newest.offsets)
        return TableHead(len(self.commits), newest)

    def commit(self, head: TableHead, files: Sequence[DataFile], mark: TableMark) -> bool:
        if self.before_commit:
            self.before_commit.pop(0)()  # type: ignore[operator]
        if head.version is None:
            if self.exists:
                raise TableMovedError("created since")
            if not files and not self.creates_empty:
                return False
            self.exists = True
        elif head.version != len(self.commits):
            raise TableMovedError("moved")
        self.commits.append((tuple(files), mark))
        if self.lost_answers:
            self.lost_answers -= 1
            raise TimeoutError("the answer was lost")
        return True

    def rows(self) -> list[str]:
        return [data_file.key for files, _ in self.commits for data_file in files]


def _write(where: TopicPartition, first: int, last: int, *keys: str) -> RangeWrite:
    return RangeWrite(where, first, last, tuple(DataFile("b", key) for key in keys))


def test_the_first_run_creates_and_claims_the_table_with_no_offsets() -> None:
    table = MemoryTable()
    claim = claim_table(table, "sink", "run-1", [P0])
    assert claim == TableClaim(TableMark("sink", "run-1", 1, {}))
    assert table.commits == [((), claim.mark)]


def test_a_batch_commit_adds_its_files_with_the_offsets_of_every_partition_so_far() -> None:
    table = MemoryTable()
    claim = claim_table(table, "sink", "run-1", [P0, P1])
    claim = commit_to_table(table, claim, [_write(P0, 0, 4, "a"), _write(P1, 0, 2, "b")])
    claim = commit_to_table(table, claim, [_write(P0, 5, 9, "c")])
    assert claim.mark.offsets == {P0: 9, P1: 2}
    assert table.rows() == ["a", "b", "c"]


def test_a_new_run_resumes_from_the_newest_mark_with_the_next_epoch() -> None:
    table = MemoryTable()
    first = commit_to_table(table, claim_table(table, "sink", "run-1", [P0]), [_write(P0, 0, 4, "a")])
    second = claim_table(table, "sink", "run-2", [P0])
    assert second.mark == TableMark("sink", "run-2", 2, {P0: 4})
    with pytest.raises(CommitConflictError, match="fenced"):
        commit_to_table(table, first, [_write(P0, 5, 9, "b")])
    assert table.rows() == ["a"]


def test_a_claim_landing_between_the_read_and_the_commit_fences_the_older_run() -> None:
    table = MemoryTable()
    older = claim_table(table, "sink", "old", [P0])
    table.before_commit.append(lambda: claim_table(table, "sink", "new", [P0]))
    with pytest.raises(CommitConflictError, match="epoch 2"):
        commit_to_table(table, older, [_write(P0, 0, 4, "a")])
    assert table.rows() == []


def test_another_writers_commit_in_between_is_read_again_and_the_batch_commits_once() -> None:
    table = MemoryTable()
    claim = claim_table(table, "sink", "run-1", [P0])
    compaction = TableMark("compactor", "x", 1, {})
    table.before_commit.append(lambda: table.commits.append(((), compaction)))
    claim = commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    assert table.rows() == ["a"] and claim.mark.offsets == {P0: 4}


def test_a_table_that_never_stops_moving_stops_the_batch() -> None:
    table = MemoryTable()
    claim = claim_table(table, "sink", "run-1", [P0])
    other = TableMark("other", "x", 1, {})
    table.before_commit.extend([lambda: table.commits.append(((), other))] * ATTEMPTS)
    with pytest.raises(CommitError, match="kept moving"):
        commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    assert table.rows() == []


def test_a_batch_whose_commit_landed_but_whose_answer_was_lost_is_not_added_again() -> None:
    table = MemoryTable()
    claim = claim_table(table, "sink", "run-1", [P0])
    table.lost_answers = 1
    with pytest.raises(TimeoutError):
        commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    again = commit_to_table(table, claim, [_write(P0, 0, 4, "a")])  # the batch re-run after the wait
    assert table.rows() == ["a"] and again.mark.offsets == {P0: 4}


def test_a_format_that_cannot_create_an_empty_table_claims_with_the_first_batch() -> None:
    table = MemoryTable(creates_empty=False, keeps_owner=False)
    claim = claim_table(table, "sink", "run-1", [P0])
    assert not claim.landed and not table.exists
    claim = commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    assert claim.landed and table.rows() == ["a"]
    commit_to_table(table, claim, [_write(P0, 5, 6, "b")])  # the owner is unknown, the epoch is ours
    assert table.rows() == ["a", "b"]


def test_a_first_batch_without_files_leaves_a_table_that_cannot_be_created_empty_unclaimed() -> None:
    """Every record of the first batch was skipped: nothing creates the Delta table, so the claim
    stays unlanded (the caller keeps its locks) and the next batch with files creates it."""
    table = MemoryTable(creates_empty=False)
    claim = claim_table(table, "sink", "run-1", [P0])
    claim = commit_to_table(table, claim, [_write(P0, 0, 4)])
    assert not claim.landed and not table.exists and claim.mark.offsets == {}
    claim = commit_to_table(table, claim, [_write(P0, 5, 9, "a")])
    assert claim.landed and table.rows() == ["a"] and claim.mark.offsets == {P0: 9}


def test_two_first_runs_of_a_table_that_did_not_exist_let_the_first_creator_win() -> None:
    table = MemoryTable(creates_empty=False)
    one = claim_table(table, "sink", "run-1", [P0])
    two = claim_table(table, "sink", "run-2", [P0])
    commit_to_table(table, two, [_write(P0, 0, 3, "b")])
    with pytest.raises(CommitConflictError, match="run run-2"):
        commit_to_table(table, one, [_write(P0, 0, 4, "a")])
    assert table.rows() == ["b"]


def test_the_lost_answer_of_a_creating_commit_is_recognised_by_its_owner() -> None:
    table = MemoryTable(creates_empty=False)
    claim = claim_table(table, "sink", "run-1", [P0])
    table.lost_answers = 1
    with pytest.raises(TimeoutError):
        commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    claim = commit_to_table(table, claim, [_write(P0, 0, 4, "a")])
    assert claim.landed and table.rows() == ["a"]


def test_ranges_the_table_holds_already_are_not_added_again_and_the_others_are() -> None:
    """The lock of P0 stayed behind the table (a run stopped between the two); a DataFrame's batch
    then re-wrote P0's pending plan 5..9 beside new records 10..14 and P1's first records."""
    table = MemoryTable()
    claim = commit_to_table(table, claim_table(table, "sink", "run-1", [P0]), [_write(P0, 0, 9, "a", "b")])
    claim = commit_to_table(table, claim, [_write(P0, 5, 9, "b"), _write(P0, 10, 14, "c"), _write(P1, 0, 3, "d")])
    assert table.rows() == ["a", "b", "c", "d"]
    assert claim.mark.offsets == {P0: 14, P1: 3}


def test_a_range_the_table_holds_in_part_stops_the_batch() -> None:
    table = MemoryTable()
    claim = commit_to_table(table, claim_table(table, "sink", "run-1", [P0]), [_write(P0, 0, 7, "a")])
    with pytest.raises(CommitError, match=r"holds orders-0 up to offset 7, inside a range of the batch, 5\.\.9"):
        commit_to_table(table, claim, [_write(P0, 5, 9, "b")])
    assert table.rows() == ["a"]


def test_locks_behind_the_table_move_up_and_untouched_ones_stay() -> None:
    mark = TableMark("sink", "r", 3, {P0: 9, P1: 4})
    assert ahead_of_index(mark, {P0: 4, P1: 4}) == {P0: 9}
    assert ahead_of_index(mark, {P0: None}) == {P0: 9}
    assert ahead_of_index(TableMark("sink", "r", 1, {}), {P0: None}) == {}


def test_a_lock_ahead_of_the_table_stops_the_start_naming_the_partition() -> None:
    with pytest.raises(CommitError, match="orders-1 is written up to offset 7.*only up to 4"):
        ahead_of_index(TableMark("sink", "r", 3, {P0: 9, P1: 4}), {P1: 7})
    with pytest.raises(CommitError, match="only up to None"):
        ahead_of_index(TableMark("sink", "r", 1, {}), {P0: 0})


def test_a_mark_round_trips_through_the_snapshot_properties_and_ignores_other_connectors() -> None:
    mark = TableMark("sink.a", "run-1", 7, {P0: 9, P1: 4, ("payments", 12): 0})
    properties = {**mark_properties(mark), "added-records": "5"}
    assert mark_of("sink.a", properties) == mark
    assert mark_of("sink.b", properties) is None
    assert mark_of("sink.a", {"operation": "append"}) is None


def test_a_mark_edited_by_hand_is_refused_with_what_was_found() -> None:
    properties = {**mark_properties(TableMark("sink", "run-1", 1, {})), "lakesink.epoch": "one"}
    with pytest.raises(CommitError, match="unreadable lakesink mark"):
        mark_of("sink", properties)
