"""What Aiven's S3 sink writes per record (domain rules), against the outputs Aiven's own tests pin.

Each expectation names the Aiven test (cloud-storage-connectors-for-apache-kafka) it comes from.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.output import (
    JSON_ORDER,
    AivenOutput,
    avro_datum,
    avro_schema,
    csv_line,
    iso_instant,
    jackson_text,
    json_document,
)
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig, OutputField
from lakesink.domain.errors import RecordError
from lakesink.domain.records import Record
from tests.support.aiven_configs import CONSOLE_WITH_AWS

HEADERS = (("test-header-key-1", b"test-header-value-1"), ("test-header-key-2", b"test-header-value-2"))
#: S3SinkTaskTest#createBatchOfRecord: bytes key and value, timestamp 1000, two bytes headers.
BATCH_RECORD = Record("test-topic", 0, 7, 1000, b"test-key", b"test-value", HEADERS)
NAME_JOHN = {"name": "John"}
STRUCT = {"type": "struct", "fields": [{"field": "name", "type": "string", "optional": False}]}


def fields(text: str, encoding: str = "base64") -> tuple[OutputField, ...]:
    return tuple(
        OutputField(name, encoding if name in ("key", "value") else "none") for name in text.split(",")
    )


def output(fmt: AivenFormat, names: str, *, envelope: bool = True, encoding: str = "base64") -> AivenOutput:
    return AivenOutput(fmt, fields(names, encoding), envelope=envelope)


# --- csv ----------------------------------------------------------------------------------------


def test_csv_line_of_the_s3_task_test_batch() -> None:
    # S3SinkTaskTest#testAivenKafkaConnectS3SinkTask: "value,key,timestamp,offset,headers", split on ","
    # and the headers cell on ";" and ":" (each header ends with ";").
    line = csv_line(BATCH_RECORD, fields("value,key,timestamp,offset,headers"))
    assert line == (
        b"dGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,7,"
        b"dGVzdC1oZWFkZXIta2V5LTE=:dGVzdC1oZWFkZXItdmFsdWUtMQ==;"
        b"dGVzdC1oZWFkZXIta2V5LTI=:dGVzdC1oZWFkZXItdmFsdWUtMg==;"
    )


def test_csv_null_key_value_and_timestamp_are_empty_cells() -> None:
    # GcsSinkTaskTest#nullKeyValueAndTimestamp: "key,value,timestamp,offset" -> ",,,10".
    assert csv_line(Record("topic0", 0, 10), fields("key,value,timestamp,offset")) == b",,,10"


def test_csv_value_encoding_none_is_raw_but_the_key_is_always_base64() -> None:
    # ValuePlainWriter copies the bytes; KeyPlainWriter Base64-encodes whatever the encoding.
    line = csv_line(BATCH_RECORD, fields("key,value", "none"))
    assert line == b"dGVzdC1rZXk=,test-value"


def test_csv_keeps_duplicate_fields_and_config_order() -> None:
    assert csv_line(BATCH_RECORD, fields("offset,value,offset")) == b"7,dGVzdC12YWx1ZQ==,7"


def test_csv_text_key_is_base64_of_its_utf8() -> None:
    record = Record("t", 0, 1, key="clé")
    assert csv_line(record, fields("key")) == b"Y2zDqQ=="


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (Record("t", 0, 1, value="text"), "Record value schema type must be BYTES, STRING given"),
        (Record("t", 0, 1, key=5), "Record key schema type must be BYTES or STRING, INT64 given"),
        (Record("t", 0, 1, headers=(("h", "text"),)), "Invalid schema type for ByteArrayConverter: STRING"),
        (Record("t", 0, 1, headers=(("h", None),)), "NullPointerException"),
    ],
)
def test_csv_refuses_what_aiven_fails_on(record: Record, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        csv_line(record, fields("key,value,headers"))


# --- json / jsonl -------------------------------------------------------------------------------


def john(
    key: object = "key0", timestamp: int | None = 1000, headers: tuple[tuple[str, object], ...] = ()
) -> Record:
    """JsonOutputWriterTestHelper#createRecord: a struct value {"name": "John"} at offset 1."""
    return Record("topic0", 0, 1, timestamp, key, NAME_JOHN, headers, value_schema=STRUCT)


def test_json_members_follow_java_hashmap_order() -> None:
    # JsonOutputWriterTest#jsonValueWithAllMetadata (config order value,key,offset,timestamp,headers).
    document = json_document(
        john(headers=(("headerKey", "headerValue"),)),
        output(AivenFormat.JSON, "value,key,offset,timestamp,headers"),
    )
    assert document == (
        b'{"headers":[{"key":"headerKey","value":"headerValue"}],"offset":1,'
        b'"value":{"name":"John"},"key":"key0","timestamp":"1970-01-01T00:00:01Z"}'
    )
    assert JSON_ORDER == ("headers", "offset", "value", "key", "timestamp")


