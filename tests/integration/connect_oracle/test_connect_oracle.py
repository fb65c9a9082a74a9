"""lakesink's converters and Kafka SMTs against Kafka Connect's own classes, record by record.

Every case of the corpus (tests/support/connect_oracle/corpus.py) goes once through Kafka
Connect 4.4 (ConnectOracle.java: the converters, a SinkRecord, the transform chain with its
predicates) and through lakesink's sink path (``RawRow.to_record`` and the chain ``build_chain``
makes); topic, partition, timestamp, key, value, their schemas, their JSON bytes and every
header (value, schema, bytes written back) must agree.

Where lakesink differs on purpose, :data:`DEVIATIONS` names the cases and the fields, and the
test asserts that exactly those differ: a deviation that disappears, or a new difference, fails
the test. Each is listed in docs/transforms.md ("Checked against Kafka Connect") with its reason.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.connect_oracle.corpus import Case, cases
from tests.support.connect_oracle.lakesink_side import run_lakesink

pytestmark = pytest.mark.integration

CASES = {case.id: case for case in cases()}
_PARTS = ("key", "value")
_OPTIONAL_STRING = {"type": "string", "optional": True}


@dataclass(frozen=True)
class Deviation:
    """A difference from Connect lakesink keeps on purpose, in ``fields`` of ``cases``."""

    reason: str
    cases: tuple[str, ...]
    fields: tuple[str, ...]


_LEGACY_NAMES = (
    "ReplaceField: the pre-4.0 names blacklist/whitelist still work (Kafka 4 dropped them and ignores "
    "them silently, so a 3.x config would stop removing fields)"
)
_STRING_SCHEMA = (
    "StringConverter gives text without a schema (Connect: an optional string schema), so HoistField "
    "wraps it in a schemaless map; the data are the same"
)
_STRUCT_HEADER = (
    "HeaderFrom: a header copied from a struct field gets the schema inferred from its value (fields "
    "optional, an empty struct a map), since the envelope cannot define the value's record twice"
)
_FLOAT32 = (
    "a FLOAT32 field keeps the number as written (0.1) where Connect holds a Java float "
    "(0.10000000149011612 once widened): rounding a Python double would change every JSON, CSV and Avro "
    "file, where Connect prints the float's shortest form; it shows after a Cast to float64 or a HeaderFrom"
)
DEVIATIONS = (
    Deviation(
        "SimpleHeaderConverter: a header that is not one whole number, temporal or uniform structure "
        "stays text (Connect reads 12:30:45.123 as the int8 12 and makes [1,\"a\"] a schema-less array), "
        "and bytes that are not UTF-8 stay bytes (Connect replaces them with U+FFFD)",
        ("convert/headers", "drop-headers/headers"),
        (
            "headers.mixed-list.value", "headers.mixed-list.schema",
            "headers.time.value", "headers.time.schema", "headers.time.bytes",
            "headers.not-utf8.value", "headers.not-utf8.schema", "headers.not-utf8.bytes",
        ),
    ),
    Deviation(_LEGACY_NAMES, ("replace-legacy-names/order", "replace-legacy-names/nested"), ("value", "value_json", "value_schema")),
    Deviation(_LEGACY_NAMES, ("replace-legacy-names/schemaless",), ("value", "value_json")),
    Deviation(
        "TimestampConverter parses strictly: text that does not match the format is a poison record "
        "(Java's lenient SimpleDateFormat reads 2024-06-01T12:30:45 with yyyyMMdd as 2023-12-06)",
        ("ts-whole-value/primitive-string",),
        ("outcome",),
    ),
    Deviation(
        "a schemaless Date, Time or Timestamp (TimestampConverter without a schema) is written to JSON as "
        "days, milliseconds of the day or epoch milliseconds; Connect's JsonConverter cannot serialise it",
        tuple(f"{name}/schemaless" for name in ("ts-to-date", "ts-to-time", "ts-from-string", "ts-unix-micros")),
        ("value_json", "value_json_error"),
    ),
    Deviation(
        "a Connect map with non-string keys is written to JSON as an object (keys as text), not as "
        "[[key, value], ...] pairs, and has no Avro/Parquet schema (Avro maps have string keys)",
        ("convert/int-key-map",),
        ("value_json", "value_schema"),
    ),
    Deviation(_STRING_SCHEMA, ("hoist/string-value",), ("value_schema",)),
    Deviation(_STRING_SCHEMA, ("hoist-key/order",), ("key_schema",)),
    Deviation(_STRUCT_HEADER, ("header-from-struct/nested",), ("headers.c.schema",)),
    Deviation(_STRUCT_HEADER, ("header-from-numbers/numbers",), ("headers.hempty.schema",)),
    Deviation(
        _FLOAT32,
        tuple(f"{name}/numbers" for name in (
            "convert", "cast-numbers", "cast-string-to-bool", "cast-replace-null-default", "flatten-empty",
            "header-from-numbers", "insert-field-numbers",
        )),
        ("value",),
    ),
    Deviation(_FLOAT32, ("cast-numbers/numbers",), ("value_json",)),
    Deviation(_FLOAT32, ("header-from-numbers/numbers",), ("headers.hf.value",)),
    Deviation(
        "a JSON header read without a schema keeps the schema inferred for it (an envelope stores one), "
        "and JsonConverter with schemas.enable writes it back with that schema, where Connect writes null",
        ("convert/json-headers",),
        ("headers.env-null-schema.bytes",),
    ),
)


def expected_differences(case_id: str) -> set[str]:
    """The fields of ``case_id`` that :data:`DEVIATIONS` say differ from Connect."""
    return {field for deviation in DEVIATIONS if case_id in deviation.cases for field in deviation.fields}


def differences(java: dict[str, Any], lakesink: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The fields where the two results disagree, with both sides' (normalised) values."""
    if java["outcome"] != lakesink["outcome"] or java["outcome"] != "record":
        same = java["outcome"] == lakesink["outcome"]
        return {} if same else {"outcome": (java["outcome"], lakesink["outcome"])}
    found = {}
    for name in ("topic", "partition", "timestamp"):
        found[name] = (java[name], lakesink[name])
    for part in _PARTS:
        found[part] = (java[part], lakesink[part])
        found[f"{part}_schema"] = (_part_schema(java[f"{part}_schema"], lakesink[f"{part}_schema"]), lakesink[f"{part}_schema"])
        found[f"{part}_json"] = (_json(java.get(f"{part}_json")), _json(lakesink.get(f"{part}_json")))
        found[f"{part}_json_error"] = (f"{part}_json_error" in java, f"{part}_json_error" in lakesink)
    java_headers, lakesink_headers = java["headers"], lakesink["headers"]
    found["headers"] = ([h["name"] for h in java_headers], [h["name"] for h in lakesink_headers])
    for theirs, ours in zip(java_headers, lakesink_headers, strict=False):
        prefix = f"headers.{theirs['name']}"
        found[f"{prefix}.value"] = (theirs["value"], ours["value"])
        found[f"{prefix}.bytes"] = (_header_bytes(theirs["bytes"]), _header_bytes(ours["bytes"]))
        if theirs["schema"] is not None and theirs["value"] is not None:
            found[f"{prefix}.schema"] = (_required(theirs["schema"]), _required(ours["schema"]))
    return {name: pair for name, pair in found.items() if _canonical(pair[0]) != _canonical(pair[1])}


