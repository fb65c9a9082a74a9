"""Which failures a sink waits out, and how long it waits."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import (
    AccessDeniedError,
    CommitConflictError,
    CommitOutcomeUnknownError,
    StorageError,
    TransientStorageError,
)
from lakesink.domain.transient import transient_status, wait_before, waits_out


def test_waits_double_from_one_second_to_a_minute_and_stay_there_however_long_the_store_fails() -> None:
    assert [wait_before(attempt) for attempt in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert wait_before(5000) == 60  # a day of failures later: no overflow


@pytest.mark.parametrize("error", [TransientStorageError("503"), CommitOutcomeUnknownError("lost")])
def test_failures_that_end_by_themselves_are_waited_out(error: Exception) -> None:
    assert waits_out(error)


@pytest.mark.parametrize("error", [StorageError("501"), AccessDeniedError("403"), CommitConflictError("fenced"),
                                   ValueError("bug")])
def test_failures_waiting_cannot_cure_are_not(error: Exception) -> None:
    assert not waits_out(error)


@pytest.mark.parametrize(("status", "transient"), [
    (408, True), (429, True), (500, True), (502, True), (503, True), (504, True),
    (501, False), (505, False), (400, False), (403, False), (404, False), (412, False),
])
def test_statuses_that_may_succeed_when_asked_again(status: int, transient: bool) -> None:
    assert transient_status(status) is transient
