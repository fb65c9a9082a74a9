"""Crashes side by side (issue 34): lakesink and the plain Spark job (bench/spark_job_app.py) each
SIGKILLed five times at seeded random moments while orders trickle into one topic, restarted in
between, drained by a final clean run, then judged by a reader that only lists the prefix.

Both sinks read the same topic (4 partitions, Apache Kafka of the ``kafka`` fixture) and write
Parquet partitioned by country to moto's S3 server on 127.0.0.1 (s3a speaks to it as to AWS; moto
is the store the other kill tests use). lakesink runs as ``lakesink sink`` on the orders config of
test_kill9.py with the kill phases of tests/support/kill_runs.py; the Spark job runs with
``--trigger 1`` and is killed 0-3 s after a new object of its own appears under its prefix (mid
micro-batch: part files uploaded, the batch not yet in ``_spark_metadata``), the first kill during
start-up. Its checkpoint is never deleted: that would be a different failure.

The judge is tests/support/prefix_audit.py (boto3 + pyarrow over every object of the prefix):
missing and duplicated offsets, unreadable objects, objects outside the commit record. lakesink
must show zero missing and zero duplicated; the Spark job must miss nothing, and its duplicates
are recorded as measured, both as a lister sees them and through ``_spark_metadata``.
The Aiven peer (bench/aiven_peer.py: Aiven's commons driven as Aiven's ``S3SinkTask`` drives them, on
a real Kafka Connect worker; the connector itself is not on Maven Central) gets its own topic and
bucket: jsonl files named ``{{topic}}-{{partition}}-{{start_offset}}.jsonl`` with ``key,value,offset``
fields, files written and offsets committed every second (``offset.flush.interval.ms``), a 6 s
consumer session (so a restarted worker gets the partitions of the killed one in seconds), the worker
killed with its launcher (one process group) once during start-up and four times 0-3 s after a new or
rewritten object appeared, then drained until its group committed the whole topic. It must miss nothing
(Kafka Connect commits offsets only after a flush); its duplicates are recorded as measured.
Reproduce with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer

from lakesink.adapters.demo.kafka import kafka_contents
from lakesink.adapters.demo.s3 import MotoS3, S3Bucket
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.kill_runs import Kill, KillPlan, TrickleProducer, finish_after_kills
from tests.support.order_sink import PREFIX, data_keys, order_chunks, orders_config
from tests.support.prefix_audit import PrefixCount, aiven_coordinates, count_prefix, spark_committed_keys
from tests.support.reliability import FULL, record_cell
from tests.support.sink_process import GroupProcess

pytestmark = [
    pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(900),
    pytest.mark.skipif(not FULL, reason="runs in make test-reliability (LAKESINK_RELIABILITY=full)"),
]

KILLS = 5
CHUNK = 100  # orders a second while the sinks are killed and restarted
REPO = Path(__file__).resolve().parents[3]
SPARK_PREFIX = "spark-job/"
SPARK_JARS = ",".join(str(jar) for folder in ("spark-kafka", "hadoop-aws")
                      for jar in sorted((REPO / ".tools" / "maven" / folder).glob("*.jar")))


def spark_job(kafka: EmbeddedKafka, moto: MotoS3, topic: str, bucket: str, checkpoint: Path, trigger: str,
              log: Path) -> GroupProcess:
    """bench/spark_job_app.py as its own process group, Parquet partitioned by country."""
    command = [sys.executable, str(REPO / "bench" / "spark_job_app.py"), "--bootstrap", kafka.bootstrap_servers,
               "--topic", topic, "--path", f"s3a://{bucket}/{SPARK_PREFIX.rstrip('/')}", "--checkpoint",
               str(checkpoint), "--endpoint", moto.url, "--jars", SPARK_JARS, "--partition-by", "country",
               "--trigger", trigger]
    endpoint = moto.endpoint
    return GroupProcess(command, log, env={"AWS_ACCESS_KEY_ID": endpoint.access_key,
                                           "AWS_SECRET_ACCESS_KEY": endpoint.secret_key})


def spark_plan(rng: random.Random) -> KillPlan:
    """Start-up once (5-15 s after launch), then 0-3 s after a new object of the run appeared."""
    kills = [Kill("start-up", round(rng.uniform(5.0, 15.0), 2))]
    kills += [Kill("uploads", round(rng.uniform(0.0, 3.0), 2)) for _ in range(KILLS - 1)]
    return KillPlan(tuple(kills), forget_checkpoint_before=KILLS)  # never: the checkpoint survives


def row(sink: str, count: PrefixCount, view: str, seconds: float, seed: int, kills: int | str = KILLS) -> None:
    """Print and record one row of the table (``kills`` a text for a second view of the same run)."""
    print(f"{sink} ({view}): {count}")
    record_cell("crashes side by side", sink=sink, view=view, kills=kills, seconds=seconds, seed=seed,
                **count.facts())


def test_lakesink_and_the_plain_spark_job_killed_five_times_as_a_prefix_lister_sees_them(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    lakesink_plan, peer_plan = KillPlan.draw(rng, KILLS), spark_plan(rng)
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    topic, bucket, name = unique_name("peers"), unique_name("peers"), unique_name("peers-sink")
    config = orders_config(tmp_path, name, topic, kafka, moto, bucket)
    output = moto.bucket(bucket)
    lakesink_dir, spark_dir = tmp_path / "lakesink", tmp_path / "spark"
    lakesink_dir.mkdir()
    spark_dir.mkdir()
    spark_checkpoint = spark_dir / "checkpoint"
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()

    started = time.monotonic()
    lakesink_plan.run(config, lakesink_dir, lakesink_dir / "checkpoint", lambda: data_keys(output))
    lakesink_kills_s = time.monotonic() - started
    peer_plan.run(config, spark_dir, spark_checkpoint, lambda: spark_keys(output),
                  launch=lambda log: spark_job(kafka, moto, topic, bucket, spark_checkpoint, "1", log))
    produced = producer.stop()
    spark_kills_s = time.monotonic() - started - lakesink_kills_s

    finish_after_kills(config, lakesink_dir, lakesink_dir / "checkpoint")
    drain = spark_job(kafka, moto, topic, bucket, spark_checkpoint, "available-now", spark_dir / "final.log")
    assert drain.wait(timeout_s=240) == 0, drain.tail()
    print(f"{produced} records; lakesink kills {lakesink_kills_s:.0f} s, Spark job kills {spark_kills_s:.0f} s, "
          f"total {time.monotonic() - started:.0f} s")

    expected = [(partition, offset) for _topic, partition, offset in kafka_contents(kafka.bootstrap_servers, topic)]
    assert len(expected) == produced
    lakesink = count_prefix(output, f"{PREFIX}/", expected)
    spark_log = spark_committed_keys(output, SPARK_PREFIX)
    lister = count_prefix(output, SPARK_PREFIX, expected, spark_log)
    spark_view = count_prefix(output, SPARK_PREFIX, expected, spark_log, only_committed=True)
    row("lakesink", lakesink, "listing the prefix", lakesink_kills_s, seed)
    row("plain Spark job", lister, "listing the prefix", spark_kills_s, seed)
    row("plain Spark job", spark_view, "through _spark_metadata", spark_kills_s, seed, kills="same run")

    assert (lakesink.missing, lakesink.duplicated, lakesink.unreadable) == (0, 0, 0), f"seed {seed}: {lakesink}"
    assert lister.missing == 0, f"seed {seed}: the Spark job lost offsets: {lister}"
    assert spark_view.missing == 0, f"seed {seed}: Spark's committed view lacks offsets: {spark_view}"


AIVEN_FLUSH_MS = 1_000
AIVEN_DRAIN_S = 240.0


def aiven_peer(kafka: EmbeddedKafka, moto: MotoS3, topic: str, bucket: str, plugins: Path, log: Path) -> GroupProcess:
    """bench/aiven_app.py --continuous with the worker JVM in its process group (a kill takes both)."""
    from bench.aiven_runs import aiven_command

    argv, env = aiven_command(f"crash-{topic}", bootstrap=kafka.bootstrap_servers, topic=topic, bucket=bucket,
                              endpoint=moto.endpoint, flush_ms=AIVEN_FLUSH_MS, plugin_path=plugins,
                              keep_log=log.with_suffix(".connect.log"))
    # a 6 s session: a killed worker's partitions go to the next one in seconds, not Kafka's 45 s
    return GroupProcess([*argv, "--continuous", "--one-group", "--output-fields", "key,value,offset",
                         "--session-timeout-ms", "6000"], log,
                        env={key: env[key] for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")})


def committed_through(consumer: Consumer, topic: str, ends: dict[int, int]) -> bool:
    """Whether the group ``consumer`` names committed every partition of ``topic`` up to ``ends`` (next offsets)."""
    from bench.streaming_probes import group_committed

    done = group_committed(consumer, topic, max(ends) + 1)
    return all(done[partition] >= end for partition, end in ends.items())


def test_the_aiven_peer_killed_five_times_as_a_prefix_lister_sees_it(
    kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    from bench.aiven_runs import install

    problem = install(tmp_path / "plugins")
    if problem is not None:
        pytest.skip(problem)
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    plan = spark_plan(rng)  # the same shape: once in start-up, then 0-3 s after a new object
    print(f"\nLAKESINK_CRASH_SEED={seed}")
    topic, bucket = unique_name("aiven-peer"), unique_name("aiven-peer")
    moto.create_bucket(bucket)
    output = moto.bucket(bucket)
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()
    started = time.monotonic()

    def launch(log: Path) -> GroupProcess:
        return aiven_peer(kafka, moto, topic, bucket, tmp_path / "plugins", log)

    # a replayed file keeps its name (its start offset) and may change size: the anchor is key and size
    plan.run(tmp_path / "no-config", tmp_path, tmp_path / "no-checkpoint",
             lambda: {(item.key, item.size) for item in output.list()}, launch=launch)
    produced = producer.stop()
    kills_s = time.monotonic() - started
    expected = [(partition, offset) for _topic, partition, offset in kafka_contents(kafka.bootstrap_servers, topic)]
    assert len(expected) == produced
    ends: dict[int, int] = {}
    for partition, offset in expected:
        ends[partition] = max(ends.get(partition, 0), offset + 1)
    drain = launch(tmp_path / "final.log")
    assert drain.wait_for(lambda: drain.logged("running"), 120), drain.tail()
    group = Consumer({"bootstrap.servers": kafka.bootstrap_servers, "group.id": f"connect-crash-{topic}",
                      "enable.auto.commit": False})  # reads the connector's group's offsets, never joins it
    try:
        drained = drain.wait_for(lambda: committed_through(group, topic, ends), AIVEN_DRAIN_S)
    finally:
        group.close()
    os.kill(drain.process.pid, signal.SIGTERM)  # the launcher stops its worker cleanly
    assert drain.wait(timeout_s=60) == 0, drain.tail()
    assert drained, f"the Aiven peer did not commit the topic within {AIVEN_DRAIN_S:.0f} s:\n{drain.tail()}"
    print(f"{produced} records; Aiven peer kills {kills_s:.0f} s, total {time.monotonic() - started:.0f} s")

    count = count_prefix(output, "", expected, suffix=".jsonl", rows=aiven_coordinates)
    row("Aiven's commons on Connect", count, "listing the prefix", kills_s, seed)
    assert count.missing == 0, f"seed {seed}: the Aiven peer lost offsets: {count}"


def spark_keys(output: S3Bucket) -> set[str]:
    """The Spark job's objects so far (its uploads anchor): part files and metadata log entries."""
    return {item.key for item in output.list(SPARK_PREFIX)}
