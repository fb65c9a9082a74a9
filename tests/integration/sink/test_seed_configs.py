"""Every connector-config example of the seed documents runs as written, end to end: real Apache
Kafka, ``lakesink sink --once`` or ``lakesink restore --once`` (in process), a moto S3 server, and the
objects (or the restored topic, read_committed) read back with an independent reader (json, pyarrow,
fastavro, gzip + csv, confluent-kafka); each record exactly once.

Each example (tests/integration/sink/seed_examples.py, verbatim, checked against the seed when it is
there) gets only what a deployment adds: ``bootstrap.servers``, the S3 endpoint and credentials
(path-style, as moto serves), unique names, topics and buckets in place of the example's (the session's
broker and store are shared), and the Schema Registry double's URL in place of the example's.

* 000, the Lenses S3 sink page: lines that are only ``...`` ("the rest of your config") are dropped;
  the two fragments without KCQL (Credentials mode, the two error layers) get ``topics`` and a minimal
  JSON KCQL statement; examples that set no converter get the Connect worker's usual defaults
  (JsonConverter with schemas, StringConverter keys). Not run: the ``topics.regex`` /
  ``INSERT INTO $target ... `*` ....`` block (line 86), a template with placeholders and an ellipsis
  inside the statement, not a config.
* 001, the Confluent S3 sink page: every ```json block that is a connector config. Fragments are
  merged onto the page's Basic Configuration; the Basic Configuration and every fragment that leaves
  its TimeBasedPartitioner without partition.duration.ms/path.format/locale/timezone are refused, as
  Confluent refuses them, with one ConfigError naming the four; those fragments then run over the Basic
  Configuration completed by the page's Time-Based Partitioning section (see the section comment).
  The Complete Example runs with its AvroConverter keys and values. Not run: the IAM policy and the
  S3 lifecycle rule (AWS documents, :data:`CONFLUENT_OTHER_BLOCKS`).
* 002, the Aiven S3 *source* page: both configs restore objects laid out for their template.
* 003, the Aiven S3 sink article: the Console example (its doubled-quote typo fixed) and the curl
  example (its lost keys put back), gzip + csv.

Records carry every Connect type where the converter takes schemas (JsonConverter with schemas:
int8..int64, float, double, boolean, string, bytes, decimal, date, time, timestamp, an array, a map,
a nested struct, optional nulls), every Avro type under AvroConverter, and arbitrary bytes under
ByteArrayConverter. :data:`OTHER_SEEDS` names what is not a connector config.
"""

from __future__ import annotations

import base64
import csv
import gzip
import io
import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import fastavro
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from lakesink.application.bootstrap.restore import restore
from lakesink.application.bootstrap.sink import sink_run
from lakesink.application.restore import load_plan
from lakesink.application.sink_settings import sink_settings
from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.config.providers import ResolvedConfig
from lakesink.domain.errors import ConfigError
from tests.conftest import unique_name
from tests.integration.restore.conftest import read_topic
from tests.integration.sink.conftest import MotoS3
from tests.integration.sink.seed_examples import (
    AIVEN_SINK_EXAMPLES,
    AIVEN_SOURCE_EXAMPLES,
    CONFLUENT_EXAMPLES,
    CONFLUENT_OTHER_BLOCKS,
    LENSES_EXAMPLES,
    SEED_000,
    SEED_001,
    SEED_002,
    SEED_003,
)
from tests.support.kafka_broker import ApacheKafka
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SEEDS = Path(__file__).resolve().parents[4] / "shared" / "seeds"
RECORDS = 6
TS = 1_700_000_000_000

OTHER_SEEDS = {
    "004": "Quix Streams FileSink: Python code (a Quix application), not a connector config",
}

# --- the records ----------------------------------------------------------------------------------

CONNECT_SCHEMA = {
    "type": "struct", "name": "com.example.Reading", "version": 1, "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "metadata_id", "type": "string", "optional": False},
        {"field": "customer_id", "type": "int32", "optional": False},
        {"field": "timestamp", "type": "int64", "optional": False},
        {"field": "ts", "type": "string", "optional": False},
        {"field": "i8", "type": "int8", "optional": False},
        {"field": "i16", "type": "int16", "optional": False},
        {"field": "f32", "type": "float", "optional": False},
        {"field": "f64", "type": "double", "optional": False},
        {"field": "ok", "type": "boolean", "optional": False},
        {"field": "blob", "type": "bytes", "optional": False},
        {"field": "price", "type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal",
         "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}},
        {"field": "day", "type": "int32", "optional": False, "name": "org.apache.kafka.connect.data.Date", "version": 1},
        {"field": "clock", "type": "int32", "optional": False, "name": "org.apache.kafka.connect.data.Time",
         "version": 1},
        {"field": "at", "type": "int64", "optional": False, "name": "org.apache.kafka.connect.data.Timestamp",
         "version": 1},
        {"field": "tags", "type": "array", "items": {"type": "string", "optional": False}, "optional": False},
        {"field": "counts", "type": "map", "keys": {"type": "string", "optional": False},
         "values": {"type": "int64", "optional": False}, "optional": False},
        {"field": "inner", "type": "struct", "name": "com.example.Inner", "optional": False,
         "fields": [{"field": "a", "type": "int32", "optional": False}]},
        {"field": "note", "type": "string", "optional": True},
    ],
}

