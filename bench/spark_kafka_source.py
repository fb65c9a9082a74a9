"""The same lakesink.spark job fed by each Kafka source: ``lakesink-kafka``, Spark's own ``kafka``, or
``lakesink-kafka`` with ``rangesOnly=true`` (``ranges``: each write task reads its own offset range, no
record crosses the JVM; the way ``lakesink sink`` reads).

    python -m bench.spark_kafka_source --bootstrap 127.0.0.1:9092 --records 200000

Produces ``--records`` order events (bench/events.py) into a fresh 4-partition topic, then per source
runs, in a process of its own, ``readStream.format(<source>)`` → ``lakesink.spark.write_stream``
(JSON into a local directory, ``availableNow``: one batch, the whole topic) and prints one JSON line:
the query's wall seconds, records/s, and the CPU seconds of the job's process tree (driver, JVM,
Python workers) from the query's start to its end, so Spark's start-up is left out. Spark's source
needs its jars (``make install`` fetches them into .tools/maven/spark-kafka/); docs/library.md
quotes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.kafka_io import create_topic, produce_data_set
from bench.processes import cpu_seconds

SOURCES = ("lakesink-kafka", "kafka", "ranges")
SPARK_KAFKA_JARS = Path(__file__).resolve().parents[1] / ".tools" / "maven" / "spark-kafka"
PARTITIONS = 4


def run_job(source: str, bootstrap: str, topic: str, out: Path) -> dict[str, object]:
    """Write the topic once through ``source``; the query's wall and CPU seconds."""
    import lakesink.spark
    from lakesink.adapters.spark.session import create_session

    jars = ",".join(str(jar) for jar in sorted(SPARK_KAFKA_JARS.glob("*.jar")))
    spark = create_session("local[2]", app_name=f"bench-{source}", ui_enabled=False,
                           conf={"spark.jars": jars} if source == "kafka" else {})
    try:
        lakesink.spark.register(spark)
        reader = spark.readStream.format("lakesink-kafka" if source == "ranges" else source)
        if source == "ranges":
            reader = reader.option("rangesOnly", "true")
        records = (reader.option("kafka.bootstrap.servers", bootstrap)
                   .option("subscribe", topic).option("startingOffsets", "earliest").load())
        config = {"name": f"bench-{uuid.uuid4().hex[:8]}", "connect.local.root": str(out),
                  "connect.local.kcql": f"INSERT INTO out:data SELECT * FROM {topic} STOREAS `JSON` "
                                        "PROPERTIES('flush.count'=100000)",
                  "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                  "value.converter.schemas.enable": "false",
                  "key.converter": "org.apache.kafka.connect.storage.StringConverter"}
        if source == "ranges":  # the tasks read their ranges themselves
            config["bootstrap.servers"] = bootstrap
        (out / "out").mkdir(parents=True)
        cpu_before, started = cpu_seconds(os.getpid()), time.perf_counter()
        query = lakesink.spark.write_stream(records, config, checkpoint_location=str(out / "ck"),
                                            trigger={"availableNow": True})
        query.awaitTermination()
        seconds, cpu = time.perf_counter() - started, cpu_seconds(os.getpid()) - cpu_before
        if query.exception() is not None:
            raise RuntimeError(str(query.exception()))
    finally:
        spark.stop()
    written = sum(len(path.read_bytes().splitlines()) for path in (out / "out").rglob("*.json"))
    return {"source": source, "records": written, "query_s": round(seconds, 2), "cpu_s": round(cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers")
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--job", choices=SOURCES, help=argparse.SUPPRESS)  # one measured run (a child process)
    parser.add_argument("--topic", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        with tempfile.TemporaryDirectory(prefix="bench-spark-kafka-") as out:
            print(json.dumps(run_job(args.job, args.bootstrap, args.topic, Path(out))), flush=True)
        return
    topic = f"spark-kafka-bench-{uuid.uuid4().hex[:8]}"
    create_topic(args.bootstrap, topic, PARTITIONS)
    data = produce_data_set(args.bootstrap, topic, records=args.records, partitions=PARTITIONS)
    for source in SOURCES:
        child = subprocess.run([sys.executable, "-m", "bench.spark_kafka_source", "--bootstrap", args.bootstrap,
                                "--job", source, "--topic", topic], capture_output=True, text=True, check=True)
        result = json.loads(child.stdout.strip().splitlines()[-1])
        assert result["records"] == data.records, f"{source} wrote {result['records']} records"
        result["records_per_s"] = round(result["records"] / result["query_s"])
        result["cpu_us_per_record"] = round(1e6 * result["cpu_s"] / result["records"], 1)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
