"""The benchmark run: services up, data produced, each chosen scenario measured and checked."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from bench import aiven_runs, iceberg_connect_runs, quix_runs, spark_job_runs
from bench.kafka_io import DataSet, create_topic, produce_data_set
from bench.lakesink_runs import (
    FLUSH_COUNT,
    MEMORY_PARTITIONS,
    MEMORY_SCENARIO,
    SINK_SCENARIOS,
    SMT_SCENARIO,
    TABLE_SCENARIOS,
    SinkScenario,
    bucket_of,
    run_restore,
    run_sink,
)
from bench.processes import Children, cpu_seconds, tree_rss
from bench.results import OK, Result, failed
from bench.services import Broker, S3Server, start_broker, start_moto
from tests.support.iceberg_rest import IcebergRestServer, iceberg_rest_missing_reason

CONSUME = "consume"
PRODUCE = "produce"
ENCODE = {s.name: f"encode-{s.name[5:]}" for s in SINK_SCENARIOS}
DEFAULT = (CONSUME, PRODUCE, *ENCODE.values(), *(s.name for s in (*SINK_SCENARIOS, *TABLE_SCENARIOS)),
           *quix_runs.SCENARIOS, *spark_job_runs.SCENARIOS, *aiven_runs.SCENARIOS, *iceberg_connect_runs.SCENARIOS,
           "restore")
ALL = (*DEFAULT, SMT_SCENARIO.name, MEMORY_SCENARIO.name)
"""``sink-memory`` is chosen by name only: it produces a second, 64-partition data set; so is
``sink-parquet-smt`` (sink-parquet behind three transforms)."""
TOPIC = "orders"
SCALING_SPLIT = FLUSH_COUNT
"""``range.split.offsets`` of the scaling runs: a multiple of flush.count adds no file, and
``--records 300000`` gives six chunks, three rounds of two tasks on local[2]."""
MEMORY_TOPIC = "orders-zones"


class Run:
    """One invocation of the harness: the children, the services, the data set and the results."""

    def __init__(self, args: argparse.Namespace, children: Children, work: Path, deadline: float) -> None:
        self.args = args
        self.children = children
        self.work = work
        self.deadline = deadline
        self.broker: Broker | None = None
        self.s3: S3Server | None = None
        self.rest: IcebergRestServer | None = None
        """Iceberg's REST catalog on the S3 server, started for the first scenario with an Iceberg table."""
        self.results: list[Result] = []
        """Finished scenarios so far (a timeout still reports these)."""
        self.reported = False

    def _remaining(self) -> float:
        return max(1.0, self.deadline - time.monotonic())

    def _services(self, partitions: int, topic: str) -> DataSet:
        self.broker = start_broker(self.children, records=self.args.records, kind=self.args.broker)
        self.args.broker_kind = self.broker.kind  # in the results file: which broker "auto" chose
        self.s3 = start_moto(self.children)
        print(f"bench: {self.broker.kind} at {self.broker.bootstrap}, moto at {self.s3.endpoint.url}", flush=True)
        return self._produce(topic, self.broker.fixed_partitions or partitions)

    def _produce(self, topic: str, partitions: int, zones: int = 0) -> DataSet:
        assert self.broker is not None
        if self.broker.fixed_partitions is None:  # the mock cannot CreateTopics; it auto-creates them
            create_topic(self.broker.bootstrap, topic, partitions)
        data = produce_data_set(self.broker.bootstrap, topic, records=self.args.records, partitions=partitions,
                                zones=zones)
        print(f"bench: produced {data.records:,} records ({data.value_bytes / 1e6:.1f} MB of JSON values, "
              f"{data.records - self.args.records} closing records) over {partitions} partitions of {topic} in "
              f"{data.produce_seconds:.1f} s", flush=True)
        return data

    def all(self) -> list[Result]:
        """Every chosen scenario, in an order where each one's inputs exist (restore after sink-avro)."""
        data = self._services(self.args.partitions, TOPIC)
        assert self.broker is not None and self.s3 is not None
        results = self.results
        for name in ALL:
            if name not in self.args.chosen:
                continue
            print(f"bench: running {name} ...", flush=True)
            cpu_before = self._services_cpu()
            result = self._one(name, data, results)
            result.extra["services_rss_after"] = self._services_rss()
            _note_services_cpu(result, cpu_before, self._services_cpu())
            results.append(result)
            print(f"bench: {name}: {result.status} "
                  f"{'' if result.rate is None else f'{result.rate:,.0f} records/s '}{result.note}", flush=True)
        _pick_ceilings(results)
        return results

    def _one(self, name: str, data: DataSet, done: list[Result]) -> Result:
        assert self.broker is not None and self.s3 is not None
        bootstrap, endpoint = self.broker.bootstrap, self.s3.endpoint
        if name == CONSUME:
            return self._consume(data)
        if name == PRODUCE:
            return self._produce_ceiling(data)
        if name == MEMORY_SCENARIO.name:
            return self._memory()
        sink = next((s for s in (*SINK_SCENARIOS, *TABLE_SCENARIOS, SMT_SCENARIO) if s.name == name), None)
        if sink is not None:
            rest = self._rest_catalog() if sink.table == "ICEBERG" else None
            return run_sink(self.children, sink, data, bootstrap=bootstrap, endpoint=endpoint, work=self.work,
                            master=self.args.master, timeout_s=self._remaining(), rest=rest)
        if name in iceberg_connect_runs.SCENARIOS:
            return iceberg_connect_runs.run_iceberg_connect(
                self.children, data, bootstrap=bootstrap, endpoint=endpoint, catalog=self._rest_catalog(),
                why_no_catalog=iceberg_rest_missing_reason(), timeout_s=self._remaining())
        encoded = next((s for s in SINK_SCENARIOS if ENCODE[s.name] == name), None)
        if encoded is not None:
            return self._encode(name, encoded, data)
        if name in quix_runs.SCENARIOS:
            return quix_runs.run_quix(self.children, name, data, bootstrap=bootstrap, endpoint=endpoint,
                                      timeout_s=self._remaining())
        if name in spark_job_runs.SCENARIOS:
            return spark_job_runs.run_spark_job(self.children, name, data, bootstrap=bootstrap, endpoint=endpoint,
                                                work=self.work, master=self.args.master, timeout_s=self._remaining())
        if name in aiven_runs.SCENARIOS:
            return aiven_runs.run_aiven(self.children, name, data, bootstrap=bootstrap, endpoint=endpoint,
                                        timeout_s=self._remaining())
        avro = next((r for r in done if r.scenario == "sink-avro"), None)
        if avro is None or avro.status != OK:
            return failed("restore", data.records, data.value_bytes, "needs a successful sink-avro run to restore")
        return run_restore(self.children, data, source_bucket=bucket_of("sink-avro"), bootstrap=bootstrap,
                           endpoint=endpoint, work=self.work, master=self.args.master, timeout_s=self._remaining(),
                           create_target=self.broker.fixed_partitions is None)

    def _rest_catalog(self) -> IcebergRestServer | None:
        """The run's REST catalog (its tables on the run's S3 server), or None without its jars: lakesink's
        ``sink-iceberg`` then commits through an SQLite catalog, and the Iceberg connector cannot run."""
        assert self.s3 is not None
        if self.rest is None and iceberg_rest_missing_reason() is None:
            self.rest = IcebergRestServer(s3_endpoint=self.s3.endpoint.url)
            self.rest.start()
        return self.rest

    def close(self) -> None:
        """Stop what the run started outside its children (the REST catalog)."""
        if self.rest is not None:
            self.rest.close(keep_log_in=self.work / "iceberg-rest.log")
            self.rest = None

    def _memory(self) -> Result:
        """``sink-memory`` on its own topic: 64 partitions, events with ``--zones`` (50) ``zone`` values."""
        assert self.broker is not None and self.s3 is not None
        if self.broker.fixed_partitions is not None:
            return failed(MEMORY_SCENARIO.name, self.args.records, 0,
                          f"needs a {MEMORY_PARTITIONS}-partition topic; the {self.broker.kind} broker has "
                          f"{self.broker.fixed_partitions} partitions per topic")
        zones = self.args.zones
        data = self._produce(MEMORY_TOPIC, MEMORY_PARTITIONS, zones=zones)
        result = run_sink(self.children, MEMORY_SCENARIO, data, bootstrap=self.broker.bootstrap,
                          endpoint=self.s3.endpoint, work=self.work, master=self.args.master,
                          timeout_s=self._remaining())
        writers = MEMORY_PARTITIONS * zones
        if result.status == OK and result.extra["objects"] < writers:  # a writer that never opened held nothing
            return failed(MEMORY_SCENARIO.name, data.records, data.value_bytes,
                          f"only {result.extra['objects']} objects for {writers} writers: raise --records so every "
                          f"partition sees all {zones} zones", extra=result.extra)
        return result

    def _consume(self, data: DataSet) -> Result:
        assert self.broker is not None
        argv = [sys.executable, "-m", "bench.kafka_io", "--bootstrap", self.broker.bootstrap, "--topic", data.topic,
                "--partitions", str(data.partitions), "--expected", str(data.records)]
        return self._client_ceiling(CONSUME, argv, data, "consumed",
                                    "confluent-kafka, assign all partitions, count only; timed from assign; consumer")

    def _produce_ceiling(self, data: DataSet) -> Result:
        """The raw-produce ceiling (bench/produce_ceiling.py) into a topic of its own: what a restore
        is compared with."""
        assert self.broker is not None
        argv = [sys.executable, "-m", "bench.produce_ceiling", "--bootstrap", self.broker.bootstrap,
                "--topic", f"{data.topic}-produced", "--partitions", str(data.partitions),
                "--records", str(data.records), *(["--create"] if self.broker.fixed_partitions is None else [])]
        return self._client_ceiling(PRODUCE, argv, data, "produced",
                                    "confluent-kafka, one producer, linger.ms 20, acks=all, no transactions; "
                                    "timed from the first produce to the flush; producer")

    def _client_ceiling(self, name: str, argv: list[str], data: DataSet, verb: str, how: str) -> Result:
        """A Kafka client's ceiling, measured in its own process, which prints ``{"records", "seconds"}``."""
        run = self.children.measure(name, argv, timeout_s=self._remaining())
        if run.returncode != 0:
            return failed(name, data.records, data.value_bytes, f"{verb} {run.stdout.strip() or 'nothing'}")
        seconds = json.loads(run.stdout)["seconds"]
        return Result(name, OK, data.records, data.value_bytes, seconds, run.peak_rss,
                      f"{how} {sum(run.cpu_seconds.values()):.1f} CPU s", extra={"cpu_seconds": run.cpu_seconds})

    def _encode(self, name: str, sink: SinkScenario, data: DataSet) -> Result:
        argv = [sys.executable, "-m", "bench.ceilings", *sink.encode_args, "--records", str(data.records)]
        run = self.children.measure(name, argv, timeout_s=self._remaining())
        if run.returncode != 0:
            return failed(name, data.records, 0, f"exit code {run.returncode} (log: {self.work}/{name}.log)")
        measured = json.loads(run.stdout)
        records = measured["records"]
        value_bytes = round(data.value_bytes * records / data.records)
        return Result(name, OK, records, value_bytes, measured["seconds"], run.peak_rss,
                      f"lakesink writer only ({' '.join(sink.encode_args)}), one core, input already converted, "
                      f"{measured['output_bytes'] / 1e6:.1f} MB out")

    def _services_cpu(self) -> dict[str, float]:
        return {name: cpu_seconds(server.process.pid)
                for name, server in (("broker", self.broker), ("s3", self.s3)) if server is not None}

    def _services_rss(self) -> dict[str, int]:
        return {name: tree_rss(server.process.pid)
                for name, server in (("broker", self.broker), ("s3", self.s3)) if server is not None}

    def scaling(self) -> list[Result]:
        """One huge partition backfilled with local[1] then local[2] (JSON passthrough).

        The partition's range is split into chunks of :data:`SCALING_SPLIT` offsets, one Spark
        task each, so local[2] can write two chunks at once; both runs write the same objects.
        """
        data = self._services(1, f"{TOPIC}-one-partition")
        assert self.broker is not None and self.s3 is not None
        sink = dataclasses.replace(
            SINK_SCENARIOS[0], settings=(("connect.s3.range.split.offsets", str(SCALING_SPLIT)),)
        )
        results = self.results
        for master in ("local[1]", "local[2]"):
            label = f"scaling-{master.replace('[', '').replace(']', '')}"
            print(f"bench: running {label} ...", flush=True)
            results.append(run_sink(self.children, sink, data, bootstrap=self.broker.bootstrap,
                                    endpoint=self.s3.endpoint, work=self.work, master=master,
                                    timeout_s=self._remaining(), label=label))
        one, two = results
        key = "records_per_s_after_spark_start"
        if one.rate and two.rate:
            # Compare without Spark's start-up when the sink logged it: start-up is not the backfill.
            speedup = two.extra.get(key, two.rate) / one.extra.get(key, one.rate)
            verdict = ("more cores helped" if speedup > 1.15 else
                       f"more cores did NOT help although the range was split every {SCALING_SPLIT:,} offsets")
            two.note += f"; local[2]/local[1] = {speedup:.2f} (after start-up): {verdict}"
        return results

    def keep_alive(self) -> None:
        """``--keep``: print where the services are and wait for Ctrl-C (the global timeout still applies)."""
        assert self.broker is not None and self.s3 is not None
        print(f"bench: --keep: broker {self.broker.bootstrap} (pid {self.broker.process.pid}), "
              f"S3 {self.s3.endpoint.url} (pid {self.s3.process.pid}); Ctrl-C to stop", flush=True)
        while True:
            time.sleep(3600)


def _note_services_cpu(result: Result, before: dict[str, float], after: dict[str, float]) -> None:
    """The broker's and S3 server's CPU seconds during a run: the share of the cores they took."""
    used = {name: round(after[name] - before.get(name, 0.0), 2) for name in after}
    result.extra["services_cpu_seconds"] = used
    if result.status == OK and "cpu_seconds" in result.extra:
        result.note += f"; broker {used.get('broker', 0):.1f} + S3 {used.get('s3', 0):.1f} CPU s"


def _pick_ceilings(results: list[Result]) -> None:
    """A sink is compared with the slower of its two ceilings (consume, or its format's encode)."""
    by_name = {r.scenario: r for r in results}
    for result in results:
        if result.ceiling is None or not result.scenario.startswith("sink-"):
            continue
        candidates = [by_name[n] for n in (CONSUME, result.ceiling) if n in by_name and by_name[n].rate]
        result.ceiling = min(candidates, key=lambda r: r.rate or 0).scenario if candidates else None