AVRO_SCHEMA = {
    "type": "record", "name": "Reading", "namespace": "com.example",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "metadata_id", "type": "string"},
        {"name": "customer_id", "type": "int"},
        {"name": "timestamp", "type": "long"},
        {"name": "f32", "type": "float"},
        {"name": "f64", "type": "double"},
        {"name": "ok", "type": "boolean"},
        {"name": "blob", "type": "bytes"},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "clock", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "counts", "type": {"type": "map", "values": "long"}},
        {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [{"name": "a", "type": "int"}]}},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}


def expected(i: int) -> dict[str, Any]:
    """Record ``i``'s value as Python data (what every typed reader must give back)."""
    return {
        "id": i, "metadata_id": f"m{i % 2}", "customer_id": 100 + i % 3, "timestamp": TS + i * 3_600_000,
        "ts": f"t{i % 2}", "i8": -i, "i16": 300 + i, "f32": 0.5 + i, "f64": 0.1 * i, "ok": i % 2 == 0,
        "blob": bytes([i, 255 - i]), "price": Decimal(f"{i}.25"), "day": date(2024, 1, 1 + i),
        "clock": time(1, 2, 3, 4000), "at": datetime(2024, 1, 1, i, tzinfo=UTC), "tags": [f"x{i}", "y"],
        "counts": {"k": i}, "inner": {"a": i}, "note": None if i % 2 else f"n{i}",
    }


def connect_json(i: int) -> bytes:
    """Record ``i`` as Kafka's JsonConverter (schemas.enable=true) writes it."""
    value = expected(i)
    unscaled = int(value["price"].scaleb(2))
    payload = {
        **value,
        "blob": base64.b64encode(value["blob"]).decode(),
        "price": base64.b64encode(unscaled.to_bytes(2, "big", signed=True)).decode(),
        "day": (value["day"] - date(1970, 1, 1)).days,
        "clock": 3_723_004,
        "at": int(value["at"].timestamp() * 1000),
    }
    return json.dumps({"schema": CONNECT_SCHEMA, "payload": payload}).encode()


def avro_value(i: int) -> dict[str, Any]:
    value = expected(i)
    return {field["name"]: value[field["name"]] for field in AVRO_SCHEMA["fields"]}


# --- running an example ---------------------------------------------------------------------------


def example_props(text: str, *, topic: str, bucket: str, extra: dict[str, str]) -> dict[str, str]:
    """The example's settings with the deployment's additions (module docstring)."""
    kept = "\n".join(line for line in text.splitlines() if line.strip() != "...")
    props = load_config_text(kept, filename=f"{SEED_000}.properties")
    kcql = props.get("connect.s3.kcql")
    if kcql is not None:
        kcql = re.sub(r"(?i)(insert into\s+)(\w+)", lambda m: m.group(1) + bucket, kcql, count=1)
        props["connect.s3.kcql"] = re.sub(r"(?i)(from\s+)(\w+)", lambda m: m.group(1) + topic, kcql, count=1)
    if "topics" in props:
        props["topics"] = topic
    if "schema.registry.url" in " ".join(props):
        props = {k: extra["registry"] if k.endswith("schema.registry.url") else v for k, v in props.items()}
    return props


def deployment(kafka: ApacheKafka, moto: MotoS3, props: dict[str, str]) -> dict[str, str]:
    """What a deployment adds: the broker, the endpoint, credentials unless the example sets them."""
    added = {
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.custom.endpoint": moto.url,
        "connect.s3.path.style.access": "true",
    }
    if "connect.s3.aws.auth.mode" not in props:
        added |= {"connect.s3.aws.auth.mode": "Credentials", "connect.s3.aws.access.key": "testing",
                  "connect.s3.aws.secret.key": "testing", "connect.s3.aws.region": "us-east-1"}
    return added


