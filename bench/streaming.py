"""``python -m bench --streaming``: the sinks in continuous mode against a producer at fixed rates.

For each format (JSON passthrough; PARQUET with ``PARTITIONBY _value.country`` from schemaless
JSON: the batch scenarios' sink-json and sink-parquet configs, with ``flush.interval`` 5 s) and
each sink (``lakesink sink`` without ``--once``, ``--master local[2]``; Quix Streams' S3FileSink,
bench/quix_app.py ``--continuous`` with ``commit_interval`` 5 s; the plain Spark job,
bench/spark_job_app.py ``--trigger 5``; JSON only: the Aiven peer, bench/aiven_app.py ``--continuous``
on a Connect worker with ``offset.flush.interval.ms`` 5,000), and for format ``iceberg`` (issue 37:
bench/streaming_tables.py) lakesink with sink-iceberg's statement and Apache Iceberg's Kafka Connect sink
(``iceberg.control.commit.interval-ms`` 5,000), both committing to an Iceberg REST catalog of the step's
own and their freshness read through the table (:class:`bench.table_probe.TableProbe`), each step of the
ladder runs on fresh services, so no step inherits another's backlog, topic or objects:

1. the broker (Apache Kafka, or Tansu with ``--broker tansu``) and moto start, a 4-partition topic and a bucket are created, the sink starts in its
   own process group (lakesink with ``--metrics-port`` on a free port of 127.0.0.1);
2. **warm-up**: 4,000 records are produced and the step waits until the sink committed them all
   (Spark up, Python workers started, the locks or the group's offsets exist);
3. **the step**: :mod:`bench.streaming_producer` writes at the step's rate for ``--step-seconds``
   while, every second, the lag (high watermarks minus committed positions: lakesink's scraped
   from its metrics endpoint, Quix's, the Aiven peer's and the Iceberg connector's their groups' offsets;
   :mod:`bench.streaming_probes`), the
   sink tree's CPU time by role and RSS, the broker's and S3 server's CPU time and the machine's
   busy time are sampled, and new objects are read for freshness;
4. **drain**: sampling goes on until the lag is 0 (a table step: and the table holds every record) or
   :data:`DRAIN_TIMEOUT_S` passed; lakesink's
   committed positions on its endpoint are then checked against its master locks'
   (``committed_cross_check``); then the sink and the services are stopped.

A step that is not sustained (:func:`bench.streaming_metrics.judge_step`) ends that sink's
ladder: a higher rate would not be sustained either.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import psutil
from confluent_kafka import Consumer

from bench.aiven_runs import aiven_command, install
from bench.kafka_io import DataSet, create_topic
from bench.lakesink_runs import (
    SINK_SCENARIOS,
    TABLE_NAME,
    TABLE_SCENARIOS,
    _env,
    _lakesink,
    _write,
    rest_catalog_settings,
    sink_config,
)
from bench.processes import BenchTimeout, Children, CpuByRole, cpu_seconds, tree_rss
from bench.quix_runs import COMMIT_EVERY, quix_python
from bench.services import free_port, start_broker, start_moto
from bench.spark_job_runs import PREFIX as SPARK_PREFIX
from bench.spark_job_runs import checkpoint_committed, job_command
from bench.streaming_metrics import (
    judge_step,
    percentiles,
    profile_summary,
    rate_label,
    sink_batches,
    slope,
    sustained_rate,
)
from bench.streaming_probes import (
    Committed,
    EndpointSilent,
    FreshnessProbe,
    LakesinkEndpoint,
    Watermarks,
    group_committed,
    lag_of,
    locks_committed,
)
from bench.streaming_tables import (
    CONNECTOR,
    CONNECTOR_TABLE,
    STOP_TIMEOUT_S,
    TABLE_FORMAT,
    connector_command,
    connector_commits,
    connector_log,
    start_catalog,
    table_figures,
)
from bench.table_probe import TableProbe

FLUSH_INTERVAL_S = 5
TOPIC = "orders-stream"
PARTITIONS = 4
WARM_UP_RECORDS = 4_000
WARM_UP_TIMEOUT_S = 240.0
DRAIN_TIMEOUT_S = 30.0
SAMPLE_S = 1.0
SINKS = ("lakesink", "quix", "spark", "aiven", CONNECTOR)
FILE_FORMATS = ("json", "parquet")
ONLY_FORMATS = {"quix": FILE_FORMATS, "spark": FILE_FORMATS, "aiven": ("json",), CONNECTOR: (TABLE_FORMAT,)}
"""Sinks that write only some formats (Aiven's parquet writer needs a Confluent artifact Maven Central does
not serve: docs/dialects.md; only lakesink and Iceberg's connector write Iceberg tables)."""
FORMATS = {"json": SINK_SCENARIOS[0], "parquet": SINK_SCENARIOS[1], TABLE_FORMAT: TABLE_SCENARIOS[0]}
DEFAULT_LADDER = "20k,50k,100k,200k,max"
DEFAULT_STEP_S = 45.0
SMOKE_LADDER = "1k,2k"
SMOKE_STEP_S = 10.0
PROFILE_RATE = 25
"""py-spy samples per second (``--profile``): low, so the profiler takes little of the two cores."""


class StepFailed(Exception):
    """The step could not be measured (a sink that exited, a warm-up that never committed)."""


@dataclass
class Sample:
    """One second of a step (epoch seconds; sums over the partitions)."""

    at: float
    high: int
    committed: int
    lag: int
    rss: int
    sink_cpu: dict[str, float]
    services_cpu: dict[str, float]
    machine_busy_s: float


@dataclass
class Step:
    """The running pieces of one step, stopped in :meth:`close`."""

    children: Children
    label: str
    processes: list[Any] = field(default_factory=list)
    closers: list[Any] = field(default_factory=list)

    def close(self) -> None:
        for closer in reversed(self.closers):
            try:
                closer()
            except Exception as error:  # noqa: BLE001 - clean-up goes on
                print(f"bench: {self.label}: clean-up: {error}", file=sys.stderr)
        for process in reversed(self.processes):
            self.children.stop(process)


def _busy_seconds() -> float:
    times = psutil.cpu_times()._asdict()
    return sum(v for k, v in times.items() if k not in ("idle", "iowait", "guest", "guest_nice"))


def run_ladder(args: argparse.Namespace, children: Children, work: Path, deadline: float,
               runs: list[dict[str, Any]]) -> None:
    """Every chosen format × sink × ladder step, appended to ``runs`` as each sink's ladder ends
    (an interrupted run still reports what finished); :func:`ratios` compares them."""
    skipped = {"quix": args.skip_quix, "spark": args.skip_spark, "aiven": args.skip_aiven,
               CONNECTOR: args.skip_iceberg_connect}
    sinks = [s for s in SINKS if not skipped.get(s)]
    for fmt in args.formats:
        for sink in sinks:
            if fmt not in ONLY_FORMATS.get(sink, (fmt,)):
                continue
            steps: list[dict[str, Any]] = []
            for index, rate in enumerate(args.ladder):
                if deadline - time.monotonic() < args.step_seconds + 120:
                    steps += [_skipped(r, "not run: the global --timeout is near") for r in args.ladder[index:]]
                    break
                print(f"bench: streaming {sink} {fmt} at {rate_label(rate)} records/s ...", flush=True)
                step = _run_step(args, children, work, sink, fmt, rate)
                steps.append(step)
                print(f"bench: {_summary(step)}", flush=True)
                if not step["sustained"]:
                    steps += [_skipped(r, "not run: a lower step was not sustained") for r in args.ladder[index + 1:]]
                    break
            runs.append({"sink": sink, "format": fmt, "steps": steps, "sustained_rate": sustained_rate(steps)})


def ratios(runs: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Per format: lakesink's sustained rate ÷ Quix's, and Quix's CPU per record ÷ lakesink's at the
    highest step both sustained; the same against every other peer under ``vs_<peer>``."""
    out: dict[str, dict[str, Any]] = {}
    for fmt in {run["format"] for run in runs}:
        by_sink = {run["sink"]: run for run in runs if run["format"] == fmt}
        lake = by_sink.get("lakesink")
        if lake is None:
            continue
        versus = {peer: _versus(lake, by_sink[peer]) for peer in SINKS[1:] if peer in by_sink}
        if "quix" in versus:
            quix = versus.pop("quix")
            out[fmt] = {"sustained_rate": quix["sustained_rate"],
                        "cpu_per_record_quix_over_lakesink": quix["cpu_per_record_peer_over_lakesink"],
                        "cpu_compared_at": quix["cpu_compared_at"]}
        out.setdefault(fmt, {}).update({f"vs_{peer}": ratio for peer, ratio in versus.items()})
    return out


def _versus(lake: dict[str, Any], peer: dict[str, Any]) -> dict[str, float | None]:
    """lakesink's sustained rate ÷ the peer's, and the peer's CPU per record ÷ lakesink's at the highest
    step both sustained."""
    rate = (lake["sustained_rate"] / peer["sustained_rate"]
            if lake["sustained_rate"] and peer["sustained_rate"] else None)
    both = [(a, b) for a in lake["steps"] for b in peer["steps"]
            if a["nominal_rate"] == b["nominal_rate"] and a.get("sustained") and b.get("sustained")
            and a.get("cpu_us_per_record") and b.get("cpu_us_per_record")]
    cpu = both[-1][1]["cpu_us_per_record"] / both[-1][0]["cpu_us_per_record"] if both else None
    return {"sustained_rate": rate, "cpu_per_record_peer_over_lakesink": cpu,
            "cpu_compared_at": both[-1][0]["nominal_rate"] if both else None}


def _skipped(rate: int | None, why: str) -> dict[str, Any]:
    return {"nominal_rate": rate, "label": rate_label(rate), "status": "skipped", "sustained": False, "why": why}


def _summary(step: dict[str, Any]) -> str:
    if step["status"] != "ok":
        return f"{step['sink']} {step['format']} {step['label']}: {step['status']}: {step['why']}"
    fresh = step["freshness_ms"]
    p99 = "-" if fresh["p99"] is None else f"{fresh['p99'] / 1000:.1f} s"
    return (f"{step['sink']} {step['format']} {step['label']}: produced {step['produced_rate']:,.0f}/s, committed "
            f"{step['committed_rate']:,.0f}/s, {'SUSTAINED' if step['sustained'] else 'NOT sustained'} "
            f"({step['why']}); freshness p99 {p99}; {step['cpu_us_per_record'] or 0:.1f} µs CPU/record; "
            f"machine {step['machine_busy_percent']:.0f} % busy ({step['others_busy_percent']:.0f} % by others)")


def _run_step(args: argparse.Namespace, children: Children, work: Path, sink: str, fmt: str,
              rate: int | None) -> dict[str, Any]:
    label = f"{sink}-{fmt}-{rate_label(rate)}".lower().replace(".", "-")
    base = {"sink": sink, "format": fmt, "nominal_rate": rate, "label": rate_label(rate)}
    step = Step(children, label)
    try:
        return {**base, **_measure(args, step, work, sink, fmt, rate)}
    except BenchTimeout:
        raise
    except Exception as error:  # noqa: BLE001 - one step's failure (a client error, a dead sink) is its row
        why = str(error) if isinstance(error, StepFailed) else f"{type(error).__name__}: {error}"
        return {**base, "status": "FAILED", "sustained": False, "why": why}
    finally:
        step.close()


def _measure(args: argparse.Namespace, step: Step, work: Path, sink: str, fmt: str,
             rate: int | None) -> dict[str, Any]:
    children, label = step.children, step.label
    expected = int((rate or 400_000) * args.step_seconds)
    broker = start_broker(children, records=expected, kind=args.broker)
    step.processes.append(broker.process)
    s3 = start_moto(children)
    step.processes.append(s3.process)
    partitions = broker.fixed_partitions or args.partitions
    if broker.fixed_partitions is None:
        create_topic(broker.bootstrap, TOPIC, partitions)
    bucket = f"bench-stream-{label}"
    client = s3.endpoint.client()
    client.create_bucket(Bucket=bucket)
    catalog = None
    if fmt == TABLE_FORMAT:  # Iceberg's REST catalog, the step's own (fresh services)
        catalog = start_catalog(s3.endpoint)
        step.closers.append(partial(catalog.close, keep_log_in=children.log_dir / f"{label}-catalog.log"))
    if sink == "lakesink":
        connector = f"bench-stream-{label}"
        config = sink_config(FORMATS[fmt], DataSet(TOPIC, partitions, 0, 0, 0.0), bootstrap=broker.bootstrap,
                             endpoint=s3.endpoint, name=connector, bucket=bucket, flush_interval_s=FLUSH_INTERVAL_S)
        if catalog is not None:
            config |= rest_catalog_settings(catalog)
        path = _write(work / f"{label}.json", connector, config)
        port = free_port()
        argv = _lakesink("sink", "--config", str(path), "--master", args.master,
                         "--checkpoint", str(work / "checkpoints" / label),
                         "--metrics-port", str(port), "--metrics-host", "127.0.0.1")
        process = children.spawn(label, argv, env=_env())
        committed: Committed = LakesinkEndpoint(f"http://127.0.0.1:{port}/metrics", connector, TOPIC, partitions)
        prefix, table = "out/", TABLE_NAME
    elif sink == CONNECTOR:  # Iceberg's connector on a Connect worker: a table commit every flush interval
        assert catalog is not None  # only format iceberg
        name = f"bench-stream-{label}"
        argv, env = connector_command(work, children.log_dir, name, bootstrap=broker.bootstrap, topic=TOPIC,
                                      bucket=bucket, endpoint=s3.endpoint, catalog=catalog,
                                      commit_ms=FLUSH_INTERVAL_S * 1000)
        process = children.spawn(label, argv, env=env)
        committed = _group_offsets(step, broker.bootstrap, f"connect-{name}", partitions)
        prefix, table = "", CONNECTOR_TABLE
    elif sink == "spark":  # the plain Spark job (bench/spark_job_runs.py), a micro-batch every flush interval
        checkpoint = work / "checkpoints" / label
        argv, env = job_command(fmt, bootstrap=broker.bootstrap, topic=TOPIC, bucket=bucket, checkpoint=checkpoint,
                                endpoint=s3.endpoint, master=args.master, trigger=str(FLUSH_INTERVAL_S))
        process = children.spawn(label, argv, env=env)
        committed = partial(checkpoint_committed, checkpoint, TOPIC, partitions)
        prefix = f"{SPARK_PREFIX}/"
    elif sink == "aiven":  # Aiven's commons on a Connect worker: files written and offsets committed every flush
        plugin_path = work / "aiven-plugins"  # built by the ladder's first step, kept for the others
        problem = None if plugin_path.is_dir() else install(plugin_path)
        if problem is not None:
            raise StepFailed(problem)
        name = f"bench-stream-{label}"
        argv, env = aiven_command(name, bootstrap=broker.bootstrap, topic=TOPIC, bucket=bucket, endpoint=s3.endpoint,
                                  flush_ms=FLUSH_INTERVAL_S * 1000, plugin_path=plugin_path,
                                  keep_log=children.log_dir / f"{label}-connect.log")
        process = children.spawn(label, [*argv, "--continuous"], env=env)
        committed = _group_offsets(step, broker.bootstrap, f"connect-{name}", partitions)
        prefix = ""
    else:
        group = f"bench-stream-{label}"
        argv = [str(quix_python()), str(Path(__file__).with_name("quix_app.py")), "--bootstrap", broker.bootstrap,
                "--topic", TOPIC, "--endpoint", s3.endpoint.url, "--bucket", bucket, "--format", fmt,
                "--access-key", s3.endpoint.access_key, "--secret-key", s3.endpoint.secret_key,
                "--region", s3.endpoint.region, "--group", group, "--commit-every", str(COMMIT_EVERY),
                "--commit-interval", str(FLUSH_INTERVAL_S), "--continuous", "--state-dir", str(work / "quix-state" / label)]
        process = children.spawn(label, argv)
        committed = _group_offsets(step, broker.bootstrap, group, partitions)
        prefix = "data/"
    step.processes.append(process)
    watermarks = Watermarks(broker.bootstrap, TOPIC, partitions)
    step.closers.append(watermarks.close)
    log = f"{children.log_dir}/{label}.log"
    producer = [sys.executable, "-m", "bench.streaming_producer", "--bootstrap", broker.bootstrap, "--topic", TOPIC,
                "--partitions", str(partitions)]

    warm = children.measure(f"{label}-warm-up", [*producer, "--records", str(WARM_UP_RECORDS)], timeout_s=120)
    if warm.returncode != 0:
        raise StepFailed(f"the warm-up producer failed (log: {children.log_dir}/{label}-warm-up.log)")
    waited = time.monotonic()
    while True:
        if process.poll() is not None:
            raise StepFailed(f"the sink exited with code {process.returncode} during the warm-up (log: {log})")
        high = watermarks.high()
        if sum(high.values()) and lag_of(high, committed()) == 0:
            break
        if time.monotonic() - waited > WARM_UP_TIMEOUT_S:
            raise StepFailed(f"the warm-up's records were not committed within {WARM_UP_TIMEOUT_S:.0f} s (log: {log})")
        time.sleep(SAMPLE_S)
    warm_up_s = time.monotonic() - waited

    probe: FreshnessProbe | TableProbe
    if catalog is not None:  # freshness through the table: the warm-up's snapshot may follow the sink's offsets
        probe = TableProbe(catalog.catalog(), table)
        probe.ignore_existing(sum(watermarks.high().values()), WARM_UP_TIMEOUT_S)
    else:
        probe = FreshnessProbe(s3.endpoint, bucket, prefix)
        probe.ignore_existing()
    probe.start()
    step.closers.append(probe.finish)
    cpu = CpuByRole(process.pid)
    harness = psutil.Process()
    harness_before = sum(harness.cpu_times()[:2])
    samples: list[Sample] = []

    def sample() -> Sample:
        high = watermarks.high()
        done = committed()
        cpu.sample()
        taken = Sample(time.time(), sum(high.values()), sum(done.values()), lag_of(high, done), tree_rss(process.pid),
                       cpu.totals(), services(), _busy_seconds())
        samples.append(taken)
        return taken

    def services() -> dict[str, float]:
        cpu = {"broker": _cpu(broker.process.pid), "s3": _cpu(s3.process.pid)}
        return cpu if catalog is None or catalog.pid is None else {**cpu, "catalog": _cpu(catalog.pid)}

    def tick(began: float) -> None:
        time.sleep(max(0.0, SAMPLE_S - (time.monotonic() - began)))

    sample()
    rate_args = ["--rate", str(rate or 0), "--seconds", str(args.step_seconds)]
    running = children.spawn(f"{label}-producer", [*producer, *rate_args], pipe_stdout=True)
    step.processes.append(running)
    profile_path = work / f"{label}.py-spy.txt"
    profiler = None
    if args.profile and sink == "lakesink":
        py_spy = Path(sys.executable).with_name("py-spy")
        profiler = children.spawn(f"{label}-py-spy", [
            str(py_spy), "record", "--pid", str(process.pid), "--subprocesses", "--nonblocking", "--rate",
            str(PROFILE_RATE), "--format", "raw", "--duration", str(int(args.step_seconds)), "-o", str(profile_path)])
        step.processes.append(profiler)
    limit = time.monotonic() + args.step_seconds + 120
    while running.poll() is None:
        began = time.monotonic()
        if process.poll() is not None:
            raise StepFailed(f"the sink exited with code {process.returncode} during the step (log: {log})")
        if began > limit:
            raise StepFailed(f"the producer did not finish (log: {children.log_dir}/{label}-producer.log)")
        sample()
        tick(began)
    if running.returncode != 0:
        raise StepFailed(f"the producer failed (log: {children.log_dir}/{label}-producer.log)")
    produced = json.loads(running.stdout.read().decode().strip().splitlines()[-1])  # type: ignore[union-attr]
    drain_began, drained = time.monotonic(), False
    while time.monotonic() - drain_began < DRAIN_TIMEOUT_S and process.poll() is None:
        began = time.monotonic()
        taken = sample()
        if taken.lag == 0 and probe.holds(taken.high):
            drained = True
            break
        tick(began)
    freshness = probe.finish()
    harness_cpu = sum(harness.cpu_times()[:2]) - harness_before
    figures = _figures(samples, produced, freshness, probe, drained=drained, warm_up_s=warm_up_s,
                       harness_cpu=harness_cpu, flush_interval_s=FLUSH_INTERVAL_S)
    if isinstance(probe, TableProbe):
        figures["table"] = table_figures(probe, samples, produced["started_at"], produced["ended_at"])
    if sink == CONNECTOR:  # its launcher stops the worker and keeps its log, whose coordinator lines time commits
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print(f"bench: {label}: the connector's launcher did not stop within {STOP_TIMEOUT_S:.0f} s",
                  file=sys.stderr, flush=True)
        figures["table"]["commits"] = connector_commits(connector_log(children.log_dir, name), produced["started_at"],
                                                        samples[-1].at)
    if sink == "lakesink":
        text = Path(log).read_text(errors="replace") if Path(log).exists() else ""
        figures["sink_batches"] = sink_batches(text, produced["started_at"], samples[-1].at)
        locks = locks_committed(client, bucket, connector, TOPIC, partitions)
        figures["committed_cross_check"] = _cross_check(label, committed, locks, drained=drained)
    if profiler is not None:
        try:
            profiler.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        if profile_path.exists():
            figures["profile"] = {**profile_summary(profile_path.read_text(errors="replace")),
                                  "raw": str(profile_path), "rate_hz": PROFILE_RATE}
    return figures


def _group_offsets(step: Step, bootstrap: str, group: str, partitions: int) -> Committed:
    """A probe of ``group``'s committed offsets (a consumer that never joins it), closed with the step."""
    offsets = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    step.closers.append(offsets.close)
    return partial(group_committed, offsets, TOPIC, partitions)


def _cross_check(label: str, endpoint: Committed, locks: dict[int, int], *, drained: bool) -> dict[str, Any]:
    """lakesink's committed positions from its metrics endpoint against its master locks' at the end of
    a step, with a warning when they differ.

    The lag series comes from the endpoint; the locks are what the store holds. Once the step drained
    both must be equal (a batch sets the gauge once its locks are written), so a difference means the
    series did not show the sink's real progress. A step that did not drain may differ by a commit made
    between the two reads.
    """
    try:
        scraped: dict[int, int] | None = endpoint()
        silent = ""
    except EndpointSilent as error:
        scraped, silent = None, f" ({error})"
    check = {"endpoint": scraped, "locks": locks, "equal": scraped == locks, "drained": drained}
    if not check["equal"]:
        print(f"bench: {label}: WARNING: the metrics endpoint's committed positions {scraped}{silent} differ from "
              f"the master locks' {locks}{'' if drained else ' (the step did not drain)'}", file=sys.stderr, flush=True)
    return check


def _cpu(pid: int) -> float:
    return round(cpu_seconds(pid), 2)


def _figures(samples: list[Sample], produced: dict[str, Any], freshness: Any, probe: FreshnessProbe, *,
             drained: bool, warm_up_s: float, harness_cpu: float, flush_interval_s: float) -> dict[str, Any]:
    """The step's numbers from its samples (see the module docstring of bench.streaming_metrics)."""
    start, end = produced["started_at"], produced["ended_at"]
    seconds = end - start
    produced_rate = (produced["records"] - len(produced["by_partition"])) / seconds
    times = [s.at - start for s in samples]
    lags = [s.lag for s in samples]
    verdict = judge_step(times, lags, start=0.0, end=seconds, rate=produced_rate, flush_interval_s=flush_interval_s)
    inside = [s for s in samples if start <= s.at <= end]
    committed_rate = slope([s.at for s in inside], [s.committed for s in inside])
    first = samples[0]
    last = samples[-1] if drained else next((s for s in samples if s.at >= end), samples[-1])
    records = last.committed - first.committed
    sink_cpu = {role: round(last.sink_cpu[role] - first.sink_cpu.get(role, 0.0), 2) for role in last.sink_cpu}
    services = {name: round(last.services_cpu[name] - first.services_cpu[name], 2) for name in last.services_cpu}
    window = last.at - first.at
    cores = psutil.cpu_count() or 1
    fresh = percentiles(freshness)
    busy = 100 * (last.machine_busy_s - first.machine_busy_s) / window if window else 0.0
    known = sum(sink_cpu.values()) + sum(services.values()) + produced["cpu_seconds"] + harness_cpu
    return {
        "status": "ok", "sustained": verdict.sustained, "why": verdict.why,
        "seconds": round(seconds, 2), "records": produced["records"], "produced_rate": produced_rate,
        "committed_rate": committed_rate, "end_lag": verdict.end_lag,
        "lag_p99": percentiles([s.lag for s in inside])["p99"], "lag_bound": verdict.bound,
        "lag_growth": verdict.growth, "allowed_growth": verdict.allowed_growth, "drained": drained,
        "drain_seconds": round(samples[-1].at - end, 1) if drained else None, "warm_up_seconds": round(warm_up_s, 1),
        "freshness_ms": fresh, "freshness_records": probe.records, "freshness_objects": probe.objects,
        "freshness_errors": probe.errors[:5],
        "cpu_window_seconds": round(window, 1), "cpu_records": records,
        "cpu_us_per_record": sum(sink_cpu.values()) / records * 1e6 if records > 0 else None,
        "sink_cpu_seconds": sink_cpu, "services_cpu_seconds": services,
        "producer_cpu_seconds": produced["cpu_seconds"], "harness_cpu_seconds": round(harness_cpu, 2),
        "machine_busy_percent": busy,
        "others_busy_percent": max(0.0, busy - 100 * known / window) if window else 0.0,
        "cores": cores, "peak_rss": max(s.rss for s in samples),
        "series": {"t": [round(t, 2) for t in times], "lag": lags, "committed": [s.committed for s in samples],
                   "high": [s.high for s in samples], "rss": [s.rss for s in samples]},
    }
