"""The ``headers`` field of an envelope: its two layouts, legal Avro names, and widening.

``struct`` (the default, Lenses' layout) has one nullable field per header name; names Avro
forbids are escaped (:func:`avro_field_name`) and a new name widens the file's record
(:func:`widen_headers`) where Lenses fails or rolls. ``list`` (:data:`HEADER_LIST_SCHEMA`) keeps
Kafka's raw headers in order and never rolls a file. See docs/formats.md, "Envelope headers".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from lakesink.domain.schema.connect import connect_to_avro
from lakesink.domain.schema.model import Schema, kind, non_null, optional

HEADER_NAME = "lakesink.header.name"
"""The field property holding a header's original name when the field name had to be escaped."""

_LEGAL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPE_PREFIX = "esc__"
_WIDER = {
    ("int", "int"): "int",  # int8 and int16 (Avro ints tagged connect.type) and int32
    ("int", "long"): "long",
    ("long", "long"): "long",
    ("float", "double"): "double",
}

HEADER_LIST_SCHEMA: Schema = {
    "type": "array",
    "items": {
        "type": "record",
        "fields": [
            {"name": "key", "type": "string"},
            {"name": "value", "type": ["null", "bytes"], "default": None},
        ],
    },
}
"""The ``list`` layout: every header in Kafka's order, its value the raw bytes (null stays null)."""


@lru_cache(maxsize=4096)  # asked once per header of every record; a topic has few header names
def avro_field_name(name: str) -> str:
    """The Avro field of header ``name``: the name itself when legal, else its escape.

    The escape is ``esc__`` followed by the name with every character other than an ASCII letter
    or digit written as ``_<hex>_`` (``esc__reason_2d_for_2d_dlq``). It is injective (a legal name
    that starts with ``esc__`` is escaped too), so two headers never share a field, and the field
    records the original name under :data:`HEADER_NAME`; legal names stay as they are, so files
    match Lenses' wherever Lenses works.
    """
    if _LEGAL.fullmatch(name) and not name.startswith(_ESCAPE_PREFIX):
        return name
    return _ESCAPE_PREFIX + "".join(
        char if char.isascii() and char.isalnum() else f"_{ord(char):x}_" for char in name
    )


def header_schema(connect: Mapping[str, Any] | None) -> Schema:
    """The Avro schema of a header value whose converter gave this Connect schema (None = null)."""
    if connect is None:
        return "null"
    type_name = connect.get("type")
    if type_name == "array":
        return _optional_if(connect, {"type": "array", "items": header_schema(connect["items"])})
    if type_name == "map":
        return _optional_if(connect, {"type": "map", "values": header_schema(connect["values"])})
    return connect_to_avro(connect)


def _optional_if(connect: Mapping[str, Any], schema: Schema) -> Schema:
    return optional(schema) if connect.get("optional", False) else schema


def headers_record(headers: Mapping[str, Schema]) -> Schema:
    """The struct layout's record: one nullable field per header (name → schema), sorted by name."""
    fields = []
    for name in sorted(headers):
        field_name = avro_field_name(name)
        field: dict[str, Any] = {"name": field_name, "type": optional(headers[name]), "default": None}
        if field_name != name:
            field[HEADER_NAME] = name
        fields.append(field)
    return {"type": "record", "fields": fields}


def header_names(headers: Schema) -> dict[str, str]:
    """Field name → header name for a stored ``headers`` schema (struct layout); empty otherwise."""
    core = non_null(headers)
    if len(core) != 1 or not isinstance(core[0], Mapping) or kind(core[0]) != "record":
        return {}
    return {field["name"]: field.get(HEADER_NAME, field["name"]) for field in core[0]["fields"]}


def is_header_list(headers: Schema) -> bool:
    """Whether a stored ``headers`` schema is the ``list`` layout's."""
    core = non_null(headers)
    return len(core) == 1 and isinstance(core[0], Mapping) and kind(core[0]) == "array"


def widen_headers(file_schema: Schema, record_schema: Schema) -> Schema | None:
    """The file's envelope schema with the record's new header fields added; None when a
    header's type cannot widen (a string here, a number there: no
    single Avro type holds both without changing what the restore gives back). Every header field
    is nullable, so the rows already written stay valid with the wider schema; ints widen to long
    and float to double, as the Connect types do. The other fields stay the file's: whether the
    record's key, value and metadata fit them is the caller's check, as for any record."""
    if kind(file_schema) != "record" or kind(record_schema) != "record":
        return None
    ours = {field["name"]: field for field in file_schema["fields"]}
    theirs = {field["name"]: field for field in record_schema["fields"]}
    if ours.keys() != theirs.keys() or "headers" not in ours:
        return None
    merged = _merge_headers(ours["headers"]["type"], theirs["headers"]["type"])
    if merged is None:
        return None
    fields = [
        {**field, "type": merged} if field["name"] == "headers" else field for field in file_schema["fields"]
    ]
    return {**file_schema, "fields": fields}


def _merge_headers(left: Schema, right: Schema) -> Schema | None:
    if left == "null" or right == "null":
        return right if left == "null" else left
    left_record, right_record = non_null(left)[0], non_null(right)[0]
    if kind(left_record) != "record" or kind(right_record) != "record":
        return None
    by_name = {field["name"]: field for field in left_record["fields"]}
    for field in right_record["fields"]:
        known = by_name.get(field["name"])
        if known is None:
            by_name[field["name"]] = field
            continue
        widened = _merge_field_type(known["type"], field["type"])
        if widened is None:
            return None
        by_name[field["name"]] = {**known, "type": widened}
    fields = sorted(by_name.values(), key=lambda field: field.get(HEADER_NAME, field["name"]))
    return optional({**left_record, "fields": fields})


def _merge_field_type(left: Schema, right: Schema) -> Schema | None:
    """Two nullable header types: equal, one all-null, or integers (floats) of different widths."""
    left_core, right_core = non_null(left), non_null(right)
    if not left_core or not right_core:
        return optional((left_core or right_core or ["null"])[0])
    if left_core == right_core:
        return left
    pair = (kind(left_core[0]), kind(right_core[0]))
    wider = _WIDER.get(pair) or _WIDER.get((pair[1], pair[0]))
    return optional(wider) if wider is not None and len(left_core) == len(right_core) == 1 else None
