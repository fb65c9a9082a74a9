"""The pure parts of the streaming scenario: the ladder, the bounded-lag rule, freshness figures.

No servers and no clocks here (tests/unit/bench/test_streaming_metrics.py): every function takes
the samples the run collected and returns numbers.

**Sustained** (:func:`judge_step`), for a step whose producer achieved ``rate`` records/s and a
sink whose ``flush.interval`` is F seconds, with the lag sampled every second during the step
(records produced, i.e. the high watermarks, minus the sink's committed positions):

1. the lag at the end of the step (the last sample before the producer stopped) is below
   ``2 × F × rate`` (two flush intervals' worth of records), and
2. the lag does not grow over the last third of the step: its highest sample in the last third
   exceeds its highest sample in the middle third by at most ``F × rate / 4``. Peaks are compared
   because a sink that commits every F seconds draws a sawtooth (0 after a commit, F × rate just
   before the next): a slope fitted to a sawtooth depends on where the teeth fall, its peaks do not.

A sink that keeps up draws teeth of equal height; one that falls 10 % behind over a 45 s step
gains 1.5 × rate records of lag in the last 15 s and fails rule 2. The sink's **sustained
throughput** is the achieved rate of the highest step it sustains (:func:`sustained_rate`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

MAX = None
"""The ladder's "as fast as the producer can" step."""
_STAMP = re.compile(rb'"created_at":\s*(\d+)')
_MULTIPLIERS = {"k": 1_000, "m": 1_000_000}
_BATCH = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) INFO lakesink\.application\.sink_run: Batch \d+: "
                    r"(\d+) records, (\d+) bytes, (\d+) files.* commit ([\d.]+) ms", re.MULTILINE)
END_LAG_INTERVALS = 2.0
GROWTH_INTERVALS = 0.25


def parse_ladder(text: str) -> tuple[int | None, ...]:
    """``"20k,50k,100000,max"`` → ``(20000, 50000, 100000, None)``; rates rise, ``max`` only last.

    Raises ValueError naming the bad item.
    """
    steps: list[int | None] = []
    for raw in (item.strip().lower() for item in text.split(",")):
        if not raw:
            continue
        if raw == "max":
            steps.append(MAX)
            continue
        if steps and steps[-1] is MAX:
            raise ValueError(f"'max' must be the last step of the ladder, not before {raw!r}")
        scale = _MULTIPLIERS.get(raw[-1], 1)
        number = raw[:-1] if raw[-1] in _MULTIPLIERS else raw
        try:
            rate = round(float(number) * scale)
        except ValueError:
            raise ValueError(f"ladder step {raw!r} is not a rate (e.g. 20000, 50k, 1.5m or max)") from None
        if rate <= 0:
            raise ValueError(f"ladder step {raw!r} must be above 0 records/s")
        if steps and steps[-1] is not MAX and rate <= steps[-1]:
            raise ValueError(f"ladder steps must rise: {raw!r} after {steps[-1]:,}")
        steps.append(rate)
    if not steps:
        raise ValueError("the ladder is empty")
    return tuple(steps)


