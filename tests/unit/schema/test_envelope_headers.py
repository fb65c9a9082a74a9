"""The envelope's headers: legal Avro names, widening instead of rolling, the list layout."""

from __future__ import annotations

import base64

from lakesink.domain.records import Record
from lakesink.domain.schema.envelope import envelope_schema, json_envelope, record_from_json_envelope
from lakesink.domain.schema.envelope_fields import EnvelopeFields, HeadersLayout
from lakesink.domain.schema.headers import (
    HEADER_NAME,
    avro_field_name,
    header_names,
    header_schema,
    widen_headers,
)

LIST = EnvelopeFields(headers_layout=HeadersLayout.LIST)


def _headers_field(schema):
    return next(field for field in schema["fields"] if field["name"] == "headers")["type"]


def test_legal_names_are_kept_and_others_escaped_injectively():
    assert avro_field_name("trace_id") == "trace_id"
    assert avro_field_name("x-request-id") == "esc__x_2d_request_2d_id"
    names = ["a-b", "a.b", "a_b", "esc__a", "1st", "ü"]
    escaped = [avro_field_name(name) for name in names]
    assert len(set(escaped)) == len(names)
    assert all(name.replace("_", "a").isalnum() and not name[0].isdigit() for name in escaped)


def test_an_escaped_header_records_its_name_and_reads_back_under_it():
    record = Record("t", 0, 1, headers=(("dlq-reason", "timeout"),), header_schemas=("string",))
    headers = _headers_field(envelope_schema(record, EnvelopeFields()))
    field = headers[1]["fields"][0]
    assert field["name"] == "esc__dlq_2d_reason" and field[HEADER_NAME] == "dlq-reason"
    assert header_names(headers) == {"esc__dlq_2d_reason": "dlq-reason"}


def test_converter_schemas_type_the_header_fields():
    record = Record(
        "t", 0, 1, headers=(("n", 5), ("when", 2)), header_schemas=(header_schema({"type": "int8"}), "long")
    )
    fields = _headers_field(envelope_schema(record, EnvelopeFields()))[1]["fields"]
    assert [field["type"] for field in fields] == [
        ["null", {"type": "int", "connect.type": "int8"}],
        ["null", "long"],
    ]


def test_a_new_header_name_widens_the_schema_and_a_type_change_does_not():
    first = envelope_schema(Record("t", 0, 1, headers=(("b", "x"),)), EnvelopeFields())
    second = envelope_schema(Record("t", 0, 2, headers=(("a", 1), ("b", "y"))), EnvelopeFields())
    wider = widen_headers(first, second)
    assert [field["name"] for field in _headers_field(wider)[1]["fields"]] == ["a", "b"]
    clash = envelope_schema(Record("t", 0, 3, headers=(("b", 7),)), EnvelopeFields())
    assert widen_headers(first, clash) is None
    no_headers = envelope_schema(Record("t", 0, 4), EnvelopeFields())
    assert widen_headers(no_headers, first) == first


def test_the_list_layout_keeps_order_duplicates_and_bytes_in_json():
    record = Record("t", 0, 9, headers=(("z", b"\xff"), ("a", None), ("z", b"2")))
    document = json_envelope(record, LIST)
    assert document["headers"] == [
        {"key": "z", "value": base64.b64encode(b"\xff").decode()},
        {"key": "a", "value": None},
        {"key": "z", "value": "Mg=="},
    ]
    assert "headersIsArray" not in document
    assert record_from_json_envelope(document, index=0).headers == record.headers


def test_a_float32_header_is_written_to_json_with_its_own_digits():
    record = Record("t", 0, 1, headers=(("ratio", 0.10000000149011612),), header_schemas=("float",))
    assert str(json_envelope(record, EnvelopeFields())["headers"]["ratio"]) == "0.1"
