"""``python -m bench.scale``: how the sink's driver costs grow with partitions, projected past this machine.

No Spark, no servers: the sink use case on the simulated compute (tests/support/simulated_sink.py), the
real executor task writing each range into the in-memory store, every store call counted by kind, key
area and caller. Fits each per-batch cost to a + b·P over the ladder, projects it with
bench/scale_model.py, and writes ``bench/results/scale-<UTC>.json``, BENCHMARKS.md's scale section
and docs/operations.md's sizing section.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from bench import scale_model
from bench.results import machine
from bench.streaming_report import update_benchmarks
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application import sink_index
from lakesink.application.sink_index import PARTITION_THREADS
from lakesink.application.sink_run import SinkRun
from lakesink.domain.offset_range import OffsetRange
from lakesink.domain.ports import SinkStart
from tests.support.simulated_sink import BUCKET, NAME, Cutting, SimulatedCompute, Topic, sink

ROOT = Path(__file__).resolve().parent.parent
LADDER = (8, 64, 512, 4096)
RECORDS_PER_BATCH = 3
"""Records of each partition in each batch: one small object per partition per batch."""
BATCHES = 3
"""Timed batches per rung; one more, traced by tracemalloc, measures the driver's memory."""
INTERVAL_S = 5
TARGET = scale_model.Target(interval_s=INTERVAL_S)
"""What the ladder is projected to: 10,000 partitions, 100 executors, the same flush interval."""

KINDS = {
    "put": "put", "put_if_absent": "put", "put_if_match": "put", "upload_file": "put",
    "get": "get", "download_file": "get", "head": "head", "list_pages": "list",
    "delete": "delete", "delete_many": "delete_many", "copy": "copy", "check_bucket": "head",
}
"""Store methods as the S3 requests they send (one listing is counted as one request)."""


def key_area(key: str) -> str:
    """Which prefix a key falls in: the connector's locks, its range plans, its other index objects, or data."""
    index = f".indexes/{NAME}/"
    if key.startswith(index + ".locks/"):
        return "locks"
    if key.startswith(index + ".plans/"):
        return "plans"
    return "index" if key.startswith(".indexes/") else "data"


class CountingStore:
    """Counts every call to ``inner`` by (caller, kind, key area), and the seconds the driver's calls
    spent in it: the in-memory store stands for S3's servers, whose time the projection models, so it
    is taken out of the driver's. ``caller`` is set by :class:`MeteredCompute` ("task" while the
    executor tasks run, else "driver")."""

    def __init__(self, inner: InMemoryObjectStore) -> None:
        self.inner = inner
        self.caller = "driver"
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self.driver_store = (0.0, 0.0)
        """Wall and CPU seconds of the driver's calls so far."""
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        kind = KINDS.get(name)
        if kind is None:
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            key = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
            if name == "delete_many":
                key = next(iter(args[1]), "") if isinstance(args[1], tuple | list) else ""
            with self._lock:
                self.counts[(self.caller, kind, key_area(key))] += 1
            if self.caller == "task":
                return method(*args, **kwargs)
            wall, cpu = time.perf_counter(), time.process_time()
            try:  # a listing is read whole, as the engine reads it
                return list(method(*args, **kwargs)) if name == "list_pages" else method(*args, **kwargs)
            finally:
                spent_wall, spent_cpu = self.driver_store
                self.driver_store = (spent_wall + time.perf_counter() - wall, spent_cpu + time.process_time() - cpu)

        return call

    def taken(self) -> Counter[tuple[str, str, str]]:
        """The counts so far, reset."""
        with self._lock:
            counts, self.counts = self.counts, Counter()
        return counts

    def driver_clocks(self) -> tuple[float, float]:
        """Wall and CPU clocks of the driver's own work: both less the time its store calls took."""
        spent_wall, spent_cpu = self.driver_store
        return time.perf_counter() - spent_wall, time.process_time() - spent_cpu