def rate_label(rate: int | None) -> str:
    """``20000`` → ``20k``, ``1500000`` → ``1.5M``, None → ``max``."""
    if rate is MAX:
        return "max"
    if rate >= 1_000_000:
        return f"{rate / 1e6:g}M"
    return f"{rate / 1e3:g}k" if rate >= 1_000 else str(rate)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` over ``xs`` (0 with fewer than two distinct xs)."""
    if len(xs) < 2:
        return 0.0
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    spread = float(((x - x.mean()) ** 2).sum())
    return float(((x - x.mean()) * (y - y.mean())).sum() / spread) if spread else 0.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`judge_step` decided and the figures it decided on (records)."""

    sustained: bool
    end_lag: int
    bound: float
    growth: int
    allowed_growth: float
    why: str


def judge_step(times: Sequence[float], lags: Sequence[int], *, start: float, end: float, rate: float,
               flush_interval_s: float) -> Verdict:
    """The bounded-lag rule of the module docstring over the samples taken in ``[start, end]``."""
    inside = [(t, lag) for t, lag in zip(times, lags, strict=True) if start <= t <= end]
    bound = END_LAG_INTERVALS * flush_interval_s * rate
    allowed = GROWTH_INTERVALS * flush_interval_s * rate
    if len(inside) < 3:
        return Verdict(False, 0, bound, 0, allowed, f"only {len(inside)} lag samples in the step")
    third = (end - start) / 3
    middle = [lag for t, lag in inside if start + third <= t < start + 2 * third]
    last = [lag for t, lag in inside if t >= start + 2 * third]
    end_lag = inside[-1][1]
    growth = (max(last) - max(middle)) if middle and last else 0
    if end_lag >= bound:
        why = f"lag at the end {end_lag:,} ≥ {bound:,.0f} (2 × flush.interval × rate)"
    elif growth > allowed:
        why = f"lag grew by {growth:,} over the last third (> {allowed:,.0f}, flush.interval × rate / 4)"
    else:
        why = "bounded lag"
    return Verdict(why == "bounded lag", end_lag, bound, growth, allowed, why)


def sustained_rate(steps: Sequence[dict[str, object]]) -> float | None:
    """The achieved rate of the highest sustained step (steps as the run records them), or None."""
    rates = [float(step["produced_rate"]) for step in steps if step.get("sustained")]  # type: ignore[arg-type]
    return max(rates) if rates else None


# --- freshness -------------------------------------------------------------------------------


def json_stamps(data: bytes) -> list[int]:
    """Every ``created_at`` (the produce time, ms) in JSON text, in order."""
    return [int(match) for match in _STAMP.findall(data)]


def estimated_lines(size: int, head: bytes) -> int:
    """Records in a JSON-lines object of ``size`` bytes, from the mean line length of its first bytes."""
    complete = head[: head.rfind(b"\n") + 1]
    lines = complete.count(b"\n")
    if not lines:
        return 1
    return max(1, round(size / (len(complete) / lines)))


def interpolated_stamps(first_ms: int, last_ms: int, records: int) -> np.ndarray:
    """Produce times of ``records`` records written at an even rate from ``first_ms`` to ``last_ms``.

    An object holds consecutive records of one partition, produced at the step's fixed rate, so
    their produce times are evenly spread between the first and the last record's.
    """
    return np.linspace(first_ms, last_ms, max(1, records))


def freshness_ms(seen_ms: float, produced_ms: np.ndarray | Sequence[float]) -> np.ndarray:
    """Produce time → object seen in the store, per record (ms)."""
    return seen_ms - np.asarray(produced_ms, dtype=float)


def percentiles(values: np.ndarray | Sequence[float]) -> dict[str, float | None]:
    """p50, p99 and the maximum of ``values`` (None for each when there are none)."""
    array = np.asarray(values, dtype=float)
    if not array.size:
        return {"p50": None, "p99": None, "max": None}
    p50, p99 = np.percentile(array, [50, 99])
    return {"p50": float(p50), "p99": float(p99), "max": float(array.max())}


# --- lakesink's own batch lines ---------------------------------------------------------------------


def sink_batches(log: str, start: float, end: float) -> dict[str, float | int | None]:
    """lakesink's committed batches logged between ``start`` and ``end`` (epoch seconds; the log's
    times are local): how many, records, files and seconds apart on average, and commit latency.

    From the sink's ``Batch N: … records, … bytes, … files, …, commit … ms`` lines
    (application/sink_run.py); batches without records are left out.
    """
    batches = []
    for match in _BATCH.finditer(log):
        at = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        records, _, files, commit_ms = (float(group) for group in match.groups()[1:])
        if start <= at <= end and records:
            batches.append((at, records, files, commit_ms))
    if not batches:
        return {"batches": 0, "records_per_batch": None, "files_per_batch": None, "seconds_between": None,
                "commit_ms": None}
    count = len(batches)
    return {
        "batches": count,
        "records_per_batch": sum(b[1] for b in batches) / count,
        "files_per_batch": sum(b[2] for b in batches) / count,
        "seconds_between": (batches[-1][0] - batches[0][0]) / (count - 1) if count > 1 else None,
        "commit_ms": sum(b[3] for b in batches) / count,
    }


# --- py-spy (``--profile``) -----------------------------------------------------------------------

_RAW_RECORD = re.compile(r"(.*?) (\d+)$", re.MULTILINE | re.DOTALL)
_LINE_NUMBER = re.compile(r":\d+\)$")


def _process_role(frame: str) -> str:
    if "pyspark.daemon" in frame or "pyspark.worker" in frame or "worker_main" in frame:
        return "python_workers"
    return "driver" if "lakesink.application.cli" in frame else "other"


WAITING = frozenset({"manager", "readinto", "read_int", "poll", "select", "accept", "sleep", "wait", "recv_into"})
"""Leaf functions that wait (PySpark's daemon loop, a socket read from the JVM, a poll): py-spy
counts a thread blocked there as active, so they are summed apart from the work."""


def profile_summary(raw: str, top: int = 12) -> dict[str, object]:
    """py-spy's ``--format raw`` output (``process …;frame;…;leaf count`` records) summed up: the
    share of samples per process role, the share spent in :data:`WAITING` leaves, and the other
    leaf functions (line numbers dropped) most often on top.

    py-spy sees Python only: the JVM's time is not in it (it is in the run's CPU split by role).
    """
    roles: dict[str, int] = {}
    leaves: dict[str, int] = {}
    total = waiting = 0
    for match in _RAW_RECORD.finditer(raw):
        frames, count = match.group(1).strip().split(";"), int(match.group(2))
        processes = [frame for frame in frames if frame.startswith("process ")]
        role = _process_role(processes[-1]) if processes else "other"
        leaf = _LINE_NUMBER.sub(")", frames[-1]) if frames and not frames[-1].startswith("process ") else "?"
        roles[role] = roles.get(role, 0) + count
        total += count
        if leaf.split(" ", 1)[0].rsplit(".", 1)[-1] in WAITING:
            waiting += count
            continue
        leaves[f"{role}: {leaf}"] = leaves.get(f"{role}: {leaf}", 0) + count
    ranked = sorted(leaves.items(), key=lambda item: -item[1])[:top]
    if not total:
        return {"samples": 0, "by_role": {}, "waiting": 0.0, "top_leaves": []}
    return {"samples": total, "by_role": {role: round(count / total, 3) for role, count in sorted(roles.items())},
            "waiting": round(waiting / total, 3), "top_leaves": [(name, round(count / total, 3)) for name, count in ranked]}
