"""Decimals in Confluent's JsonFormat: ``json.decimal.format`` BASE64 (default) or NUMERIC.

:data:`GOLDEN` is, byte for byte, what Kafka 4.4.0's ``JsonConverter.fromConnectData``
(schemas.enable=false, as Confluent's JsonFormat configures it) wrote for a Struct ``{d:
Decimal(scale)}`` under ``decimal.format`` BASE64 and NUMERIC, printed by a throw-away program
against .tools/maven/kafka/*.jar. BASE64 is ``BigInteger#toByteArray`` of the unscaled value:
the fewest two's-complement bytes, so 128 needs a leading ``00`` and -128 is the single ``80``.
NUMERIC is ``BigDecimal#toString``: the scale kept (``1.00``), scientific below 1E-6.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.confluent.cycle_writer import _open
from lakesink.adapters.formats.json_lines import JsonWriter
from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.formats import DecimalFormat
from lakesink.domain.records import Record
from tests.support.confluent_configs import FMT

#: (value with its scale, BASE64 line, NUMERIC line) from the real JsonConverter.
GOLDEN = [
    ("0.25", '{"d":"GQ=="}', '{"d":0.25}'),
    ("-0.25", '{"d":"5w=="}', '{"d":-0.25}'),
    ("0", '{"d":"AA=="}', '{"d":0}'),
    ("0.00", '{"d":"AA=="}', '{"d":0.00}'),
    ("1", '{"d":"AQ=="}', '{"d":1}'),
    ("-1", '{"d":"/w=="}', '{"d":-1}'),
    ("127", '{"d":"fw=="}', '{"d":127}'),
    ("128", '{"d":"AIA="}', '{"d":128}'),
    ("-128", '{"d":"gA=="}', '{"d":-128}'),
    ("-129", '{"d":"/38="}', '{"d":-129}'),
    ("255", '{"d":"AP8="}', '{"d":255}'),
    ("256", '{"d":"AQA="}', '{"d":256}'),
    ("-256", '{"d":"/wA="}', '{"d":-256}'),
    ("12.34", '{"d":"BNI="}', '{"d":12.34}'),
    ("-12.34", '{"d":"+y4="}', '{"d":-12.34}'),
    ("1.00", '{"d":"ZA=="}', '{"d":1.00}'),
    ("0.0000001", '{"d":"AQ=="}', '{"d":1E-7}'),
    ("0.00000010", '{"d":"Cg=="}', '{"d":1.0E-7}'),
    ("123456789012345678901234567890.12", '{"d":"AJvTCjxkWUPdFpCgOhQ="}', '{"d":123456789012345678901234567890.12}'),
    (
        "-99999999999999999999999999999999.999",
        '{"d":"7L2ejTiyfdR4cBgAAAAB"}',
        '{"d":-99999999999999999999999999999999.999}',
    ),
    ("100", '{"d":"ZA=="}', '{"d":100}'),
    ("1000000", '{"d":"D0JA"}', '{"d":1000000}'),
    ("12345.6789", '{"d":"B1vNFQ=="}', '{"d":12345.6789}'),
    ("0.001", '{"d":"AQ=="}', '{"d":0.001}'),
]
#: A Struct {a: array<Decimal(2)>, m: map<string, Decimal(2)>, n: optional Decimal(2)}.
NESTED = {"a": [Decimal("1.50"), Decimal("-2.00")], "m": {"x": Decimal("3.14")}, "n": None}
NESTED_BASE64 = '{"a":["AJY=","/zg="],"m":{"x":"ATo="},"n":null}'
NESTED_NUMERIC = '{"a":[1.50,-2.00],"m":{"x":3.14},"n":null}'

BASE = {
    "name": "decimals",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    "format.class": f"{FMT}json.JsonFormat",
    "s3.bucket.name": "lake",
    "topics": "orders",
    "flush.size": "3",
}


@pytest.mark.parametrize(("value", "base64", "numeric"), GOLDEN, ids=[row[0] for row in GOLDEN])
def test_a_struct_decimal_is_written_as_json_converter_writes_it(value: str, base64: str, numeric: str) -> None:
    assert dumps({"d": Decimal(value)}, decimals=DecimalFormat.BASE64) == base64
    assert dumps({"d": Decimal(value)}, decimals=DecimalFormat.NUMERIC) == numeric


def test_decimals_in_arrays_and_maps_of_a_struct() -> None:
    assert dumps(NESTED, decimals=DecimalFormat.BASE64) == NESTED_BASE64
    assert dumps(NESTED) == NESTED_NUMERIC


def _written(tmp_path: Path, writer: JsonWriter, *records: Record) -> list[str]:
    for record in records:
        writer.write(record)
    writer.close()
    return (tmp_path / "out.json").read_text().splitlines()


def _record(value: Any, schema: Any = None) -> Record:
    return Record("orders", 0, 0, value=value, value_schema=schema)


def test_confluent_json_files_write_base64_by_default_and_numbers_under_numeric(tmp_path: Path) -> None:
    record = _record({"id": 1, "price": Decimal("0.25"), "blob": b"\x01"})
    config = ConfluentSinkConfig.from_properties(BASE)
    assert config.writing.values.decimals is DecimalFormat.BASE64
    assert _written(tmp_path, _open(config.writing.values, tmp_path / "out.json"), record) == [
        '{"id":1,"price":"GQ==","blob":"AQ=="}'
    ]
    numeric = ConfluentSinkConfig.from_properties({**BASE, "json.decimal.format": "numeric"})
    assert numeric.writing.values.decimals is DecimalFormat.NUMERIC
    assert _written(tmp_path, _open(numeric.writing.values, tmp_path / "out.json"), record) == [
        '{"id":1,"price":0.25,"blob":"AQ=="}'
    ]


def test_keys_files_follow_the_same_setting() -> None:
    props = {**BASE, "store.kafka.keys": "true", "keys.format.class": f"{FMT}json.JsonFormat"}
    keys = ConfluentSinkConfig.from_properties(props).writing.keys
    assert keys is not None and keys.decimals is DecimalFormat.BASE64
    keys = ConfluentSinkConfig.from_properties({**props, "json.decimal.format": "NUMERIC"}).writing.keys
    assert keys is not None and keys.decimals is DecimalFormat.NUMERIC


def test_values_confluent_does_not_hand_to_json_converter_keep_jackson_numbers(tmp_path: Path) -> None:
    """Confluent's JsonRecordWriterProvider converts only a Struct; Jackson writes anything else,
    and Jackson prints a BigDecimal as ``BigDecimal#toString``."""
    writer = JsonWriter(tmp_path / "out.json", decimals=DecimalFormat.BASE64)
    records = (
        _record(Decimal("0.25"), {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}),
        _record({"x": Decimal("3.14")}, {"type": "map", "values": "double"}),
        _record({"x": Decimal("3.14")}, ["null", {"type": "map", "values": "double"}]),
        _record({"x": Decimal("3.14")}, {"type": "map", "keys": {"type": "string"}, "values": {"type": "bytes"}}),
        _record({"x": Decimal("3.14")}, ["null", {"type": "record", "name": "R", "fields": []}]),
        _record([Decimal("1.50")]),
    )
    assert _written(tmp_path, writer, *records) == ["0.25", '{"x":3.14}', '{"x":3.14}', '{"x":3.14}', '{"x":"ATo="}', "[1.50]"]


def test_lenses_json_keeps_numbers(tmp_path: Path) -> None:
    writer = JsonWriter(tmp_path / "out.json")
    assert _written(tmp_path, writer, _record(NESTED)) == [NESTED_NUMERIC]


@pytest.mark.parametrize("value", ["float", "", "base 64"])
def test_any_other_json_decimal_format_is_refused_in_kafka_words(value: str) -> None:
    with pytest.raises(ConfigError) as error:
        ConfluentSinkConfig.from_properties({**BASE, "json.decimal.format": value})
    assert str(error.value) == (
        f"Invalid value {value} for configuration json.decimal.format: "
        "String must be one of (case insensitive): NUMERIC, BASE64"
    )


def test_an_infinite_decimal_is_a_poison_record(tmp_path: Path) -> None:
    writer = JsonWriter(tmp_path / "out.json", decimals=DecimalFormat.BASE64)
    with pytest.raises(RecordError, match="cannot be written as JSON: Infinity is not a Connect Decimal"):
        writer.write(_record({"d": Decimal("Infinity")}))
    writer.abort()
