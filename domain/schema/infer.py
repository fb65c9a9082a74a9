"""Schemas of schemaless data: infer one per value, merge them, check a value fits.

A record that does not fit its file's schema (:mod:`.check`) rolls the file; :func:`merge` widens
a schema over a batch first, so a batch with a few nullable fields lands in one file.
See docs/formats.md, "Values and schemas".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.schema.check import decimal_scale
from lakesink.domain.schema.model import (
    DATE,
    TIME_MILLIS,
    TIMESTAMP_MILLIS,
    Schema,
    decimal,
    kind,
    logical,
    non_null,
    optional,
)

_EMPTY_MAP: Schema = {"type": "map", "values": "null"}
_NUMERIC_RANK = {"int": 0, "long": 1, "float": 2, "double": 3}


def infer(value: Any) -> Schema:
    """The schema of one value.

    Raises:
        FormatError: the value holds a type no schema can describe (a set, an object with
            non-string keys, an array mixing strings and numbers…).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes | bytearray | memoryview):
        return "bytes"
    if isinstance(value, Decimal):
        return decimal(decimal_scale(value))
    if isinstance(value, datetime):
        return TIMESTAMP_MILLIS
    if isinstance(value, date):
        return DATE
    if isinstance(value, time):
        return TIME_MILLIS
    if isinstance(value, Mapping):
        return _infer_object(value)
    if isinstance(value, Sequence):
        items: Schema = None
        for item in value:
            item_schema = infer(item)
            merged = item_schema if items is None else merge(items, item_schema)
            if merged is None:
                raise FormatError(f"cannot infer a schema for an array mixing {items!r} and {item!r}")
            items = merged
        return {"type": "array", "items": "null" if items is None else items}
    raise FormatError(f"cannot infer a schema for a value of type {type(value).__name__}")


def _infer_object(value: Mapping[Any, Any]) -> Schema:
    if not value:
        return _EMPTY_MAP
    fields = []
    for name, item in value.items():
        if not isinstance(name, str):
            raise FormatError(f"cannot infer a schema for an object with a non-string key {name!r}")
        fields.append({"name": name, "type": optional(infer(item)), "default": None})
    return {"type": "record", "fields": fields}


def merge(left: Schema, right: Schema) -> Schema | None:
    """The narrowest schema both ``left`` and ``right`` values fit, or None when they conflict.

    Deliberately simple, so a file's schema is predictable: fields keep their first-seen order
    (Lenses sorts them by name); every inferred field is optional, so a missing field or a ``None``
    fits; integers are ``long``, and ``long`` and ``double`` merge to ``double``; an empty object is
    an empty ``map`` (Parquet cannot store a struct without fields); anything else that differs
    (string vs number, object vs array…) does not merge.
    """
    if left == right:
        return left
    left_core, right_core = non_null(left), non_null(right)
    if len(left_core) > 1 or len(right_core) > 1:
        return None  # explicit multi-type unions are never widened
    nullable = len(left_core) < _branch_count(left) or len(right_core) < _branch_count(right)
    if not left_core or not right_core:
        core = (left_core or right_core)[0]
        return optional(core)
    core = _merge_core(left_core[0], right_core[0])
    if core is None:
        return None
    return optional(core) if nullable else core


def _branch_count(schema: Schema) -> int:
    return len(schema) if isinstance(schema, list) else 1


def _merge_core(left: Schema, right: Schema) -> Schema | None:
    if left == right:
        return left
    left_kind, right_kind = kind(left), kind(right)
    if logical(left) or logical(right):
        return _merge_logical(left, right)
    if left_kind in _NUMERIC_RANK and right_kind in _NUMERIC_RANK:
        if "float" in (left_kind, right_kind) or "double" in (left_kind, right_kind):
            return "double"
        return "long"
    if left == _EMPTY_MAP and right_kind in ("record", "map"):
        return right
    if right == _EMPTY_MAP and left_kind in ("record", "map"):
        return left
    if left_kind != right_kind:
        return None
    if left_kind == "record":
        return _merge_records(left, right)
    if left_kind == "array":
        items = merge(left["items"], right["items"])
        return None if items is None else {**left, "items": items}
    if left_kind == "map":
        values = merge(left["values"], right["values"])
        return None if values is None else {**left, "values": values}
    return left if left_kind in _NUMERIC_RANK or left_kind in ("string", "bytes", "boolean") else None


def _merge_logical(left: Schema, right: Schema) -> Schema | None:
    if logical(left) != logical(right) or kind(left) != kind(right):
        return None
    if logical(left) == "decimal" and left.get("precision") == right.get("precision"):
        return {**left, "scale": max(left.get("scale", 0), right.get("scale", 0))}
    return None


def _merge_records(left: Schema, right: Schema) -> Schema | None:
    if "name" in left and "name" in right and left["name"] != right["name"]:
        return None
    right_fields = {field["name"]: field for field in right["fields"]}
    fields = []
    for field in left["fields"]:
        other = right_fields.pop(field["name"], None)
        if other is None:
            fields.append(_optional_field(field))
            continue
        merged = merge(field["type"], other["type"])
        if merged is None:
            return None
        fields.append({**field, "type": merged} if merged is not field["type"] else field)
    fields.extend(_optional_field(field) for field in right_fields.values())
    return {**left, "fields": fields}


def _optional_field(field: Mapping[str, Any]) -> dict[str, Any]:
    return {**field, "type": optional(field["type"]), "default": None}