def test_json_members_for_key_and_value_and_string_values() -> None:
    # S3SinkTaskTest#supportStringValuesForJsonL: "key,value" -> {"value":"value0","key":"key0"}.
    record = Record("topic0", 0, 10, 1000, "key0", "value0")
    assert json_document(record, output(AivenFormat.JSONL, "key,value")) == b'{"value":"value0","key":"key0"}'


def test_json_nulls_and_empty_headers() -> None:
    # JsonOutputWriterTest#jsonValueWithMissingKey / #jsonValueWithMissingTimestamp / #jsonValueWithMissingHeader.
    assert (
        json_document(john(key=None), output(AivenFormat.JSON, "value,key"))
        == b'{"value":{"name":"John"},"key":null}'
    )
    timestamp = json_document(john(timestamp=None), output(AivenFormat.JSON, "value,timestamp"))
    assert timestamp == b'{"value":{"name":"John"},"timestamp":null}'
    assert (
        json_document(john(), output(AivenFormat.JSON, "value,headers"))
        == b'{"headers":[],"value":{"name":"John"}}'
    )
    missing = Record("t", 0, 1)
    assert json_document(missing, output(AivenFormat.JSON, "value")) == b'{"value":null}'


def test_json_without_envelope_writes_the_field_bare() -> None:
    # JsonOutputWriterTest#jsonValueWithSingleField: {"name":"John"}.
    assert json_document(john(), output(AivenFormat.JSON, "value", envelope=False)) == b'{"name":"John"}'


def test_json_ignores_the_value_encoding_bytes_are_base64_text() -> None:
    # JsonConverter writes byte[] as a Base64 string whatever format.output.fields.value.encoding says.
    for encoding in ("base64", "none"):
        document = json_document(
            BATCH_RECORD, output(AivenFormat.JSONL, "value,key,headers", encoding=encoding)
        )
        assert document == (
            b'{"headers":[{"key":"test-header-key-1","value":"dGVzdC1oZWFkZXItdmFsdWUtMQ=="},'
            b'{"key":"test-header-key-2","value":"dGVzdC1oZWFkZXItdmFsdWUtMg=="}],'
            b'"value":"dGVzdC12YWx1ZQ==","key":"dGVzdC1rZXk="}'
        )


def test_duplicate_json_fields_collapse() -> None:
    assert output(AivenFormat.JSON, "value,offset,value").json_fields == ("offset", "value")


def test_a_null_header_value_fails_like_aiven() -> None:
    with pytest.raises(RecordError, match="null value"):
        json_document(john(headers=(("h", None),)), output(AivenFormat.JSON, "headers"))


