"""The life of one writer (one topic-partition + partition-value combination) as pure transitions.

Lenses keeps this state inside a mutable ``Writer``; lakesink models it as frozen values and a
``decide(state, event) -> (new_state, actions)`` function, so every transition is unit-testable
and the executor (which owns the staging file and the store) only carries out the actions.

States (Lenses §3.2): ``NoWriter`` (nothing buffered), ``Writing`` (a staging file is open),
``Uploading`` (the file is sealed and its commit chain has not succeeded yet). The offsets kept
here feed the two decisions the exactly-once protocol needs: :func:`should_skip` (drop a record
already durable) and :func:`safe_offset` (the Kafka offset that may be committed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from lakesink.domain.errors import LakesinkError
from lakesink.domain.flush import FileStats

#: Timestamp recorded for a record without one (Lenses uses -1, which then shows in file names).
NO_TIMESTAMP = -1


class WriterStateError(LakesinkError, RuntimeError):
    """An event arrived that the writer's current state does not allow (a bug in the caller)."""


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommitState:
    """What survives across files: the durable offset and the flush clock.

    ``committed_offset`` is the last offset durably written by this writer (or the offset it
    was seeded with at start); ``record_count``/``bytes_written`` describe the current file.
    """

    committed_offset: int | None
    created_ms: int
    last_flush_ms: int | None = None
    record_count: int = 0
    bytes_written: int = 0


@dataclass(frozen=True, slots=True)
class Buffer:
    """The offsets and timestamps of the records in the current (open or sealed) file."""

    first_buffered_offset: int
    uncommitted_offset: int
    earliest_ts: int
    latest_ts: int


@dataclass(frozen=True, slots=True)
class NoWriter:
    """Nothing buffered."""

    commit: CommitState


@dataclass(frozen=True, slots=True)
class Writing:
    """A staging file is open and receiving records."""

    commit: CommitState
    buffer: Buffer


@dataclass(frozen=True, slots=True)
class Uploading:
    """The staging file is sealed; its commit chain has not succeeded yet."""

    commit: CommitState
    buffer: Buffer


WriterState = NoWriter | Writing | Uploading


def new_writer(*, committed_offset: int | None, created_ms: int) -> NoWriter:
    """A fresh writer seeded with the offset read from its lock (granular, else master)."""
    return NoWriter(CommitState(committed_offset=committed_offset, created_ms=created_ms))


# --- events and actions ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Write:
    """A record was appended; ``bytes_after`` is the format writer's position afterwards."""

    offset: int
    timestamp_ms: int | None
    bytes_after: int


@dataclass(frozen=True, slots=True)
class Seal:
    """The flush policy fired: close the file and start (or retry) its commit chain."""

    now_ms: int


@dataclass(frozen=True, slots=True)
class UploadSucceeded:
    """The commit chain finished; ``offset`` is the offset now durable (the lock's committed offset)."""

    offset: int


@dataclass(frozen=True, slots=True)
class UploadFailed:
    """The commit chain failed in a retryable way; the sealed file is kept for the next attempt."""


@dataclass(frozen=True, slots=True)
class Close:
    """Partition revoked or task stopping: buffered records are discarded (Kafka re-delivers them)."""


WriterEvent = Write | Seal | UploadSucceeded | UploadFailed | Close


@dataclass(frozen=True, slots=True)
class OpenStagingFile:
    """Create the local staging file and its format writer before the first record is written."""


@dataclass(frozen=True, slots=True)
class CompleteStagingFile:
    """Finish the format writer (footer, last block) so the file can be uploaded."""


@dataclass(frozen=True, slots=True)
class UploadStagingFile:
    """Run the commit chain for the sealed file holding ``buffer``'s records."""

    buffer: Buffer


@dataclass(frozen=True, slots=True)
class DeleteStagingFile:
    """Remove the local staging file (after a commit, or to discard it); failures are only logged."""


WriterAction = OpenStagingFile | CompleteStagingFile | UploadStagingFile | DeleteStagingFile


# --- transitions ------------------------------------------------------------------------------


