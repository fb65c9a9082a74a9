"""The pure parts of the streaming ladder's table steps (issue 37): commit cadence and table lag.

No servers and no clocks here (tests/unit/bench/test_table_metrics.py): each function takes what
:class:`bench.table_probe.TableProbe` saw of the table's snapshots, the lag samples, or the Connect
worker's log, and returns numbers. Freshness itself is :func:`bench.streaming_metrics.freshness_ms`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from bench.streaming_metrics import percentiles

_COORDINATOR = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] INFO Commit ([0-9a-f-]{36}) "
                          r"(initiated|complete, committed to (\d+) table)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SeenSnapshot:
    """A snapshot the probe saw: when its writer made it, when a poll first showed it (epoch ms), what it added
    and what the table held then."""

    snapshot_id: int
    committed_ms: int
    seen_ms: float
    added_records: int
    total_records: int


def snapshot_cadence(snapshots: Sequence[SeenSnapshot], window_s: float) -> dict[str, object]:
    """How often the table got a snapshot during a ``window_s`` step: snapshots per minute, the seconds
    between consecutive snapshots (their ``timestamp-ms``) and how long after its timestamp a poll first
    showed each one (the catalog commit plus up to one poll interval)."""
    ordered = sorted(snapshots, key=lambda s: s.committed_ms)
    times = np.asarray([s.committed_ms for s in ordered], dtype=float)
    return {
        "snapshots": len(ordered),
        "per_minute": len(ordered) * 60 / window_s if window_s > 0 else None,
        "interval_s": percentiles(np.diff(times) / 1000),
        "seen_after_commit_ms": percentiles([s.seen_ms - s.committed_ms for s in ordered]),
        "records": sum(s.added_records for s in ordered),
    }


def table_lag(sampled_at_ms: Sequence[float], high: Sequence[int], snapshots: Sequence[SeenSnapshot],
              rows_before: int) -> list[int]:
    """Records produced but not yet readable through the table, at each sample: the high watermarks' sum
    minus the rows of the newest snapshot a poll had shown by then (``rows_before`` before the first).

    The topic's offsets start at 0 and nothing else writes the table, so its rows are the sink's
    committed positions summed, whatever the sink itself reports as committed.
    """
    seen = sorted(snapshots, key=lambda s: s.seen_ms)
    seen_at = [s.seen_ms for s in seen]
    lags = []
    for at, produced in zip(sampled_at_ms, high, strict=True):
        newest = bisect_right(seen_at, at)
        rows = seen[newest - 1].total_records if newest else rows_before
        lags.append(max(0, produced - rows))
    return lags


def coordinator_commits(log: str, start: float, end: float) -> dict[str, object]:
    """The Iceberg connector's commits that completed between ``start`` and ``end`` (epoch seconds; the
    log's times are local), from its coordinator's ``Commit <id> initiated`` and ``Commit <id> complete,
    committed to N table(s)`` lines: how many, and how long each took (the start-commit event → every
    worker's files in → the table commit), in ms. Commits that committed to no table are left out."""
    initiated: dict[str, float] = {}
    durations = []
    for match in _COORDINATOR.finditer(log):
        at = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        commit, tables = match.group(2), match.group(4)
        if match.group(3) == "initiated":
            initiated[commit] = at
        elif commit in initiated and int(tables) and start <= at <= end:
            durations.append((at - initiated[commit]) * 1000)
    return {"commits": len(durations), "duration_ms": percentiles(durations)}
