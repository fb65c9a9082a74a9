"""The writer state machine (NoWriter / Writing / Uploading), should_skip and the safe offset."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.domain.flush import FileStats
from lakesink.domain.writer_state import (
    Buffer,
    Close,
    CommitState,
    CompleteStagingFile,
    DeleteStagingFile,
    NoWriter,
    OpenStagingFile,
    Seal,
    UploadFailed,
    Uploading,
    UploadStagingFile,
    UploadSucceeded,
    Write,
    WriterState,
    WriterStateError,
    Writing,
    decide,
    file_stats,
    new_writer,
    safe_offset,
    should_skip,
)


def writing(first: int = 10, last: int = 12, committed: int | None = 9) -> Writing:
    return Writing(
        CommitState(committed, created_ms=0, record_count=3, bytes_written=30), Buffer(first, last, 1, 3)
    )


def uploading(first: int = 10, last: int = 12, committed: int | None = 9) -> Uploading:
    return Uploading(CommitState(committed, created_ms=0, last_flush_ms=5), Buffer(first, last, 1, 3))


def test_first_write_opens_a_staging_file_and_starts_the_buffer() -> None:
    state, actions = decide(new_writer(committed_offset=4, created_ms=100), Write(5, 1_000, bytes_after=40))
    assert actions == (OpenStagingFile(),)
    assert state == Writing(
        CommitState(committed_offset=4, created_ms=100, record_count=1, bytes_written=40),
        Buffer(first_buffered_offset=5, uncommitted_offset=5, earliest_ts=1_000, latest_ts=1_000),
    )


def test_further_writes_count_records_and_track_offsets_and_timestamps() -> None:
    state: WriterState = new_writer(committed_offset=None, created_ms=0)
    for offset, ts, size in [(0, 1_000, 10), (1, 900, 20), (2, 1_100, 35)]:
        state, actions = decide(state, Write(offset, ts, bytes_after=size))
    assert actions == ()
    assert isinstance(state, Writing)
    assert state.buffer == Buffer(0, 2, 900, 1_100)
    assert (state.commit.record_count, state.commit.bytes_written) == (3, 35)


def test_a_record_without_timestamp_contributes_minus_one() -> None:
    state, _ = decide(new_writer(committed_offset=None, created_ms=0), Write(0, 1_000, 1))
    state, _ = decide(state, Write(1, None, 2))
    assert isinstance(state, Writing)
    assert (state.buffer.earliest_ts, state.buffer.latest_ts) == (-1, 1_000)


def test_offsets_must_increase_within_a_file() -> None:
    with pytest.raises(WriterStateError, match="offset 12"):
        decide(writing(last=12), Write(12, 0, 1))


def test_seal_moves_writing_to_uploading_and_resets_the_flush_counters() -> None:
    before = writing()
    state, actions = decide(before, Seal(now_ms=7_000))
    assert state == Uploading(
        CommitState(committed_offset=9, created_ms=0, last_flush_ms=7_000, record_count=0, bytes_written=0),
        before.buffer,
    )
    assert actions == (CompleteStagingFile(), UploadStagingFile(before.buffer))


def test_seal_while_uploading_retries_the_upload_without_changing_state() -> None:
    before = uploading()
    assert decide(before, Seal(now_ms=99)) == (before, (UploadStagingFile(before.buffer),))


def test_seal_without_an_open_file_is_invalid() -> None:
    with pytest.raises(WriterStateError, match="NoWriter"):
        decide(new_writer(committed_offset=None, created_ms=0), Seal(1))


def test_write_while_uploading_is_rejected_naming_the_state() -> None:
    with pytest.raises(WriterStateError, match="Write is not allowed in the Uploading state"):
        decide(uploading(), Write(13, 0, 1))


def test_upload_success_commits_the_offset_and_deletes_the_staging_file() -> None:
    state, actions = decide(uploading(), UploadSucceeded(12))
    assert state == NoWriter(CommitState(committed_offset=12, created_ms=0, last_flush_ms=5))
    assert actions == (DeleteStagingFile(),)


@pytest.mark.parametrize("state", [writing(), new_writer(committed_offset=None, created_ms=0)])
def test_upload_events_outside_uploading_are_invalid(state: WriterState) -> None:
    for event in (UploadSucceeded(1), UploadFailed()):
        with pytest.raises(WriterStateError, match=type(state).__name__):
            decide(state, event)


def test_upload_failure_keeps_the_sealed_file_for_a_retry() -> None:
    before = uploading()
    assert decide(before, UploadFailed()) == (before, ())


@pytest.mark.parametrize("state", [writing(), uploading()])
def test_close_discards_the_buffered_file_and_keeps_the_committed_offset(state: WriterState) -> None:
    after, actions = decide(state, Close())
    assert actions == (DeleteStagingFile(),)
    assert isinstance(after, NoWriter)
    assert after.commit.committed_offset == 9
    assert (after.commit.record_count, after.commit.bytes_written) == (0, 0)


def test_close_without_a_file_does_nothing() -> None:
    state = new_writer(committed_offset=3, created_ms=0)
    assert decide(state, Close()) == (state, ())


def test_file_stats_describe_the_open_file_only() -> None:
    assert file_stats(writing()) == FileStats(3, 30, created_ms=0, last_flush_ms=None)
    assert file_stats(uploading()) is None
    assert file_stats(new_writer(committed_offset=None, created_ms=0)) is None


def test_should_skip_never_skips_without_indexing() -> None:
    assert not should_skip(new_writer(committed_offset=100, created_ms=0), 5, indexing=False)


def test_should_skip_drops_the_record_at_the_committed_offset_after_a_seek() -> None:
    state = new_writer(committed_offset=1, created_ms=0)
    assert should_skip(state, 1, indexing=True)
    assert should_skip(state, 0, indexing=True)
    assert not should_skip(state, 2, indexing=True)


def test_should_skip_with_nothing_committed_keeps_everything() -> None:
    assert not should_skip(new_writer(committed_offset=None, created_ms=0), 0, indexing=True)


@pytest.mark.parametrize("state", [writing(committed=None), writing(committed=3), uploading(committed=None)])
def test_should_skip_drops_records_already_buffered(state: WriterState) -> None:
    assert should_skip(state, 12, indexing=True)
    assert not should_skip(state, 13, indexing=True)


def test_safe_offset_is_unknown_without_writers_or_committed_offsets() -> None:
    assert safe_offset([], high_watermark=None, seeked_offset=5) is None
    assert safe_offset([writing(committed=None)], high_watermark=None, seeked_offset=None) is None


def test_safe_offset_is_the_smallest_first_buffered_offset() -> None:
    writers = [
        writing(first=10, committed=9),
        uploading(first=7, committed=6),
        new_writer(committed_offset=20, created_ms=0),
    ]
    assert safe_offset(writers, high_watermark=None, seeked_offset=None) == 7


def test_safe_offset_is_one_past_the_highest_committed_when_nothing_is_buffered() -> None:
    writers = [new_writer(committed_offset=4, created_ms=0), new_writer(committed_offset=None, created_ms=0)]
    assert safe_offset(writers, high_watermark=None, seeked_offset=None) == 5


def test_safe_offset_never_goes_below_the_high_watermark_or_the_master_seek() -> None:
    writers = [new_writer(committed_offset=4, created_ms=0)]
    assert safe_offset(writers, high_watermark=9, seeked_offset=None) == 9
    assert safe_offset(writers, high_watermark=None, seeked_offset=7) == 8
    assert safe_offset(writers, high_watermark=3, seeked_offset=100) == 5


# --- property: a partition's safe offset is monotonic and never passes a buffered record ------

operations = st.lists(
    st.tuples(st.sampled_from(["write", "seal", "ok", "fail", "evict", "precommit"]), st.integers(0, 3)),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(operations, st.one_of(st.none(), st.integers(0, 50)))
def test_safe_offset_never_decreases_and_never_passes_a_buffered_offset(
    ops: list[tuple[str, int]], master_seek: int | None
) -> None:
    writers: dict[int, WriterState] = {}
    next_offset = 0 if master_seek is None else master_seek + 1
    hwm: int | None = None
    returned: list[int] = []
    for op, writer_id in ops:
        state = writers.get(writer_id) or new_writer(committed_offset=master_seek, created_ms=0)
        if op == "write" and not isinstance(state, Uploading):
            state, _ = decide(state, Write(next_offset, next_offset, 1))
            next_offset += 1
        elif op == "seal" and not isinstance(state, NoWriter):
            state, _ = decide(state, Seal(0))
        elif op == "ok" and isinstance(state, Uploading):
            state, _ = decide(state, UploadSucceeded(state.buffer.uncommitted_offset))
        elif op == "fail" and isinstance(state, Uploading):
            state, _ = decide(state, UploadFailed())
        elif op == "evict" and isinstance(state, NoWriter):
            writers.pop(writer_id, None)
            continue
        elif op == "precommit":
            offset = safe_offset(writers.values(), high_watermark=hwm, seeked_offset=master_seek)
            if offset is not None:
                buffered = [
                    s.buffer.first_buffered_offset for s in writers.values() if not isinstance(s, NoWriter)
                ]
                assert all(offset <= first for first in buffered)
                assert offset <= next_offset
                assert not returned or offset >= returned[-1]
                returned.append(offset)
                hwm = offset
        writers[writer_id] = state