def decide(state: WriterState, event: WriterEvent) -> tuple[WriterState, tuple[WriterAction, ...]]:
    """The next state and the actions to carry out, for one event.

    Raises:
        WriterStateError: the event is not allowed in ``state`` (e.g. a write while uploading).
    """
    match event:
        case Write():
            return _write(state, event)
        case Seal():
            return _seal(state, event)
        case UploadSucceeded(offset=offset):
            if not isinstance(state, Uploading):
                raise _invalid(state, event)
            committed = replace(state.commit, committed_offset=offset)
            return NoWriter(committed), (DeleteStagingFile(),)
        case UploadFailed():
            if not isinstance(state, Uploading):
                raise _invalid(state, event)
            return state, ()
        case Close():
            reset = replace(state.commit, record_count=0, bytes_written=0)
            actions: tuple[WriterAction, ...] = () if isinstance(state, NoWriter) else (DeleteStagingFile(),)
            return NoWriter(reset), actions
    raise WriterStateError(f"Unknown writer event {event!r}.")


def _write(state: WriterState, event: Write) -> tuple[WriterState, tuple[WriterAction, ...]]:
    ts = NO_TIMESTAMP if event.timestamp_ms is None else event.timestamp_ms
    commit = replace(
        state.commit, record_count=state.commit.record_count + 1, bytes_written=event.bytes_after
    )
    if isinstance(state, NoWriter):
        return Writing(commit, Buffer(event.offset, event.offset, ts, ts)), (OpenStagingFile(),)
    if isinstance(state, Uploading):
        raise _invalid(state, event)
    if event.offset <= state.buffer.uncommitted_offset:
        raise WriterStateError(
            f"Write of offset {event.offset} after offset {state.buffer.uncommitted_offset}: "
            "offsets must increase within a file."
        )
    buffer = Buffer(
        first_buffered_offset=state.buffer.first_buffered_offset,
        uncommitted_offset=event.offset,
        earliest_ts=min(state.buffer.earliest_ts, ts),
        latest_ts=max(state.buffer.latest_ts, ts),
    )
    return Writing(commit, buffer), ()


def _seal(state: WriterState, event: Seal) -> tuple[WriterState, tuple[WriterAction, ...]]:
    if isinstance(state, Writing):
        commit = replace(state.commit, record_count=0, bytes_written=0, last_flush_ms=event.now_ms)
        return Uploading(commit, state.buffer), (CompleteStagingFile(), UploadStagingFile(state.buffer))
    if isinstance(state, Uploading):
        # Lenses' recommitPending: a file stuck in Uploading is simply committed again.
        return state, (UploadStagingFile(state.buffer),)
    raise _invalid(state, event)


def _invalid(state: WriterState, event: WriterEvent) -> WriterStateError:
    return WriterStateError(
        f"{type(event).__name__} is not allowed in the {type(state).__name__} state ({event})."
    )


# --- decisions over states ----------------------------------------------------------------


def file_stats(state: WriterState) -> FileStats | None:
    """What the flush policy evaluates, for a writer with an open file; None otherwise."""
    if not isinstance(state, Writing):
        return None
    c = state.commit
    return FileStats(c.record_count, c.bytes_written, c.created_ms, c.last_flush_ms)


def should_skip(state: WriterState, offset: int, *, indexing: bool) -> bool:
    """Whether a record at ``offset`` is already durable (or buffered) and must be dropped.

    After a restart lakesink seeks *to* the committed offset, so the first record re-delivered
    is one it already wrote; this check drops it (Lenses' one-record overlap, §3.3). Without
    indexing (at-least-once) nothing is ever skipped.
    """
    if not indexing:
        return False
    latest = state.commit.committed_offset
    if not isinstance(state, NoWriter):
        uncommitted = state.buffer.uncommitted_offset
        latest = uncommitted if latest is None else max(latest, uncommitted)
    return latest is not None and latest >= offset


def safe_offset(
    writers: Iterable[WriterState], *, high_watermark: int | None, seeked_offset: int | None
) -> int | None:
    """The Kafka offset (next to read) that may be committed for one topic-partition, or None.

    Lenses' preCommit formula (§4.6): the smallest first-buffered offset of the partition's
    writers (nothing buffered may be skipped), else one past the largest committed offset;
    floored at ``high_watermark`` (the last value returned, so it never goes back when an idle
    writer is evicted) or, before the first call, at ``seeked_offset + 1`` from the master lock.
    None when there are no writers or none has a committed offset (nothing is known yet).
    The caller stores the result as the new high-watermark once it is used.
    """
    states = list(writers)
    committed = [s.commit.committed_offset for s in states if s.commit.committed_offset is not None]
    if not committed:
        return None
    buffered = [s.buffer.first_buffered_offset for s in states if not isinstance(s, NoWriter)]
    calculated = min(buffered) if buffered else max(committed) + 1
    if high_watermark is not None:
        floor = high_watermark
    else:
        floor = 0 if seeked_offset is None else seeked_offset + 1
    return max(calculated, floor)
