"""kill -9 a user's Spark job that writes through lakesink.spark; every kept record lands exactly once.

The job is examples/filter_enrich.py, run as its user runs it (``python examples/filter_enrich.py``):
the ``lakesink-kafka`` source with Spark's option names, or Spark's own ``kafka`` source (its jars of
tools/spark-kafka/ given with ``--jars``, as a Spark user's job has them), a transformation (JSON parsed, orders
still only PLACED dropped, a join with a static table, a computed column) and
``lakesink.spark.write_stream`` to Parquet on S3 (moto) partitioned by the joined country name.
While a producer trickles orders, the job's whole process group (driver, JVM, Python workers) is
SIGKILLed in the phases of tests/support/kill_runs.py (start-up, right after a data object
appeared, right after a committed batch), 10 times; one restart begins without its checkpoint.
``make test-reliability`` runs it (``make test`` runs the simulation of a DataFrame sink crashed after
every store call instead, tests/unit/application/test_simulation.py). A last run with ``--available-now`` writes the rest and
stops. Read back with boto3 + pyarrow: every kept order once, none of the dropped ones, each row
enriched right, and each partition's lock at its last kept offset.
Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import io
import json
import os
import random
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakesink.adapters.demo.kafka import kafka_contents
from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.application.demo.output import is_data_key
from tests.conftest import unique_name
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit
from tests.support.order_sink import data_keys, order_chunks
from tests.support.reliability import FULL, kills, record_cell
from tests.support.sink_process import GroupProcess
from tests.support.spark_kafka_source import spark_kafka_jars, spark_kafka_missing_reason

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.s3, pytest.mark.reliability, pytest.mark.timeout(900)]
if not FULL:  # 80 s even at one kill per phase: `make test`'s 15 minutes leave it to `make test-reliability`
    pytestmark.append(pytest.mark.skip(reason="make test-reliability runs it"))

KILLS = kills(sample=3, full=10)
CHUNK = 10  # orders a second
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "filter_enrich.py"
PREFIX = "orders"
COUNTRY_NAMES = {"DE": "Germany", "FR": "France", "GB": "United Kingdom", "US": "United States", "CA": "Canada",
                 "JP": "Japan"}


@pytest.mark.parametrize("source", ["lakesink-kafka", "kafka"])
def test_a_user_job_killed_with_sigkill_at_random_moments_stores_every_kept_record_exactly_once(
    source: str, kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    spark_env = spark_job_env(source)
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    plan = KillPlan.draw(random.Random(seed), KILLS)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {plan.forget_checkpoint_before}")

    topic, bucket, name = unique_name("lib-crash"), unique_name("lib-crash"), unique_name("lib-job")
    moto.create_bucket(bucket)
    output = moto.bucket(bucket)
    checkpoint = tmp_path / "checkpoint"
    command = [sys.executable, str(EXAMPLE), "--bootstrap", kafka.bootstrap_servers, "--topic", topic,
               "--bucket", bucket, "--prefix", PREFIX, "--endpoint", moto.url, "--region", moto.endpoint.region,
               "--checkpoint", str(checkpoint), "--name", name, "--source", source]
    credentials = {"AWS_ACCESS_KEY_ID": moto.endpoint.access_key, "AWS_SECRET_ACCESS_KEY": moto.endpoint.secret_key,
                   **spark_env}
    producer = TrickleProducer(order_chunks(kafka, topic, seed, CHUNK))
    producer.start()

    started = time.monotonic()
    landed = plan.run(
        tmp_path, tmp_path, checkpoint,
        lambda: data_keys(output),
        launch=lambda log: GroupProcess(command, log, credentials),
    )
    produced = producer.stop()  # raises what producing raised
    final = GroupProcess([*command, "--available-now"], tmp_path / "final.log", credentials)
    assert final.wait(timeout_s=240) == 0, final.tail()
    total_s = time.monotonic() - started
    print(f"{KILLS} kills; {produced} records; total {total_s:.0f} s; kills landed: {landed}")

    kept = {position: record for position, record in kafka_contents(kafka.bootstrap_servers, topic).items()
            if record.value["status"] != "PLACED"}
    rows = [row for item in output.list(f"{PREFIX}/") if is_data_key(item.key)
            for row in pq.read_table(io.BytesIO(output.read(item.key))).to_pylist()]
    stored = sorted(row["order_id"] for row in rows)
    assert len(stored) == len(set(stored)), f"seed {seed}: orders stored twice"
    assert stored == sorted(record.value["order_id"] for record in kept.values()), f"seed {seed}: orders lost"
    for row in rows:
        assert row["country_name"] == COUNTRY_NAMES[row["country"]] and row["status"] != "PLACED"
    last: dict[int, int] = {}
    for _topic, partition, offset in kept:
        last[partition] = max(offset, last.get(partition, -1))
    locks = f".indexes/{name}/.locks/Topic({topic})/"
    committed = {int(item.key[len(locks):].removesuffix(".lock")): json.loads(output.read(item.key))["committedOffset"]
                 for item in output.list(locks)}
    assert {p: offset for p, offset in committed.items() if offset is not None} == last
    assert_anchored_phases_hit(landed)
    record_cell("kill -9", test="test_library_kill9",
                target=f"a user's Spark job (examples/filter_enrich.py, source {source}): filter + join, "
                "lakesink.spark.write_stream, PARQUET + PARTITIONBY, S3 (moto)", kills=KILLS,
                records=produced, seconds=total_s,
                outcome="every kept offset once; restarts resumed from the checkpoint or, without it, the index")


def spark_job_env(source: str) -> dict[str, str]:
    """The job's environment for ``source``: Spark's Kafka source's jars on its classpath (skips without them)."""
    if source != "kafka":
        return {}
    reason = spark_kafka_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    jars = ",".join(str(jar) for jar in spark_kafka_jars())
    return {"PYSPARK_SUBMIT_ARGS": f"--jars {jars} pyspark-shell"}