def run_example(spark: SparkSession, props: dict[str, str], checkpoint: Path) -> None:
    settings = sink_settings(ResolvedConfig(props))
    sink_run(settings, spark, checkpoint_dir=str(checkpoint), once=True).run(timeout_s=120)


def objects(moto: MotoS3, bucket: str) -> Iterator[tuple[str, bytes]]:
    client = boto3.client("s3", endpoint_url=moto.url, aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            if not item["Key"].startswith(".indexes/"):
                yield item["Key"], client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()


@pytest.fixture(scope="module")
def registry() -> Iterator[SchemaRegistryDouble]:
    with SchemaRegistryDouble() as double:
        yield double


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed documents are not next to the repository")
def test_the_copies_are_the_seeds_blocks_verbatim() -> None:
    seed = (SEEDS / SEED_000).read_text().split("\n")
    for line, text in LENSES_EXAMPLES.items():
        body = text.rstrip("\n").split("\n")
        assert seed[line - 2].strip() == "```properties"
        assert seed[line - 1 : line - 1 + len(body)] == body
        assert seed[line - 1 + len(body)].strip() == "```"
    blocks = sum(1 for row in seed if row.strip() == "```properties")
    assert blocks == len(LENSES_EXAMPLES)


WORKER_DEFAULTS = {  # a Connect worker's usual converters, for examples that set none
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
}
FRAGMENT_KCQL = "INSERT INTO {bucket}:fragment SELECT * FROM {topic} STOREAS `JSON`"


def produced(props: dict[str, str], registry: SchemaRegistryDouble) -> list[ProducedRecord]:
    """The records an example reads: Connect JSON, Confluent Avro or raw bytes, per its value converter."""
    converter = props.get("value.converter", "")
    if converter.endswith("AvroConverter"):
        schema_id = registry.register(AVRO_SCHEMA)
        values = [confluent_avro(schema_id, AVRO_SCHEMA, avro_value(i)) for i in range(RECORDS)]
    elif converter.endswith("ByteArrayConverter"):
        values = [bytes([i, 0, 255]) + b"raw" for i in range(RECORDS)]
    else:
        values = [connect_json(i) for i in range(RECORDS)]
    return [
        ProducedRecord(value, key=f"k{i}".encode(), headers=(("h", b"v"),), timestamp_ms=TS + i, partition=i % 2)
        for i, value in enumerate(values)
    ]


POISON = ProducedRecord(b"not json", key=b"poison", timestamp_ms=TS, partition=0)
"""Produced too where the example has a dead-letter topic: Kafka Connect's per-record poison."""


def read_back(key: str, data: bytes) -> list[Any]:
    """An object's records by an independent reader chosen by its extension."""
    if key.endswith(".parquet"):
        return pq.read_table(io.BytesIO(data)).to_pylist()
    if key.endswith(".avro"):
        return list(fastavro.reader(io.BytesIO(data)))
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.parametrize("line", sorted(LENSES_EXAMPLES), ids=lambda line: f"000-line-{line}")
def test_each_example_of_the_lenses_page_runs_as_written(
    spark: SparkSession, apache_kafka: ApacheKafka, moto_s3: MotoS3, registry: SchemaRegistryDouble,
    tmp_path: Path, line: int,
) -> None:
    topic, bucket = unique_name("seed"), unique_name("seed")
    props = example_props(LENSES_EXAMPLES[line], topic=topic, bucket=bucket, extra={"registry": registry.url})
    if "connect.s3.kcql" not in props:  # a fragment: only its own settings; complete it minimally
        props["connect.s3.kcql"] = FRAGMENT_KCQL.format(bucket=bucket, topic=topic)
    props.setdefault("topics", topic)  # the "..." of a fragment: what the Connect config also holds
    props.setdefault("name", unique_name("seed"))
    props = {**WORKER_DEFAULTS, **props, **deployment(apache_kafka, moto_s3, props)}
    boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    poison = [POISON] if "errors.deadletterqueue.topic.name" in props else []
    apache_kafka.produce(topic, [*produced(props, registry), *poison])

    run_example(spark, props, tmp_path / "checkpoint")

    stored = dict(objects(moto_s3, bucket))
    found = [(key, record) for key, data in stored.items() for record in read_back(key, data)]
    envelope = "'store.envelope'=true" in props["connect.s3.kcql"]
    values = [canonical(record["value"] if envelope else record) for _key, record in found]
    sent = produced(props, registry)
    if props["value.converter"].endswith("ByteArrayConverter"):
        assert sorted(values) == sorted(canonical(record.value) for record in sent)
    else:
        assert sorted(value["id"] for value in values) == list(range(RECORDS))  # each record once
        for value in values:
            assert value == {k: v for k, v in canonical(expected(value["id"])).items() if k in value}
            assert len(value) >= len(AVRO_SCHEMA["fields"])  # every field of the record, no fewer
    if envelope:
        keys = sorted(canonical(record["key"]) for _key, record in found)
        assert keys == sorted(canonical(record.key if record.key is not None else b"")
                              if props["key.converter"].endswith("ByteArrayConverter") else record.key.decode()
                              for record in sent)
    for key, record in found:
        assert PARTITION_KEYS.get(line, lambda _record: "")(record) in key
    if "errors.deadletterqueue.topic.name" in props:  # the poison record reached the dead-letter topic
        assert sum(high - low for low, high in apache_kafka.watermarks(props["errors.deadletterqueue.topic.name"])
                   .values()) > 0


def canonical(value: Any) -> Any:
    """A value as the JSON writer stores it (bytes base64, Decimal a number, Date days since the epoch,
    Time and Timestamp milliseconds), so every reader's result compares with one expectation; Parquet's
    maps (lists of pairs) become objects."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime):
        return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp() * 1000)
    if isinstance(value, date):
        return (value - date(1970, 1, 1)).days
    if isinstance(value, time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return {k: canonical(v) for k, v in value}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def _hour(record: dict[str, Any]) -> str:
    return datetime.fromtimestamp(record["timestamp"] / 1000, UTC).strftime("%Y-%m-%d-%H")


#: What an object's key holds for each of its records, for the examples that partition.
PARTITION_KEYS = {
    22: lambda record: f"/ts={record['ts']}/",
    165: lambda record: f"/metadata_id={record['metadata_id']}/customer_id={record['customer_id']}/ts={_hour(record)}/"
    "wallclock=",
}


# --- seed 001: the Confluent S3 sink page -----------------------------------------------------------
#
# Its ```json blocks are the Basic Configuration (line 44), fragments of a few keys each, and the
# Complete Example (line 309). The page presents every fragment as keys to set in the connector's
# config, so each is merged onto the Basic Configuration (the fragment's keys win). The Basic
# Configuration names TimeBasedPartitioner without partition.duration.ms, path.format, locale and
# timezone, which Confluent refuses (TimeBasedPartitioner#configure); so does every fragment that
# does not bring them, and lakesink refuses each with one ConfigError naming them. Those fragments
# then run over the Basic Configuration completed by the page's own Time-Based Partitioning section
# (line 162), which is what the Complete Example does too.

BASIC_001, TIME_BASED_001, COMPLETE_001 = 44, 162, 309
FLUSH_SIZE_001 = 10_000
"""The Basic Configuration's flush.size: Confluent writes a file only when a topic-partition
reaches it (or a wall-clock rotation seals it), so the runs that wait for it get exactly that many."""
REGIONS, EVENT_TYPES = ("us-east", "eu-west"), ("click", "view")
SCHEMA_001 = {**CONNECT_SCHEMA, "fields": [*CONNECT_SCHEMA["fields"],
              {"field": "region", "type": "string", "optional": False},
              {"field": "event_type", "type": "string", "optional": False}]}
AVRO_SCHEMA_001 = {**AVRO_SCHEMA, "fields": [*AVRO_SCHEMA["fields"], {"name": "region", "type": "string"},
                                             {"name": "event_type", "type": "string"}]}
KEY_SCHEMA = {"type": "string"}


def expected_001(i: int) -> dict[str, Any]:
    """Record ``i`` of seed 001: every Connect type (record ``i % 6``'s values under id ``i``), and the two
    fields its FieldPartitioner reads."""
    return {**expected(i % RECORDS), "id": i, "region": REGIONS[i % 2], "event_type": EVENT_TYPES[i // 2 % 2]}


def avro_value_001(i: int) -> dict[str, Any]:
    return {field["name"]: expected_001(i)[field["name"]] for field in AVRO_SCHEMA_001["fields"]}


def connect_json_001(i: int) -> bytes:
    envelope = json.loads(connect_json(i % RECORDS))
    envelope["payload"] |= {"id": i, "region": REGIONS[i % 2], "event_type": EVENT_TYPES[i // 2 % 2]}
    return json.dumps({"schema": SCHEMA_001, "payload": envelope["payload"]}).encode()


def connect_values(text: str) -> dict[str, str]:
    """A Connect JSON block as the worker takes it: ``{"name", "config"}`` flattened, values as strings."""
    block = json.loads(text)
    config = {"name": block["name"], **block["config"]} if "config" in block else block
    return {key: json.dumps(value) if isinstance(value, bool) else str(value) for key, value in config.items()}


def confluent_example(line: int) -> dict[str, str]:
    """The example of ``line`` as the page presents it: whole, or a fragment over the Basic Configuration."""
    if line in (BASIC_001, COMPLETE_001):
        return connect_values(CONFLUENT_EXAMPLES[line])
    return {**connect_values(CONFLUENT_EXAMPLES[BASIC_001]), **connect_values(CONFLUENT_EXAMPLES[line])}


def confluent_deployment(props: dict[str, str], kafka: ApacheKafka, moto: MotoS3, registry: SchemaRegistryDouble,
                         topics: list[str], bucket: str) -> dict[str, str]:
    """What a deployment adds to a Confluent config: brokers, endpoint, moto's keys (over the page's
    ``${secrets:...}`` references and in place of the default chain, which the session's Spark workers
    cannot be given), the registry double's URL, a unique name, topics, bucket and dead-letter topic."""
    added = {
        "name": unique_name("seed-001"), "topics": ",".join(topics), "s3.bucket.name": bucket,
        "bootstrap.servers": kafka.bootstrap_servers, "store.url": moto.url,
        "aws.access.key.id": "testing", "aws.secret.access.key": "testing",
    }
    if "errors.deadletterqueue.topic.name" in props:
        added["errors.deadletterqueue.topic.name"] = unique_name("seed-001-dlq")
    registry_urls = {key: registry.url for key in props if key.endswith("schema.registry.url")}
    return {**props, **added, **registry_urls}


def _refusal(props: dict[str, str]) -> str | None:
    try:
        sink_settings(ResolvedConfig(props))
    except ConfigError as error:
        return str(error)
    return None


#: The fragments that run over the Basic Configuration as they are (they complete or replace its
#: partitioner); every other fragment runs over it completed by the Time-Based section.
RUN_AS_MERGED_001 = (TIME_BASED_001, 178, 191)
REFUSED_001 = ("partitioner.class=TimeBasedPartitioner needs partition.duration.ms, path.format, locale, timezone; "
               "this config does not set partition.duration.ms, path.format, locale, timezone")


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed documents are not next to the repository")
def test_the_copies_are_the_confluent_aiven_pages_blocks_verbatim() -> None:
    for seed, examples, other in ((SEED_001, CONFLUENT_EXAMPLES, CONFLUENT_OTHER_BLOCKS),
                                  (SEED_002, AIVEN_SOURCE_EXAMPLES, {})):
        rows = (SEEDS / seed).read_text().split("\n")
        for line, text in examples.items():
            body = text.rstrip("\n").split("\n")
            assert rows[line - 2].strip() == "```json"
            assert rows[line - 1 : line - 1 + len(body)] == body
            assert rows[line - 1 + len(body)].strip() == "```"
        starts = [number + 2 for number, row in enumerate(rows) if row.strip() == "```json"]
        assert sorted(starts) == sorted([*examples, *other])
    rows = (SEEDS / SEED_003).read_text().split("\n")
    for line, text in AIVEN_SINK_EXAMPLES.items():
        body = text.rstrip("\n").split("\n")
        assert rows[line - 1 : line - 1 + len(body)] == body


@pytest.mark.parametrize("line", sorted(CONFLUENT_EXAMPLES), ids=lambda line: f"001-line-{line}")
def test_each_confluent_example_is_refused_exactly_where_confluent_refuses_it(line: int) -> None:
    """As the page presents it (plus what a deployment adds), each config is either accepted or
    refused with one error naming every time setting the TimeBasedPartitioner lacks."""
    props = {**confluent_example(line), "bootstrap.servers": "127.0.0.1:9092", "store.url": "http://127.0.0.1:1",
             "aws.access.key.id": "testing", "aws.secret.access.key": "testing"}
    refusal = _refusal(props)
    if line in (COMPLETE_001, *RUN_AS_MERGED_001):  # they set a partitioner's every setting
        assert refusal is None
    else:
        assert refusal is not None and refusal.startswith(REFUSED_001), refusal


TOPIC_KINDS_001 = ("connect-json", "avro", "connect-json-poisoned", "schemaless")


@pytest.fixture(scope="module")
def topics_001(apache_kafka: ApacheKafka, registry: SchemaRegistryDouble) -> dict[str, str]:
    """One topic per kind of record seed 001's examples read, produced once for the module: 10,000
    records in partition 0 (the Basic Configuration's flush.size), a poison record after them where
    a dead-letter topic is configured."""
    value_id, key_id = registry.register(AVRO_SCHEMA_001), registry.register(KEY_SCHEMA)
    names = {kind: unique_name(f"seed-001-{kind}") for kind in TOPIC_KINDS_001}

    def records(kind: str) -> Iterator[ProducedRecord]:
        for i in range(FLUSH_SIZE_001):
            key = f"k{i}"
            if kind == "avro":
                yield ProducedRecord(confluent_avro(value_id, AVRO_SCHEMA_001, avro_value_001(i)),
                                     key=confluent_avro(key_id, KEY_SCHEMA, key), timestamp_ms=TS + i, partition=0)
            elif kind == "schemaless":
                payload = json.loads(connect_json_001(i))["payload"]  # every type schemaless JSON has
                yield ProducedRecord(json.dumps(payload).encode(), key=key.encode(), timestamp_ms=TS + i, partition=0)
            else:
                yield ProducedRecord(connect_json_001(i), key=key.encode(), timestamp_ms=TS + i, partition=0)
        if kind == "connect-json-poisoned":
            yield POISON

    for kind, name in names.items():
        apache_kafka.produce(name, records(kind))
    return names


def _topic_kind_001(props: dict[str, str]) -> str:
    if props.get("value.converter", "").endswith("AvroConverter"):
        return "avro"
    if props.get("value.converter.schemas.enable") == "false":
        return "schemaless"
    return "connect-json-poisoned" if "errors.deadletterqueue.topic.name" in props else "connect-json"


def _clear_of_the_hour() -> None:
    """Wait out the last seconds of a wall-clock hour: a run across it would split its hourly files."""
    now = datetime.now(UTC)
    if now.minute == 59 and now.second >= 40:
        import time as clock
        clock.sleep(61 - now.second)


def read_confluent(key: str, data: bytes) -> list[dict[str, Any]]:
    """A Confluent value file's records (pyarrow, fastavro, json lines), as plain data."""
    if key.endswith(".json"):
        return [json.loads(line) for line in data.splitlines()]
    return read_back(key, data)


def confluent_canonical(key: str, i: int) -> dict[str, Any]:
    """Record ``i`` as a reader of the file gives it back, in :func:`canonical` form; JsonFormat writes
    decimals as base64 of the unscaled bytes (its default json.decimal.format): ``BigInteger#toByteArray``,
    the fewest two's-complement bytes (25 → ``GQ==``, 225 → ``AOE=``; the prices are positive)."""
    value = canonical(expected_001(i))
    if key.endswith(".json"):
        unscaled = int(expected_001(i)["price"].scaleb(2))
        value["price"] = base64.b64encode(unscaled.to_bytes(unscaled.bit_length() // 8 + 1, "big", signed=True)).decode()
    return value


CONFLUENT_RUNS = sorted(line for line in CONFLUENT_EXAMPLES if line != BASIC_001)


@pytest.mark.parametrize("line", CONFLUENT_RUNS, ids=lambda line: f"001-line-{line}")
def test_each_confluent_example_runs_as_the_page_presents_it(
    spark: SparkSession, apache_kafka: ApacheKafka, moto_s3: MotoS3, registry: SchemaRegistryDouble,
    topics_001: dict[str, str], tmp_path: Path, line: int,
) -> None:
    props = confluent_example(line)
    if line not in (COMPLETE_001, *RUN_AS_MERGED_001):  # refused as merged (above): completed by line 162
        props = {**connect_values(CONFLUENT_EXAMPLES[BASIC_001]), **connect_values(CONFLUENT_EXAMPLES[TIME_BASED_001]),
                 **connect_values(CONFLUENT_EXAMPLES[line])}
    props = {**WORKER_DEFAULTS, **props}  # the Basic Configuration sets no converter: the worker's apply
    if line == COMPLETE_001:  # "events,transactions": two topics of six Avro records and a poison each
        topics = [unique_name("seed-001-events"), unique_name("seed-001-transactions")]
        value_id, key_id = registry.register(AVRO_SCHEMA_001), registry.register(KEY_SCHEMA)
        for topic in topics:
            apache_kafka.produce(topic, [
                *(ProducedRecord(confluent_avro(value_id, AVRO_SCHEMA_001, avro_value_001(i)),
                                 key=confluent_avro(key_id, KEY_SCHEMA, f"k{i}"), timestamp_ms=TS + i,
                                 partition=i % 2) for i in range(RECORDS)),
                POISON])
        count = RECORDS
    else:
        topics, count = [topics_001[_topic_kind_001(props)]], FLUSH_SIZE_001
    bucket = unique_name("seed-001")
    props = confluent_deployment(props, apache_kafka, moto_s3, registry, topics, bucket)
    boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    schemaless = _topic_kind_001(props) == "schemaless"  # lakesink infers the Parquet schema of its maps
    _clear_of_the_hour()

    run_example(spark, props, tmp_path / "checkpoint")

    stored = dict(objects(moto_s3, bucket))
    for topic in topics:
        found = [(key, record) for key, data in stored.items() if f"/{topic}/" in key
                 for record in read_confluent(key, data)]
        assert sorted(record["id"] for _key, record in found) == list(range(count))  # each record once
        for key, record in found:
            value = canonical(record)
            if schemaless:  # the JSON payload as produced, value for value
                assert value == json.loads(connect_json_001(record["id"]))["payload"], key
                continue
            want = confluent_canonical(key, record["id"])
            assert value == {k: v for k, v in want.items() if k in value}, key
            assert len(value) >= len(AVRO_SCHEMA_001["fields"])
            assert re.fullmatch(CONFLUENT_PATHS.get(line, HOURLY_PATH).format(topic=re.escape(topic), **record), key), key
    if "errors.deadletterqueue.topic.name" in props:
        dlq = props["errors.deadletterqueue.topic.name"]  # read_committed: its transaction markers are no letters
        assert [m[2] for m in read_topic(apache_kafka.bootstrap_servers, dlq, expected=len(topics))] == [
            POISON.value] * len(topics)


HOURLY_PATH = r"topics/{topic}/year=\d{{4}}/month=\d\d/day=\d\d/hour=\d\d/{topic}\+\d\+\d{{10}}(\.\w+)+"
#: The object key of each record, for the examples not partitioned by the wall-clock hour.
CONFLUENT_PATHS = {
    178: r"topics/{topic}/region={region}/event_type={event_type}/{topic}\+0\+\d{{10}}\.snappy\.parquet",
    191: r"topics/{topic}/partition=0/{topic}\+0\+0000000000\.snappy\.parquet",
}


# --- seed 002: the Aiven S3 source page (objects -> Kafka) ------------------------------------------


def _aiven_source_objects(s3: Any, bucket: str, prefix: str, source: str, *, jsonl: bool) -> list[bytes]:
    """Objects as an Aiven sink lays them out for the page's template ``{{topic}}-{{partition}}-{{start_offset}}``
    under the config's prefix: jsonl, one object per partition of Connect JSON lines (every Connect type);
    bytes, one object per record (the record's Confluent Avro bytes, every Avro type). Returns the values."""
    values = []
    for partition in (0, 1):
        ids = [i for i in range(RECORDS) if i % 2 == partition]
        if jsonl:
            lines = [connect_json(i) for i in ids]
            s3.put_object(Bucket=bucket, Key=f"{prefix}{source}-{partition}-0", Body=b"\n".join(lines) + b"\n")
            values += lines
        for offset, i in enumerate(ids if not jsonl else ()):
            value = confluent_avro(1, AVRO_SCHEMA, avro_value(i)) + b"\n\x00\xff"
            s3.put_object(Bucket=bucket, Key=f"{prefix}{source}-{partition}-{offset}", Body=value)
            values.append(value)
    return values


@pytest.mark.parametrize("line", sorted(AIVEN_SOURCE_EXAMPLES), ids=lambda line: f"002-line-{line}")
def test_each_aiven_source_example_restores_every_object_once(
    spark: SparkSession, apache_kafka: ApacheKafka, moto_s3: MotoS3, line: int,
) -> None:
    """The page's config verbatim (its placeholders ``your-s3-region`` and the prefixes kept), plus
    credentials, endpoint, brokers, a unique name, bucket and target topic: ``restore --once``."""
    props = connect_values(AIVEN_SOURCE_EXAMPLES[line])
    source, bucket = unique_name("seed-002-src"), unique_name("seed-002")
    props |= {"name": unique_name("seed-002"), "topic": unique_name("seed-002-dst"), "aws.s3.bucket.name": bucket,
              "aws.access.key.id": "testing", "aws.secret.access.key": "testing", "aws.s3.endpoint": moto_s3.url,
              "bootstrap.servers": apache_kafka.bootstrap_servers}
    s3 = boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                      region_name="us-east-1")
    s3.create_bucket(Bucket=bucket)
    jsonl = props.get("input.format") == "jsonl"
    sent = _aiven_source_objects(s3, bucket, props["aws.s3.prefix"], source, jsonl=jsonl)

    summary = restore(load_plan(props), spark, once=True)

    messages = read_topic(apache_kafka.bootstrap_servers, props["topic"], expected=len(sent))
    assert summary.records == len(sent) == len(messages)
    if jsonl:  # each line once, as JSON (the source parses and re-renders it)
        assert sorted(json.dumps(json.loads(m[2]), sort_keys=True) for m in messages) == sorted(
            json.dumps(json.loads(v), sort_keys=True) for v in sent)
    else:
        assert sorted(m[2] for m in messages) == sorted(sent)
    assert {m[0] for m in messages} == {0, 1}  # the partition from the object's name
    assert all(m[1].decode().startswith(props["aws.s3.prefix"] + source) for m in messages)  # Aiven: key = object key


# --- seed 003: the Aiven S3 sink article ------------------------------------------------------------

CONSOLE_003, CURL_003 = sorted(AIVEN_SINK_EXAMPLES)


def console_example() -> dict[str, str]:
    """The Console example, taken as the Console takes it once its typo is fixed: the seed's
    ``"...ByteArrayConverter"",`` (a doubled closing quote) is ``"...ByteArrayConverter",``."""
    text = AIVEN_SINK_EXAMPLES[CONSOLE_003].replace('ByteArrayConverter"",', 'ByteArrayConverter",')
    return connect_values("{" + text + "}")


LOST_KEYS_003 = ("aws.access.key.id", "aws.s3.bucket.name")
"""The keys the seed's curl example lost (``"": "AKI..."`` and ``"": "aiven-example"``), in order: an
access key id and a bucket name, the two the article's "Connector Configuration - AWS" list lost too."""


def curl_example() -> dict[str, str]:
    """The curl example's members (its braces are lost in the seed): the lost keys put back
    (:data:`LOST_KEYS_003`); and, since it lost its ``connector.class`` too (Connect refuses a POST
    without it) and sets no converter, both taken from the article's Console example."""
    lost = iter(LOST_KEYS_003)
    config = {}
    for row in AIVEN_SINK_EXAMPLES[CURL_003].splitlines():
        member = re.fullmatch(r'"(.*?)":\s*(.*?),?', row.replace("\xa0", " ").strip())
        if member is None or member.group(2) == "{":
            continue
        key = member.group(1) or next(lost)
        config[key] = str(json.loads(member.group(2)))
    console = console_example()
    return {**{k: console[k] for k in ("connector.class", "key.converter", "value.converter")}, **config}


def read_aiven_csv(data: bytes) -> list[list[str]]:
    """An Aiven csv object, gzip or not, by the standard library's readers."""
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode()
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("line", [CONSOLE_003, CURL_003], ids=lambda line: f"003-line-{line}")
def test_each_aiven_sink_example_of_the_article_runs(
    spark: SparkSession, apache_kafka: ApacheKafka, moto_s3: MotoS3, tmp_path: Path, line: int,
) -> None:
    props = console_example() if line == CONSOLE_003 else curl_example()
    topics = [unique_name("seed-003") for _ in props["topics"].split(",")]
    bucket = unique_name("seed-003")
    props |= {"name": unique_name("seed-003"), "topics": ",".join(topics), "aws.s3.bucket.name": bucket,
              "aws.access.key.id": "testing", "aws.secret.access.key": "testing", "aws.s3.endpoint": moto_s3.url,
              "bootstrap.servers": apache_kafka.bootstrap_servers}
    boto3.client("s3", endpoint_url=moto_s3.url, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    sent = {}
    for n, topic in enumerate(topics):
        records = [ProducedRecord(confluent_avro(1, AVRO_SCHEMA, avro_value(i)) + bytes([n]), key=f"k{i}".encode(),
                                  timestamp_ms=TS + i, partition=i % 2) for i in range(RECORDS)]
        apache_kafka.produce(topic, records)
        sent[topic] = records

    run_example(spark, props, tmp_path / "checkpoint")

    prefix = props.get("aws.s3.prefix", "")
    stored = dict(objects(moto_s3, bucket))
    assert all(key.startswith(prefix) for key in stored)
    fields = props.get("format.output.fields", "value").split(",")
    for topic, records in sent.items():
        rows = [dict(zip(fields, row, strict=True)) for key, data in stored.items()
                if key[len(prefix):].startswith(f"{topic}-") for row in read_aiven_csv(data)]
        if "format.output.fields" in props:
            assert props["file.compression.type"] == "gzip" and all(data[:2] == b"\x1f\x8b" for data in stored.values())
        want = [{"value": base64.b64encode(r.value).decode(), "key": base64.b64encode(r.key or b"").decode(),
                 "timestamp": str(r.timestamp_ms)} for r in records]
        assert sorted(map(sorted_items, rows)) == sorted(sorted_items({f: w[f] for f in fields}) for w in want)


def sorted_items(row: dict[str, str]) -> list[tuple[str, str]]:
    return sorted(row.items())
