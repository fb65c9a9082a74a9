"""Every connector-config example of the Lenses S3 sink page (the primary seed) runs as written,
end to end: real Apache Kafka, ``lakesink sink --once`` (in process), a moto S3 server, and the
objects read back with an independent reader (json, pyarrow, fastavro).

Each example (tests/integration/sink/seed_examples.py, verbatim) gets only what a deployment adds:
``bootstrap.servers``, the S3 endpoint and credentials (path-style, as moto serves), a unique
topic and bucket in place of the example's (``demo``/``car_speed_events``, ``lensesio``/``lensesioaws``:
the session's broker and store are shared), and the Schema Registry double's URL in place of
``http://localhost:8081``. Lines that are only ``...`` ("the rest of your config") are dropped.
Completions, each said where it happens: the two fragments without KCQL (Credentials mode, the
two error layers) get ``topics`` and a minimal JSON KCQL statement; examples that set no converter
get the Connect worker's usual defaults (JsonConverter with schemas, StringConverter keys), as a
Connect worker would supply them.

Records carry every Connect type where the converter takes schemas (JsonConverter with schemas:
int8..int64, float, double, boolean, string, bytes, decimal, date, time, timestamp, an array, a map,
a nested struct, optional nulls) and every Avro type under AvroConverter.

Not run, with the reason: the seed's ``topics.regex`` / ``INSERT INTO $target ... `*` ....`` block
(line 86) is a template with placeholders and an ellipsis inside the statement, not a config; the
other seeds hold Confluent's (001), Aiven's (002, 003) and Quix Streams' (004) configs, see
:data:`OTHER_SEEDS`.
"""

from __future__ import annotations

import base64
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
from lakesink.application.compose import sink_run
from lakesink.application.sink_settings import sink_settings
from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.config.providers import ResolvedConfig
from tests.conftest import unique_name
from tests.integration.sink.conftest import MotoS3
from tests.integration.sink.seed_examples import LENSES_EXAMPLES, SEED_000
from tests.support.kafka_broker import ApacheKafka
from tests.support.schema_registry_double import SchemaRegistryDouble, confluent_avro

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SEEDS = Path(__file__).resolve().parents[4] / "shared" / "seeds"
RECORDS = 6
TS = 1_700_000_000_000

OTHER_SEEDS = {
    "001": "Confluent S3 sink page: JSON fragments of a Confluent config; its two full configs name "
    "TimeBasedPartitioner without path.format/partition.duration.ms/locale/timezone (Basic Configuration, "
    "refused by Confluent too) and AvroConverter keys and values (Complete Example); not run here",
    "002": "Aiven S3 *source* connector (S3 -> Kafka): a restore config, not a sink example",
    "003": "Aiven S3 sink article: its config text is garbled in the seed (keys lost, unbalanced braces)",
    "004": "Quix Streams FileSink: Python code, not a connector config",
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