def _part_schema(java: Any, lakesink: Any) -> Any:
    """Connect's schema, except StringConverter's optional string where lakesink has none."""
    return None if java == _OPTIONAL_STRING and lakesink is None else java


def _required(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A header's schema without its top-level optional flag: each header has its own schema, and a
    header converter's optionality is Connect's (StringConverter says optional), not the data's."""
    return None if schema is None else {k: v for k, v in schema.items() if k != "optional"}


def _json(data: str | None) -> Any:
    """Serialised JSON as data: Jackson escapes non-BMP characters and orders HashMaps its own way."""
    return None if data is None else json.loads(base64.b64decode(data))


def _header_bytes(data: str | None) -> Any:
    """A header's bytes as JSON data when they parse (map order is a HashMap's), else text or bytes."""
    if data is None:
        return None
    raw = base64.b64decode(data)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"$bytes": data}
    try:
        return json.loads(text)
    except ValueError:
        return text


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_lakesink_agrees_with_kafka_connect(case: Case, connect_results: dict[str, dict[str, Any]]) -> None:
    java = connect_results[case.id]
    found = differences(java, run_lakesink(case))
    report = "\n".join(f"  {name}: Connect {pair[0]!r}\n  {' ' * len(name)}  lakesink {pair[1]!r}" for name, pair in found.items())
    assert set(found) == expected_differences(case.id), (
        f"{case.id}: fields that differ from Kafka Connect (Connect's error: {java.get('error')}):\n{report}"
    )


def test_every_deviation_names_corpus_cases() -> None:
    """A deviation whose case was renamed or dropped would pin nothing."""
    assert {case for deviation in DEVIATIONS for case in deviation.cases} <= set(CASES)
