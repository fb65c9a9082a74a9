"""What ``lakesink sink``, ``restore`` and ``verify`` show while they run: the lines, their throttle,
the sink's summary however the run ends, and ``--quiet``."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from lakesink.application.bootstrap.sink import summed_up
from lakesink.application.cli import _progress, _to_stderr, build_parser
from lakesink.application.restore.driver import PollProgress
from lakesink.application.restore.listing import ListingStats
from lakesink.application.sink_metrics import EveryMetrics
from lakesink.application.sink_progress import SinkProgress, batch_line
from lakesink.application.verify import VerifyProgress
from lakesink.domain.flush.rolls import RollReason
from lakesink.domain.progress import Throttle, human_size, rate, silent
from lakesink.domain.records import TopicPartition
from lakesink.domain.restore.index import IndexEntry, WorkItem
from lakesink.domain.restore.results import OriginResult


@dataclass(frozen=True)
class _Batch:
    """A committed batch as the metrics see it (the sink run's BatchReport has these fields)."""

    batch_id: int
    records: int
    bytes: int
    files: tuple[str, ...]
    lag: int | None
    duration_ms: float
    skipped: int = 0
    poison: int = 0
    dead_letters: int = 0
    commit_ms: float = 0.0
    requests: int = 0
    committed: Mapping[TopicPartition, int] = field(default_factory=dict)
    lags: Mapping[TopicPartition, int] = field(default_factory=dict)
    records_by_topic: Mapping[str, int] = field(default_factory=dict)
    bytes_by_topic: Mapping[str, int] = field(default_factory=dict)
    rolls: Mapping[RollReason, int] = field(default_factory=dict)


class _Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_batch_line_shows_records_objects_size_lag_and_seconds() -> None:
    batch = _Batch(12, 48_000, 12_700_000, ("a", "b", "c", "d", "e", "f"), 0, 1_420.0)
    assert batch_line(batch) == "batch 12: 48,000 records -> 6 objects (12.1 MiB), lag 0, 1.4 s"
    unknown = _Batch(3, 5, 900, ("a",), None, 80.0)
    assert batch_line(unknown) == "batch 3: 5 records -> 1 objects (900 B), 0.1 s"


def test_the_summary_adds_up_the_batches_and_keeps_the_last_known_lag() -> None:
    lines: list[str] = []
    clock = _Clock()
    progress = SinkProgress(lines.append, clock)
    progress.batch_committed(_Batch(0, 3_000, 2048, ("a", "b"), 40, 500.0))
    progress.batch_committed(_Batch(1, 1_000, 1024, ("c",), None, 500.0))  # the broker did not tell
    progress.batch_failed("StorageError")
    progress.waited()
    clock.now += 2.0
    progress.finish()
    assert lines == [
        "batch 0: 3,000 records -> 2 objects (2.0 KiB), lag 40, 0.5 s",
        "batch 1: 1,000 records -> 1 objects (1.0 KiB), 0.5 s",
        "sink summary: 2 batches, 4,000 records -> 3 objects (3.0 KiB) in 2.0 s (2,000 records/s), lag 40",
    ]


def test_a_run_with_nothing_to_write_still_sums_up() -> None:
    lines: list[str] = []
    SinkProgress(lines.append, _Clock()).finish()
    assert lines == ["sink summary: 0 batches, 0 records -> 0 objects (0 B) in 0.0 s (0 records/s)"]


def test_the_summary_is_shown_however_the_run_ends() -> None:
    lines: list[str] = []
    with pytest.raises(KeyboardInterrupt), summed_up(SinkProgress(lines.append, _Clock())) as progress:
        progress.batch_committed(_Batch(0, 7, 10, ("a",), 0, 10.0))
        raise KeyboardInterrupt  # Ctrl-C; SIGTERM and --once end the block normally
    assert [line.split(":")[0] for line in lines] == ["batch 0", "sink summary"]


def test_every_metrics_reports_to_each() -> None:
    first: list[str] = []
    second: list[str] = []
    both = EveryMetrics(SinkProgress(first.append), SinkProgress(second.append))
    both.batch_committed(_Batch(4, 1, 1, ("a",), 0, 1.0))
    both.batch_failed("Other")
    both.waited()
    assert first == second == ["batch 4: 1 records -> 1 objects (1 B), lag 0, 0.0 s"]


def test_a_throttle_lets_one_line_through_per_interval_and_none_at_once() -> None:
    clock = _Clock()
    throttle = Throttle(clock, every_s=5.0)
    due = []
    for _ in range(12):
        due.append(throttle.due())
        clock.now += 1.0
    assert [index for index, yes in enumerate(due) if yes] == [5, 10]


def test_sizes_and_rates() -> None:
    assert [human_size(n) for n in (1023, 1536, 5 * 1024**3)] == ["1023 B", "1.5 KiB", "5.0 GiB"]
    assert (rate(10_000, 4.0), rate(5, 0.0)) == ("2,500", "0")


def _entry(key: str, size: int) -> IndexEntry:
    return IndexEntry(root=0, key=key, size=size, topic="orders", partition=0, offset=0)


def test_a_restore_poll_shows_its_listing_what_it_found_and_what_it_restored() -> None:
    lines: list[str] = []
    clock = _Clock()
    poll = PollProgress(lines.append, 2, clock)
    for pages in range(1, 8):
        clock.now += 1.0
        poll.listing(ListingStats(list_calls=pages, objects_listed=1000 * pages))
    items = [WorkItem("orders-0", 0, "orders", 0, (_entry("a", 1024), _entry("b", 1024))),
             WorkItem("orders-1", 0, "orders", 1, (_entry("c", 2048),))]
    poll.to_restore(items, 7000)
    for done in (0, 1, 1, 1, 1, 1, 2):
        clock.now += 1.0
        poll.tasks(done, 2)
    results = [OriginResult("orders-0", objects=2, records=600, bytes=2048, skipped_objects=0, last_offset=1,
                            last_key="b", seconds=2.0),
               OriginResult("orders-1", objects=1, records=400, bytes=2048, skipped_objects=0, last_offset=0,
                            last_key="c", seconds=1.0)]
    poll.restored(results, len(items))
    assert lines == [
        "restore poll 2: listing, 5,000 objects so far",
        "restore poll 2: 2 topic-partitions to restore, 3 objects (4.0 KiB) of 7,000 listed",
        "restore poll 2: restoring, 1/2 tasks done, 10 s",
        "restore poll 2: restored 2/2 topic-partitions, 1,000 records from 3 objects (4.0 KiB) in 14.0 s "
        "(71 records/s)",
    ]


def test_verify_shows_the_listing_what_it_found_and_the_objects_it_opens_every_few_seconds() -> None:
    lines: list[str] = []
    clock = _Clock()
    verify = VerifyProgress(lines.append, clock)
    for page in range(1, 4):
        clock.now += 2.0
        verify.listing(1000 * page)
    verify.listed(3000, {})
    for done in range(1, 601):
        clock.now += 0.01
        verify.opening(done, 600)
    assert lines == [
        "verify: listing, 3,000 objects so far",
        "verify: listed 3,000 objects (0 in 0 topic-partitions), 0 to open",
        "verify: opened 500/600 objects",
    ]


@pytest.mark.parametrize("command", [["sink", "--config", "f"], ["restore", "--config", "f"], ["verify", "--config", "f"]])
def test_quiet_before_or_after_the_command_silences_the_progress(command: list[str]) -> None:
    parser = build_parser()
    assert _progress(parser.parse_args(command)) is _to_stderr
    for quiet in (["--quiet", *command], [*command, "--quiet"]):
        assert _progress(parser.parse_args(quiet)) is silent


def test_progress_goes_to_stderr_and_leaves_stdout_alone(capsys: pytest.CaptureFixture[str]) -> None:
    _to_stderr("batch 0: 1 records -> 1 objects (1 B), 0.0 s")
    silent("nothing")
    assert capsys.readouterr() == ("", "batch 0: 1 records -> 1 objects (1 B), 0.0 s\n")


def test_a_closed_stderr_does_not_stop_a_run_over_a_progress_line(monkeypatch: pytest.MonkeyPatch) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # the reader of `lakesink sink 2>&1 | head` has exited
    gone = os.fdopen(writer, "w")
    monkeypatch.setattr(sys, "stderr", gone)
    try:
        _to_stderr("batch 0: 1 records -> 1 objects (1 B), 0.0 s")  # EPIPE: the line is dropped
    finally:
        monkeypatch.undo()
        with contextlib.suppress(BrokenPipeError):  # the line still in its buffer
            gone.close()
