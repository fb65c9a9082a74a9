"""Range results: errors cross the executor boundary as data and come back as the same error."""

from __future__ import annotations

import pytest

from lakesink.domain import errors
from lakesink.domain.commit.locks import LockFormatError
from lakesink.domain.commit.range_results import RangeFailure, RangeResult, commit_points, first_failure


@pytest.mark.parametrize(
    "error",
    [
        errors.RecordError("Record t-0@5 cannot be written"),
        errors.CommitConflictError("Index lock x was changed by another writer"),
        errors.CommitOutcomeUnknownError("the lock write failed"),
        errors.PreconditionFailedError("exists"),
        errors.KcqlError("bad KCQL"),
        LockFormatError("committedOffset is not a long in k"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_failure_rebuilds_the_same_class_and_message(error: errors.LakesinkError) -> None:
    rebuilt = RangeFailure.of(error).error()

    assert type(rebuilt) is type(error) and str(rebuilt) == str(error)


def test_an_unknown_error_name_gives_the_root_class_with_the_message() -> None:
    rebuilt = RangeFailure("ErrorOfANewerVersion", "what happened").error()

    assert type(rebuilt) is errors.LakesinkError and str(rebuilt) == "what happened"


def test_the_first_failure_in_topic_partition_order_is_the_one_raised() -> None:
    results = [
        RangeResult("t", 1, last=9, failure=RangeFailure("RecordError", "p1")),
        RangeResult("t", 0, first=0, last=4, records=5),
        RangeResult("t", 0, last=7, failure=RangeFailure("StorageError", "p0")),
    ]

    failure = first_failure(results)

    assert isinstance(failure, errors.StorageError) and str(failure) == "p0"
    assert first_failure(results[1:2]) is None


def test_a_partition_commits_the_highest_offset_any_of_its_chunks_read() -> None:
    results = [
        RangeResult("t", 0, first=0, last=99, records=100),
        RangeResult("t", 0, first=100, last=199, records=100),
        RangeResult("t", 1, first=-1, last=-1),
        RangeResult("u", 0, first=-1, last=12, skipped=13),
    ]

    assert commit_points(results) == {("t", 0): 199, ("u", 0): 12}
