"""The arithmetic of ``python -m bench.scale``: each measured cost fitted to a + b·P, and S3 as a model
(request rate per prefix, latency, prices) to project the fit past this machine. Pure: no I/O, no clock.
Requests are keyed ``"<caller>/<kind>/<area>"`` (bench/scale.py's counting store)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lakesink.application.sink_index import PARTITION_THREADS

WRITE_LIMIT = 3_500
"""PUT/COPY/POST/DELETE per second per partitioned prefix (AWS, "Best practices design patterns:
optimizing Amazon S3 performance"); DeleteObjects is a POST."""
READ_LIMIT = 5_500
"""GET/HEAD per second per partitioned prefix (same page); a LIST is a GET on the bucket."""
LATENCY_S = 0.025
"""Assumed p50 of one small-object request within a region (20-30 ms): every projected time is linear in it."""
CLASS_A = 0.005 / 1000
"""S3 Standard, us-east-1: PUT, COPY, POST, LIST per request (DeleteObjects priced as a POST: conservative)."""
CLASS_B = 0.0004 / 1000
"""S3 Standard, us-east-1: GET, HEAD per request. A single DELETE is free."""
TB = 10**12

WRITES = ("put", "copy", "delete", "delete_many")
PRICES = {"put": CLASS_A, "copy": CLASS_A, "list": CLASS_A, "delete_many": CLASS_A,
          "get": CLASS_B, "head": CLASS_B, "delete": 0.0}

LENSES_PER_OBJECT = {
    "task/put/temp": 1.0,     # the staging file to .temp-upload/Topic(t)/p/<uuid><final key>
    "task/put/locks": 4.0,    # granular lock: pending [copy, delete], pending [delete], committed; master at preCommit
    "task/head/temp": 1.0,    # the copy's If-Match check
    "task/copy/data": 1.0,    # temporary → final key (a COPY is a request on its destination)
    "task/delete/temp": 2.0,  # inside the move, then the chain's delete step
}
"""Lenses' requests per flushed file, default layout (one granular lock per partition, one file per
partition per flush): stream-reactor's ``Writer.commit`` chain and ``preCommit`` (docs/commit-model.md)."""


@dataclass(frozen=True)
class Fit:
    """``a + b·P``, least squares, with its r²."""

    a: float
    b: float
    r2: float

    def at(self, partitions: float) -> float:
        return self.a + self.b * partitions

    def grows(self, partitions: float) -> bool:
        """Whether the per-partition part outweighs the fixed part at ``partitions``: a scale limit."""
        return self.b > 0 and self.b * partitions > abs(self.a)


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Fit:
    """The least-squares line through the points (r² is 1 when every y is the same)."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    b = sxy / sxx
    a = mean_y - b * mean_x
    total = sum((y - mean_y) ** 2 for y in ys)
    residual = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return Fit(a, b, 1.0 if total == 0 else 1 - residual / total)


def per_area(requests: Mapping[str, float], area: str, kinds: Sequence[str]) -> float:
    """Requests of ``kinds`` (any caller) into ``area``."""
    return sum(count for key, count in requests.items() if key.split("/")[1] in kinds and key.split("/")[2] == area)


def rate_per_second(per_partition_flush: float, partitions: int, interval_s: float) -> float:
    """Requests per second into one prefix when each of ``partitions`` flushes every ``interval_s``."""
    return per_partition_flush * partitions / interval_s


def saturating_partitions(per_partition_flush: float, interval_s: float, limit: float = WRITE_LIMIT) -> float:
    """The partitions at which a prefix taking ``per_partition_flush`` requests per partition per flush
    reaches ``limit`` per second (infinite when it takes none)."""
    return math.inf if per_partition_flush == 0 else limit * interval_s / per_partition_flush


def driver_commit_seconds(requests: float, writes_per_prefix: float, cpu_s: float, threads: int,
                          latency_s: float = LATENCY_S) -> float:
    """One batch's commit on the driver: its CPU plus ``requests`` round trips ``threads`` at a time,
    and never faster than the busiest prefix takes ``writes_per_prefix`` writes."""
    return max(cpu_s + math.ceil(requests / threads) * latency_s, writes_per_prefix / WRITE_LIMIT)


def partitions_within(budget_s: float, requests_per_partition: float, cpu_per_partition_s: float,
                      threads: int = 1, latency_s: float = LATENCY_S) -> float:
    """The most partitions a commit finishes in ``budget_s``: a round trip per request, ``threads``
    partitions at a time, the driver's CPU one partition after the other."""
    return budget_s / (requests_per_partition * latency_s / threads + cpu_per_partition_s)


def threads_to_fit(requests: float, writes_per_prefix: float, cpu_s: float, budget_s: float,
                   latency_s: float = LATENCY_S) -> int | None:
    """The fewest commit threads that finish within ``budget_s``; None when no number does (the CPU or
    the prefix's rate alone exceed it)."""
    if cpu_s >= budget_s or writes_per_prefix / WRITE_LIMIT > budget_s:
        return None
    return max(1, math.ceil(requests * latency_s / (budget_s - cpu_s)))


def executor_seconds(ranges: int, executors: int, slots: int, requests_per_range: float, cpu_per_range_s: float,
                     latency_s: float = LATENCY_S) -> float:
    """The tasks of one batch: each executor's share of ``ranges``, ``slots`` at a time, each range its
    CPU plus its requests one after the other."""
    waves = math.ceil(math.ceil(ranges / executors) / slots)
    return waves * (cpu_per_range_s + requests_per_range * latency_s)


def dollars_per_tb(requests_per_object: Mapping[str, float], object_bytes: float) -> float:
    """The request bill of writing one TB in objects of ``object_bytes`` (storage not included)."""
    per_object = sum(count * PRICES[key.split("/")[1]] for key, count in requests_per_object.items())
    return TB / object_bytes * per_object


@dataclass(frozen=True)
class Target:
    """What the projection sizes: a topic's partitions, the executors writing them, the flush interval."""

    partitions: int = 10_000
    executors: int = 100
    slots: int = 4
    """Tasks an executor runs at once (its cores)."""
    interval_s: float = 5.0
    threads: tuple[int, ...] = (1, PARTITION_THREADS, 32)
    """Commit threads on the driver to project (lakesink commits :data:`PARTITION_THREADS` partitions at a time)."""
    object_sizes: tuple[int, ...] = (1_000_000, 8_000_000, 64_000_000)


def batched_cleanup(per_partition: Mapping[str, float], partitions: int) -> dict[str, float]:
    """The requests per partition per batch if the driver dropped its plans once per batch instead of once
    per partition: one listing of the plans (a page per 1,000 keys) and one DeleteObjects per 1,000 plans."""
    batched = {key: count for key, count in per_partition.items()
               if key not in ("driver/list/plans", "driver/delete_many/plans")}
    pages = math.ceil(partitions / 1000) / partitions
    return {**batched, "driver/list/plans": pages, "driver/delete_many/plans": pages}


PREFIXES = {
    "locks": ("locks",),
    "plans": ("plans",),
    "temp": ("temp",),
    "index": ("locks", "plans"),
}
"""The prefixes a flush loads, as key areas: ``.indexes/<name>/.locks/``, ``.indexes/<name>/.plans/``,
Lenses' ``.temp-upload/``, and ``.indexes/<name>/`` as one prefix (before S3 splits it)."""


def prefix_loads(per_partition: Mapping[str, float], target: Target) -> dict[str, dict[str, float]]:
    """Per prefix the flush touches: writes and reads per partition per flush, their rates at the target,
    and the partitions at which each reaches S3's limit."""
    loads = {}
    for prefix, areas in PREFIXES.items():
        writes = sum(per_area(per_partition, area, WRITES) for area in areas)
        reads = sum(per_area(per_partition, area, ("get", "head", "list")) for area in areas)
        if writes or reads:
            loads[prefix] = {
                "writes_per_partition": writes,
                "writes_per_s": rate_per_second(writes, target.partitions, target.interval_s),
                "saturates_at": saturating_partitions(writes, target.interval_s),
                "reads_per_partition": reads,
                "reads_per_s": rate_per_second(reads, target.partitions, target.interval_s),
                "reads_saturate_at": saturating_partitions(reads, target.interval_s, READ_LIMIT),
            }
    return loads


def driver_commit(per_partition: Mapping[str, float], commit_cpu_s: float, target: Target) -> dict[str, Any]:
    """The driver's commit of one batch at the target: seconds per thread count, the threads that fit it
    in one flush interval."""
    driver = {key: count for key, count in per_partition.items() if key.startswith("driver/")}
    requests = sum(driver.values()) * target.partitions
    busiest = max((per_area(driver, area, WRITES) for area in ("locks", "plans")), default=0.0) * target.partitions
    return {
        "requests": requests,
        "seconds": {n: driver_commit_seconds(requests, busiest, commit_cpu_s, n) for n in target.threads},
        "threads_to_fit": threads_to_fit(requests, busiest, commit_cpu_s, target.interval_s),
    }
