"""Pure rules of the delivery: where a batch resumes, how it is cut into transactions, who writes progress."""

from __future__ import annotations

import dataclasses

import pytest

from lakesink.domain.restore.batch import MessageBatch, topic_runs
from lakesink.domain.restore.chunking import resume_at, transaction_slices
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.progress import already_restored, progress_partition, transactional_id


def test_a_batch_resumes_after_the_records_already_delivered_of_its_object() -> None:
    assert resume_at(skip=0, read=0, size=10) == 0
    assert resume_at(skip=7, read=0, size=10) == 7
    assert resume_at(skip=7, read=4, size=10) == 3
    assert resume_at(skip=25, read=10, size=10) == 10  # the whole batch was delivered
    assert resume_at(skip=3, read=10, size=10) == 0  # an earlier batch held the resume point


def test_the_first_slice_fills_the_open_transaction_and_later_ones_whole_transactions() -> None:
    assert transaction_slices(0, 10, in_transaction=0, limit=4) == [(0, 4), (4, 8), (8, 10)]
    assert transaction_slices(0, 10, in_transaction=3, limit=4) == [(0, 1), (1, 5), (5, 9), (9, 10)]
    assert transaction_slices(2, 5, in_transaction=0, limit=100) == [(2, 5)]
    assert transaction_slices(5, 5, in_transaction=0, limit=4) == []


def test_a_full_open_transaction_is_refused_rather_than_overfilled() -> None:
    with pytest.raises(ValueError, match="no room"):
        transaction_slices(0, 10, in_transaction=4, limit=4)


def test_an_entry_at_or_before_the_last_restored_position_is_not_sent_again() -> None:
    def entry(offset: int) -> IndexEntry:
        return IndexEntry(0, f"t/0/{offset:012d}_0_0.text", 10, "t", 0, offset)

    done = entry(20).position
    assert already_restored(done, entry(10)) and already_restored(done, entry(20))
    assert not already_restored(done, entry(30))
    assert not already_restored(None, entry(10))


def test_each_origin_has_its_own_stable_transactional_id_and_progress_partition() -> None:
    origins = [f'[0, "src", {p}, ""]' for p in range(50)]
    ids = [transactional_id("orders", origin) for origin in origins]
    assert len(set(ids)) == len(ids)
    assert ids == [transactional_id("orders", origin) for origin in origins]
    assert all(i.startswith("lakesink-restore-orders-") for i in ids)
    assert transactional_id("other", origins[0]) != ids[0]
    assert {progress_partition(origin, 4) for origin in origins} == {0, 1, 2, 3}


def test_a_batch_is_cut_where_the_envelopes_topic_changes() -> None:
    batch = MessageBatch.of_values([b"v"] * 6, key=None, partition=0)
    assert list(topic_runs(batch, 1, 5)) == [(1, 5, None)]
    named = dataclasses.replace(batch, topics=["a", "a", "b", None, None, "a"])
    assert list(topic_runs(named, 0, 6)) == [(0, 2, "a"), (2, 3, "b"), (3, 5, None), (5, 6, "a")]
    assert list(topic_runs(named, 1, 2)) == [(1, 2, "a")]