@pytest.mark.parametrize(
    ("millis", "text"),
    [
        (0, "1970-01-01T00:00:00Z"),
        (1000, "1970-01-01T00:00:01Z"),
        (1234, "1970-01-01T00:00:01.234Z"),
        (1100, "1970-01-01T00:00:01.100Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1715224653000, "2024-05-09T03:17:33Z"),
    ],
)
def test_iso_instant_as_java_prints_it(millis: int, text: str) -> None:
    # DateTimeFormatter.ISO_INSTANT (tests/support/AivenGolden.java prints the same six).
    assert iso_instant(Record("t", 0, 0), millis) == text


#: tests/support/AivenGolden.java, "jackson" line: Aiven's ObjectMapper re-serialising this tree.
JACKSON_GOLDEN = bytes.fromhex(
    "7b2273223a22615c75303030315c75303031465c625c745c6e5c665c725c225c5c2f7fe280a8c3a95c75443833445c7544453030"
    "222c2264223a5b312e302c312e304531362c312e30452d342c3132332e3435362c302e3030312c312e3045372c2d302e305d7d"
)


def test_jackson_escapes_and_java_doubles() -> None:
    # Only quotes, backslash and control characters are escaped (upper-case hex), a character
    # outside the BMP as its two UTF-16 halves; doubles are Double.toString.
    value = {"s": 'a\x01\x1f\b\t\n\f\r"\\/\x7f\u2028é😀', "d": [1.0, 1e16, 0.0001, 123.456, 1e-3, 1e7, -0.0]}
    text = jackson_text(Record("t", 0, 0), value)
    assert text.encode("utf-8") == JACKSON_GOLDEN
    assert (
        text
        == '{"s":"a\\u0001\\u001F\\b\\t\\n\\f\\r\\"\\\\/\x7f\u2028é\\uD83D\\uDE00","d":[1.0,1.0E16,1.0E-4,123.456,0.001,1.0E7,-0.0]}'
    )


def test_a_decimal_is_base64_of_its_unscaled_bytes() -> None:
    # JsonConverter's default decimal.format=BASE64: BigInteger(12345).toByteArray() = 0x3039.
    document = json_document(Record("t", 0, 0, value=Decimal("123.45")), output(AivenFormat.JSONL, "value"))
    assert document == b'{"value":"MDk="}'


@pytest.mark.parametrize(("value", "encoded"), [("-1.28", "gA=="), ("-327.68", "gAA="), ("-1.29", "/38="), ("1.28", "AIA=")])
def test_a_negative_decimal_takes_the_fewest_bytes_as_java_s_big_integer(value: str, encoded: str) -> None:
    """Kafka 4.4's JsonConverter (decimal.format=BASE64) writes -128 as 80, not ff 80."""
    document = json_document(Record("t", 0, 0, value=Decimal(value)), output(AivenFormat.JSONL, "value"))
    assert document == b'{"value":"%s"}' % encoded.encode()


# --- avro / parquet -----------------------------------------------------------------------------


def test_avro_schema_with_envelope_is_connector_records_in_config_order() -> None:
    # SinkSchemaBuilder#avroSchemaFor; AvroSchemaBuilder's namespace.
    record = Record("t", 0, 3, 1000, b"k", b"v", HEADERS)
    out = output(AivenFormat.AVRO, "key,value,offset,timestamp,headers")
    schema = avro_schema(record, out)
    assert schema == {
        "type": "record",
        "name": "connector_records",
        "namespace": "io.aiven.avro.output.schema",
        "fields": [
            {"name": "key", "type": "bytes"},
            {"name": "value", "type": "bytes"},
            {"name": "offset", "type": "long"},
            {"name": "timestamp", "type": "long"},
            {"name": "headers", "type": {"type": "map", "values": "bytes"}},
        ],
    }
    assert avro_datum(record, out, schema) == {
        "key": b"k",
        "value": b"v",
        "offset": 3,
        "timestamp": 1000,
        "headers": {"test-header-key-1": b"test-header-value-1", "test-header-key-2": b"test-header-value-2"},
    }


def test_parquet_namespace_and_no_headers_is_a_null_field() -> None:
    schema = avro_schema(Record("t", 0, 3, 1000, None, b"v"), output(AivenFormat.PARQUET, "value,headers"))
    assert schema["namespace"] == "io.aiven.parquet.output.schema"
    assert schema["fields"][1] == {"name": "headers", "type": "null"}


def test_avro_without_envelope_keeps_a_struct_value_schema() -> None:
    schema = avro_schema(john(), output(AivenFormat.AVRO, "value", envelope=False))
    assert schema["type"] == "record" and [f["name"] for f in schema["fields"]] == ["name"]
    assert avro_datum(john(), output(AivenFormat.AVRO, "value", envelope=False), schema) == NAME_JOHN


def test_avro_without_envelope_wraps_a_primitive() -> None:
    out = output(AivenFormat.AVRO, "offset", envelope=False)
    schema = avro_schema(john(), out)
    assert schema["name"] == "connector_records" and schema["fields"] == [{"name": "offset", "type": "long"}]
    assert avro_datum(john(), out, schema) == {"offset": 1}


def test_avro_headers_of_two_types_fail_with_aivens_text() -> None:
    record = Record("t", 0, 1, headers=(("a", b"x"), ("b", "y")))
    with pytest.raises(RecordError, match="is not the same as the already defined map type"):
        avro_schema(record, output(AivenFormat.AVRO, "headers"))


def test_avro_timestamp_is_not_nullable() -> None:
    out = output(AivenFormat.AVRO, "timestamp")
    record = Record("t", 0, 1)
    with pytest.raises(RecordError, match="non-null long"):
        avro_datum(record, out, avro_schema(record, out))


# --- from the config ----------------------------------------------------------------------------


def test_output_of_a_config() -> None:
    props = dict(CONSOLE_WITH_AWS, **{"format.output.type": "parquet", "file.compression.type": "zstd"})
    out = AivenSinkConfig.from_properties(props).output
    assert (out.format, out.compression, out.parquet_codec) == (
        AivenFormat.PARQUET,
        AivenCompression.NONE,
        AivenCompression.ZSTD,
    )
    default = AivenSinkConfig.from_properties(CONSOLE_WITH_AWS).output
    assert (default.format, default.compression, default.fields) == (
        AivenFormat.CSV,
        AivenCompression.GZIP,
        (OutputField("value", "base64"),),
    )
