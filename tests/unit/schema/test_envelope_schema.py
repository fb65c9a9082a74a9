from __future__ import annotations

from lakesink.domain.records import Record
from lakesink.domain.schema import fits
from lakesink.domain.schema.envelope import (
    envelope_parts,
    envelope_schema,
    json_envelope,
    record_from_json_envelope,
)
from lakesink.domain.schema.envelope_fields import EnvelopeFields


def envelope_value(item: Record, fields: EnvelopeFields) -> dict[str, object]:
    """The envelope row the writers build from :func:`envelope_parts`."""
    return {name: read(item) for name, read in envelope_parts(fields)}


RECORD = Record(
    "orders", 3, 42, 1000, key=b"\x01k", value={"a": 1}, headers=(("z", "last"), ("a", b"\x00"), ("n", None))
)


def test_envelope_schema_has_the_lenses_field_names_and_sorted_headers():
    schema = envelope_schema(RECORD, EnvelopeFields())
    assert [field["name"] for field in schema["fields"]] == ["key", "value", "headers", "metadata"]
    headers = schema["fields"][2]["type"][1]
    assert [field["name"] for field in headers["fields"]] == ["a", "n", "z"]
    metadata = schema["fields"][3]["type"]
    assert [field["name"] for field in metadata["fields"]] == ["timestamp", "topic", "partition", "offset"]
    assert fits(envelope_value(RECORD, EnvelopeFields()), schema)


def test_disabled_parts_are_left_out():
    schema = envelope_schema(RECORD, EnvelopeFields(key=False, headers=False))
    assert [field["name"] for field in schema["fields"]] == ["value", "metadata"]


def test_a_tombstone_fits_the_schema_of_a_record_with_a_value():
    schema = envelope_schema(RECORD, EnvelopeFields())
    tombstone = Record("orders", 3, 43, 1001, key=b"\x01k", value=None, headers=RECORD.headers)
    assert fits(envelope_value(tombstone, EnvelopeFields()), schema)


def test_json_envelope_marks_bytes_and_round_trips():
    document = json_envelope(RECORD, EnvelopeFields())
    assert document["keyIsArray"] is True and document["key"] == "AWs="
    assert document["headersIsArray"] == {"a": True}
    assert document["metadata"] == {"timestamp": 1000, "topic": "orders", "partition": 3, "offset": 42}
    back = record_from_json_envelope(document, index=0)
    assert back == Record("orders", 3, 42, 1000, key=b"\x01k", value={"a": 1}, headers=(("a", b"\x00"), ("n", None), ("z", "last")))


def test_json_envelope_omits_a_missing_timestamp():
    document = json_envelope(Record("t", 0, 1, None, value="v"), EnvelopeFields())
    assert "timestamp" not in document["metadata"]