@dataclass
class BatchCost:
    """One batch, measured: the driver's planning (before the tasks) and commit (after), the tasks', the
    store requests by caller/kind/area, and (the traced batch only) the driver's peak allocation."""

    planning_s: float = 0.0
    planning_cpu_s: float = 0.0
    tasks_s: float = 0.0
    tasks_cpu_s: float = 0.0
    commit_s: float = 0.0
    commit_cpu_s: float = 0.0
    ranges: int = 0
    committed: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    driver_peak_bytes: int | None = None


class MeteredCompute:
    """The simulated compute, timed: the driver's parts of each batch apart from its tasks'. The tasks
    run in this process, so the CPU clock is the process's (the driver waits while they run); the
    driver's clocks leave out its store calls' time (:meth:`CountingStore.driver_clocks`)."""

    def __init__(self, inner: SimulatedCompute, store: CountingStore, *, traced: int | None) -> None:
        self.inner, self.store, self.traced = inner, store, traced
        self.batches: list[BatchCost] = []
        self._mark = store.driver_clocks()

    def run(self, start: SinkStart, on_batch: Callable[[int, Sequence[OffsetRange]], None],
            timeout_s: float | None = None) -> None:
        def measured(batch_id: int, ranges: Sequence[OffsetRange]) -> None:
            cost = BatchCost()
            self.batches.append(cost)
            tracing = batch_id == self.traced
            if tracing:
                tracemalloc.start()
            self.store.taken()
            self._mark = self.store.driver_clocks()
            on_batch(batch_id, ranges)
            wall, cpu = self.store.driver_clocks()
            cost.commit_s, cost.commit_cpu_s = wall - self._mark[0], cpu - self._mark[1]
            if tracing:
                cost.driver_peak_bytes = max(cost.driver_peak_bytes or 0, tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
            cost.requests = {"/".join(k): v for k, v in sorted(self.store.taken().items())}

        self.inner.run(start, measured, timeout_s)

    def write(self, ranges: Sequence[OffsetRange], *args: Any) -> Any:
        cost = self.batches[-1]
        began = self.store.driver_clocks()
        cost.planning_s += began[0] - self._mark[0]
        cost.planning_cpu_s += began[1] - self._mark[1]
        tracing = tracemalloc.is_tracing()
        if tracing:  # the tasks' allocations are the executors', not the driver's
            cost.driver_peak_bytes = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        self.store.caller = "task"
        try:
            results = self.inner.write(ranges, *args)
        finally:
            self.store.caller = "driver"
            if tracing:
                tracemalloc.start()
            self._mark = self.store.driver_clocks()
            cost.tasks_s += self._mark[0] - began[0]
            cost.tasks_cpu_s += self._mark[1] - began[1]
        cost.ranges += len(ranges)
        cost.committed = len({(r.topic, r.partition) for r in results})
        return results

    def stop(self) -> None:
        self.inner.stop()


@dataclass
class Rung:
    """One rung of the ladder: the start-up's cost and each batch's."""

    partitions: int
    startup_s: float
    startup_requests: dict[str, int]
    batches: list[BatchCost]
    reported: list[int]
    """The store requests the sink's own batch reports counted (BatchReport.requests): a second count."""


def topic_of(partitions: int, records: int = RECORDS_PER_BATCH, batches: int = BATCHES + 1) -> Topic:
    """``partitions`` partitions of ``records`` × ``batches`` live records each, offsets from 0."""
    return {p: [(o, False) for o in range(records * batches)] for p in range(partitions)}


def measure(partitions: int, *, batches: int = BATCHES, records: int = RECORDS_PER_BATCH) -> Rung:
    """Start a sink on a fresh store over ``partitions`` partitions and run ``batches`` timed batches and
    one traced one, each admitting ``records`` records of every partition."""
    inner = InMemoryObjectStore()
    inner.create_bucket(BUCKET)
    store = CountingStore(inner)
    cutting = Cutting(tuple(records * n for n in range(1, batches + 1)), 0)
    # one partition at a time: the driver's own CPU is measured as the store's is taken out of it,
    # which calls overlapping in time would take out twice; the projection models the threads
    with tempfile.TemporaryDirectory() as staging, mock.patch.object(sink_index, "PARTITION_THREADS", 1):
        run: SinkRun = sink(topic_of(partitions, records, batches + 1), cutting, store, "scale", records, staging,  # type: ignore[arg-type]
                            interval_s=INTERVAL_S)
        metered = MeteredCompute(run.compute, store, traced=batches)  # type: ignore[arg-type]
        run.compute = metered  # type: ignore[assignment]
        began = store.driver_clocks()[0]
        run.prepare()
        startup_s = store.driver_clocks()[0] - began
        startup = {"/".join(k): v for k, v in sorted(store.taken().items())}
        run.run()
    return Rung(partitions, startup_s, startup, metered.batches, [report.requests for report in run.reports])


def ladder(sizes: Sequence[int] = LADDER, *, say: Callable[[str], None] = print) -> Iterator[Rung]:
    """Each rung of ``sizes``, measured in turn."""
    for partitions in sizes:
        began = time.perf_counter()
        rung = measure(partitions)
        say(f"{partitions:>6} partitions: {time.perf_counter() - began:.1f} s")
        yield rung


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def summary(rungs: Sequence[Rung]) -> dict[str, Any]:
    """Per rung, each cost of a timed batch (their mean), the traced batch's driver peak, the start-up's
    cost; then each cost's fit against the partitions."""
    metrics: dict[str, list[float]] = {}
    requests: dict[str, list[float]] = {}
    keys = sorted({key for rung in rungs for batch in rung.batches for key in batch.requests})
    for rung in rungs:
        timed = [batch for batch in rung.batches if batch.driver_peak_bytes is None]
        row = {
            "planning_ms": _mean([b.planning_s for b in timed]) * 1000,
            "planning_cpu_ms": _mean([b.planning_cpu_s for b in timed]) * 1000,
            "commit_ms": _mean([b.commit_s for b in timed]) * 1000,
            "commit_cpu_ms": _mean([b.commit_cpu_s for b in timed]) * 1000,
            "tasks_cpu_ms": _mean([b.tasks_cpu_s for b in timed]) * 1000,
            "driver_requests": _mean([sum(v for k, v in b.requests.items() if k.startswith("driver/")) for b in timed]),
            "task_requests": _mean([sum(v for k, v in b.requests.items() if k.startswith("task/")) for b in timed]),
            "driver_peak_mb": max(b.driver_peak_bytes or 0 for b in rung.batches) / 1e6,
            "startup_ms": rung.startup_s * 1000,
            "startup_requests": float(sum(rung.startup_requests.values())),
        }
        for name, value in row.items():
            metrics.setdefault(name, []).append(value)
        for key in keys:
            requests.setdefault(key, []).append(_mean([b.requests.get(key, 0) for b in timed]))
    partitions = [float(r.partitions) for r in rungs]
    return {
        "partitions": [r.partitions for r in rungs],
        "metrics": metrics,
        "requests": requests,
        "fits": {name: asdict(scale_model.fit_line(partitions, ys)) for name, ys in {**metrics, **requests}.items()},
    }


def projection(summed: Mapping[str, Any], target: scale_model.Target = TARGET) -> dict[str, Any]:
    """The measured growth (each request's per-partition slope, the CPU slopes) projected to ``target``
    on the S3 model, next to Lenses' protocol."""
    fits = {name: scale_model.Fit(**fit) for name, fit in summed["fits"].items()}
    per_partition = {key: fits[key].b for key in summed["requests"]}
    objects = per_partition["task/put/data"]
    per_object = {key: count / objects for key, count in per_partition.items()}
    batched = scale_model.batched_cleanup(per_partition, target.partitions)
    commit_cpu_s = fits["commit_cpu_ms"].at(target.partitions) / 1000
    task_requests = sum(v for k, v in per_partition.items() if k.startswith("task/"))
    return {
        "target": asdict(target),
        "assumptions": {"latency_s": scale_model.LATENCY_S, "write_limit": scale_model.WRITE_LIMIT,
                        "read_limit": scale_model.READ_LIMIT, "class_a": scale_model.CLASS_A,
                        "class_b": scale_model.CLASS_B},
        "per_partition": per_partition,
        "prefixes": scale_model.prefix_loads(per_partition, target),
        "prefixes_batched": scale_model.prefix_loads(batched, target),
        "lenses_prefixes": scale_model.prefix_loads(scale_model.LENSES_PER_OBJECT, target),
        "commit": scale_model.driver_commit(per_partition, commit_cpu_s, target),
        "commit_fits": {
            name: scale_model.partitions_within(
                target.interval_s, sum(v for k, v in requests.items() if k.startswith("driver/")),
                fits["commit_cpu_ms"].b / 1000, threads=PARTITION_THREADS)
            for name, requests in (("as_is", per_partition), ("plans_per_batch", batched))
        },
        "commit_batched": scale_model.driver_commit(batched, commit_cpu_s, target),
        "startup_s": fits["startup_requests"].at(target.partitions) * scale_model.LATENCY_S / PARTITION_THREADS
        + fits["startup_ms"].at(target.partitions) / 1000,
        "executor_s": scale_model.executor_seconds(target.partitions, target.executors, target.slots, task_requests,
                                                   fits["tasks_cpu_ms"].b / 1000),
        "dollars_per_tb": {size: {"lakesink": scale_model.dollars_per_tb(per_object, size),
                                  "lenses": scale_model.dollars_per_tb(scale_model.LENSES_PER_OBJECT, size)}
                           for size in target.object_sizes},
        "requests_per_object": {"lakesink": sum(per_object.values()),
                                "lenses": sum(scale_model.LENSES_PER_OBJECT.values())},
    }


BENCH_BEGIN = "<!-- scale: generated by `python -m bench.scale`; do not edit by hand -->"
BENCH_END = "<!-- scale: end of the generated section -->"
SIZING_BEGIN = "<!-- sizing: generated by `python -m bench.scale` from its run; do not edit by hand -->"
SIZING_END = "<!-- sizing: end of the generated section -->"

METRICS = {
    "planning_ms": "driver planning, wall ms",
    "planning_cpu_ms": "driver planning, CPU ms",
    "commit_ms": "driver commit, wall ms",
    "commit_cpu_ms": "driver commit, CPU ms",
    "driver_requests": "driver store requests",
    "task_requests": "task store requests",
    "tasks_cpu_ms": "tasks, CPU ms (in-process)",
    "driver_peak_mb": "driver peak allocation, MB",
    "startup_ms": "start-up (once per run), wall ms",
    "startup_requests": "start-up store requests",
}


def _number(value: float) -> str:
    if value == math.inf:
        return "∞"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def growth_table(summed: Mapping[str, Any]) -> list[str]:
    """Each cost per batch at each rung, its slope b per partition and whether it grows with them."""
    partitions = summed["partitions"]
    lines = ["| per batch | " + " | ".join(f"P={p:,}" for p in partitions) + " | a | b per partition | r² | grows with P |",
             "|---|" + "---:|" * (len(partitions) + 3) + "---|"]
    rows = [(label, name) for name, label in METRICS.items()] + [(f"`{key}`", key) for key in summed["requests"]]
    for label, name in rows:
        values = {**summed["metrics"], **summed["requests"]}[name]
        fit = scale_model.Fit(**summed["fits"][name])
        lines.append(f"| {label} | " + " | ".join(_number(v) for v in values)
                     + f" | {_number(fit.a)} | {fit.b:.3g} | {fit.r2:.3f} | "
                     + f"{'**yes**' if fit.grows(max(partitions)) else 'no'} |")
    return lines


def benchmarks_section(report: Mapping[str, Any], results_name: str) -> str:
    """BENCHMARKS.md's scale section: the ladder's measured growth (the projection is docs/operations.md's)."""
    summed, settings = report["summary"], report["settings"]
    return "\n".join([
        BENCH_BEGIN, "",
        f"Run {report['finished']} UTC, `python -m bench.scale` (results: `bench/results/{results_name}`), no Spark: "
        f"the sink use case and the real executor task in one process on the in-memory store; one topic, "
        f"{settings['records_per_batch']} JSON records per partition per batch (one object each), "
        f"`flush.interval` {settings['interval_s']} s, mean of {settings['batches']} batches (a further traced "
        "batch gives the driver's peak allocation). Driver times leave out the in-memory store's own time; "
        "requests are `caller/kind/prefix` (`locks`: `.indexes/<name>/.locks/`, `plans`: `.indexes/<name>/.plans/`). "
        "**grows with P**: the per-partition part b·P outweighs the fixed part a at the largest rung.", "",
        *growth_table(summed), "",
        "What this projects to at 10,000 partitions and 100 executors on S3: docs/operations.md, \"Sizing\".", "",
        BENCH_END,
    ])


PREFIX_NAMES = {"locks": "`.indexes/<name>/.locks/`", "plans": "`.indexes/<name>/.plans/`",
                "temp": "`.temp-upload/`", "index": "`.indexes/<name>/` unsplit"}


def _prefix_rows(loads: Mapping[str, Mapping[str, float]], who: str) -> list[str]:
    return [f"| {who} | {PREFIX_NAMES[prefix]} | {load['writes_per_partition']:.3g} | {_number(load['writes_per_s'])} "
            f"| {_number(load['saturates_at'])} | {_number(load['reads_per_s'])} |"
            + (" **over the limit** |" if load["writes_per_s"] > scale_model.WRITE_LIMIT
               or load["reads_per_s"] > scale_model.READ_LIMIT else " |")
            for prefix, load in loads.items()]
def sizing_section(report: Mapping[str, Any], results_name: str) -> str:
    """docs/operations.md's sizing section: the growth, the projection, the limits and what lifts them."""
    summed, proj = report["summary"], report["projection"]
    target = scale_model.Target(**{**proj["target"], "threads": tuple(proj["target"]["threads"]),
                                   "object_sizes": tuple(proj["target"]["object_sizes"])})
    fits = {name: scale_model.Fit(**fit) for name, fit in summed["fits"].items()}
    per_partition = proj["per_partition"]
    driver = sum(v for k, v in per_partition.items() if k.startswith("driver/"))
    task = sum(v for k, v in per_partition.items() if k.startswith("task/"))
    p, interval = target.partitions, target.interval_s
    commit, batched = proj["commit"], proj["commit_batched"]
    ours = proj["prefixes"]
    by_saturation = sorted(ours, key=lambda prefix: ours[prefix]["saturates_at"])
    lenses_locks = proj["lenses_prefixes"]["locks"]
    latency_ms = proj["assumptions"]["latency_s"] * 1000

    def seconds(by_threads: Mapping[Any, float]) -> str:
        return ", ".join(f"{n} thread{'s' if int(n) > 1 else ''}: {s:,.1f} s" for n, s in by_threads.items())

    return "\n".join([
        SIZING_BEGIN, "",
        f"Measured by `python -m bench.scale` ({report['finished']} UTC, `bench/results/{results_name}`; the "
        "method and the full table are in BENCHMARKS.md, \"Scale\"): the sink use case with the real executor "
        "task on the in-memory store, every store request counted, on one topic of "
        f"{', '.join(f'{n:,}' for n in summed['partitions'])} partitions. Then projected to "
        f"**{p:,} partitions and {target.executors} executors** ({target.slots} task slots each) at a "
        f"`flush.interval` of {interval:g} s, every partition flushing every interval.", "",
        "### What grows with partitions", "",
        f"Per partition and batch the driver sends {driver:.3g} store requests (the master lock's conditional "
        "PUT, a LIST of the partition's range plans, a DeleteObjects of those at or below the lock), one after the "
        f"other, and each task {task:.3g} per range (a GET of the master lock, the plan's PUT, the object's PUT). "
        f"The driver's own CPU per partition: {fits['commit_cpu_ms'].b * 1000:.3g} µs to commit, "
        f"{fits['planning_cpu_ms'].b * 1000:.3g} µs to plan, {fits['startup_ms'].b * 1000:.3g} µs at start-up; its "
        f"peak allocation in a batch {fits['driver_peak_mb'].b * 1e3:.3g} kB per partition. Every one of these "
        "is linear in the partitions of the batch (b below, r² near 1): none is a limit on this machine, but "
        "each multiplies by the partitions once requests take a network round trip.", "",
        *growth_table(summed), "",
        "### Assumptions of the projection", "",
        f"* Each request takes **{latency_ms:g} ms** (an assumed p50 for a small object within one region, "
        "20-30 ms; every projected time is linear in it).",
        f"* S3 takes **{scale_model.WRITE_LIMIT:,} PUT/COPY/POST/DELETE and {scale_model.READ_LIMIT:,} GET/HEAD "
        "requests per second per partitioned prefix** (AWS, S3 user guide, \"Best practices design patterns: "
        "optimizing Amazon S3 performance\"); a LIST counts as a GET, a DeleteObjects as one POST. S3 splits a "
        "busy prefix over time, answering 503 Slow Down until it has: the rates are where a prefix not yet "
        "split throttles.",
        f"* Prices, S3 Standard us-east-1: ${scale_model.CLASS_A * 1000:g} per 1,000 PUT, COPY, POST, LIST; "
        f"${scale_model.CLASS_B * 1000:g} per 1,000 GET, HEAD; DELETE free; DeleteObjects priced as a POST "
        "(the conservative reading). Storage and transfer are left out: both protocols store the same bytes.",
        "* Lenses' requests per flushed file (default layout, one writer per partition; stream-reactor's "
        "`Writer.commit` chain and `preCommit`, docs/commit-model.md \"Finishing a Lenses chain\"): the "
        "temporary upload, three writes of "
        "its granular lock (pending copy and delete, pending delete, committed), a HEAD and the COPY to the "
        "final key, two DELETEs of the temporary object, and the master lock at preCommit.", "",
        f"### Requests per prefix at a {interval:g} s flush, {p:,} partitions", "",
        "| protocol | prefix | writes per partition per flush | writes/s | limit reached at P | reads/s | |",
        "|---|---|---:|---:|---:|---:|---|",
        *_prefix_rows(ours, "lakesink"),
        *_prefix_rows(proj["prefixes_batched"], "lakesink, plans dropped per batch"),
        *_prefix_rows(proj["lenses_prefixes"], "Lenses"), "",
        f"Every lock of a connector shares `.indexes/<name>/.locks/`. lakesink writes "
        f"{ours['locks']['writes_per_partition']:.3g} lock per partition per flush: "
        f"{_number(ours['locks']['writes_per_s'])}/s at {p:,} partitions, S3's limit at "
        f"{_number(ours['locks']['saturates_at'])} partitions. Lenses writes "
        f"{lenses_locks['writes_per_partition']:.3g} per file: {_number(lenses_locks['writes_per_s'])}/s, its "
        f"limit at {_number(lenses_locks['saturates_at'])} partitions. lakesink's prefixes by the partitions at "
        "which each reaches S3's write limit: "
        + ", ".join(f"{PREFIX_NAMES[prefix]} {_number(ours[prefix]['saturates_at'])}" for prefix in by_saturation)
        + " (before S3 has split `.locks/` from `.plans/`, both share the index's rate).", "",
        f"### The driver's commit of one batch, {p:,} partitions", "",
        f"{_number(commit['requests'])} requests: {seconds(commit['seconds'])}. lakesink commits "
        f"{PARTITION_THREADS} partitions at a time (`application/sink_index.py`): a batch's commit outgrows the "
        f"{interval:g} s interval from **{math.floor(proj['commit_fits']['as_is']):,} partitions** on, long before "
        f"any prefix's limit; the driver is the first limit. {commit['threads_to_fit'] or 'No number of'} threads "
        f"would fit {p:,} partitions in one interval. "
        f"With the plans dropped once per batch: {_number(batched['requests'])} requests, "
        f"{seconds(batched['seconds'])}; on {PARTITION_THREADS} threads up to "
        f"{math.floor(proj['commit_fits']['plans_per_batch']):,} partitions, "
        f"{batched['threads_to_fit'] or 'no number of'} threads for {p:,}. "
        f"The start-up opens the partitions {PARTITION_THREADS} at a time ({fits['startup_requests'].b:.3g} "
        "requests each: a HEAD of Lenses' 9.0.0 lock, the lock's GET and claiming PUT, a LIST of its granular "
        f"locks and one of its plans): {_number(proj['startup_s'])} s at {p:,} "
        f"partitions. The executors' side of a batch: {proj['executor_s']:.3g} s "
        f"({math.ceil(p / target.executors)} ranges per executor, {target.slots} at a time).", "",
        "### Requests and dollars per TB written", "",
        f"lakesink sends {proj['requests_per_object']['lakesink']:.3g} requests per object (with one object per "
        f"partition per flush), Lenses {proj['requests_per_object']['lenses']:.3g}. Request cost per TB:", "",
        "| object size | lakesink | Lenses |", "|---:|---:|---:|",
        *[f"| {int(size) / 1e6:g} MB | ${cost['lakesink']:,.2f} | ${cost['lenses']:,.2f} |"
          for size, cost in proj["dollars_per_tb"].items()], "",
        "### Limits, and what lifts them", "",
        f"1. **The driver's commit** ({commit['seconds'][PARTITION_THREADS]:,.0f} s per batch at {p:,} "
        f"partitions on its {PARTITION_THREADS} threads; serial before issue 36, {commit['seconds'][1]:,.0f} s). "
        "Lifts: more threads (and a store HTTP pool as large), and the plan clean-up "
        "batched (2). Each partition's lock is its own object and a crash between two lock writes is a state "
        "the index recovers from, so keys, bytes and Lenses compatibility stay as they are. Bounded by the "
        "prefix rate below.",
        "2. **The plan clean-up per partition** (a LIST and a DeleteObjects per partition and batch: two thirds "
        "of the driver's requests, and half of `.indexes/<name>/.plans/`'s writes). Lift: batch it, one listing "
        "of the connector's plans and one DeleteObjects per 1,000 per batch. Plans are lakesink's own objects "
        "(Lenses neither reads nor writes them), and plans at or below a lock left by a crash are dropped at "
        "the next start as today: no compatibility cost.",
        f"3. **The lock prefix** ({_number(ours['locks']['saturates_at'])} partitions per connector at "
        f"{interval:g} s). Lifts without a compatibility cost: a longer `flush.interval` (the limit grows with "
        "it), or the topic's partitions split between connectors, each with its own `.indexes/<name>/`. "
        "Spreading lock keys across prefixes (a hash shard before `Topic(<topic>)`) lifts it for any number of "
        "partitions, but Lenses no longer finds the locks: a takeover either way would first move them back. "
        "It could only be an opt-in layout; the default stays byte-compatible with Lenses.",
        f"4. **The start-up** opens partitions {PARTITION_THREADS} at a time (one by one before issue 36); more "
        "threads lift it further, with no format change.", "",
        SIZING_END,
    ])


def write(report: dict[str, Any], root: Path = ROOT) -> Path:
    """``bench/results/scale-<UTC>.json``, BENCHMARKS.md's scale section, docs/operations.md's sizing section."""
    results = root / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    path = results / time.strftime("scale-%Y%m%dT%H%M%SZ.json", time.gmtime())
    path.write_text(json.dumps(report, indent=1) + "\n")
    update_benchmarks(root / "BENCHMARKS.md", benchmarks_section(report, path.name),
                      begin=BENCH_BEGIN, end=BENCH_END, heading="Scale (issue 36)")
    update_benchmarks(root / "docs" / "operations.md", sizing_section(report, path.name),
                      begin=SIZING_BEGIN, end=SIZING_END, heading="Sizing")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", default=",".join(map(str, LADDER)), metavar="A,B,...",
                        help=f"the ladder ({','.join(map(str, LADDER))})")
    parser.add_argument("--no-write", action="store_true", help="print only: no results file, no docs")
    args = parser.parse_args(argv)
    rungs = list(ladder([int(p) for p in args.partitions.split(",")]))
    summed = summary(rungs)
    report = {"kind": "scale", "finished": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "machine": machine(),
              "settings": {"records_per_batch": RECORDS_PER_BATCH, "batches": BATCHES, "interval_s": INTERVAL_S},
              "summary": summed, "projection": projection(summed), "rungs": [asdict(r) for r in rungs]}
    print("\n".join(growth_table(summed)))
    if not args.no_write:
        print(f"wrote {write(report)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
