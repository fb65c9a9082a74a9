"""From a record's key or value to a schema, and from an older schema's value to a newer one.

A record's schema comes from its converter when it has one (``Record.value_schema`` holding
an Avro schema or a Connect schema) and is inferred from the data otherwise.
:func:`adapt` applies Avro's schema-resolution rules to a value, which is what
``latest.schema.optimization`` needs: a record written with an older, backward-compatible
schema is rewritten in the shape of the newest schema instead of rolling the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lakesink.domain.errors import FormatError
from lakesink.domain.schema.check import fits
from lakesink.domain.schema.connect import connect_to_avro, is_connect_schema
from lakesink.domain.schema.infer import infer
from lakesink.domain.schema.model import Names, Schema, from_avro, is_nullable, kind, non_null


def schema_for(value: Any, hint: Any = None) -> Schema:
    """The schema of ``value``: its converter's ``hint`` (Avro or Connect) or an inferred one.

    Raises:
        FormatError: the hint is not a schema, or nothing can be inferred from the value.
    """
    if hint is None:
        return infer(value)
    if is_connect_schema(hint):
        return connect_to_avro(hint)
    return from_avro(hint)


def adapt(value: Any, schema: Schema) -> Any:
    """``value`` reshaped for ``schema``: unknown fields dropped, missing ones defaulted.

    Raises:
        FormatError: a field the schema requires is missing and has no default, or a value
            fits none of a union's branches.
    """
    return _adapt(value, schema, Names(schema))


def _adapt(value: Any, schema: Schema, names: Names) -> Any:
    if isinstance(schema, list):
        if value is None and is_nullable(schema):
            return None
        for branch in non_null(schema):
            adapted = _adapt_or_none(value, branch, names)
            if adapted is not None and fits(adapted, names.resolve(branch)):
                return adapted
        raise FormatError(f"value {value!r} fits no branch of {schema!r}")
    schema = names.resolve(schema)
    type_name = kind(schema)
    if type_name in ("record", "error") and isinstance(value, Mapping):
        out = {}
        for field in schema["fields"]:
            name = field["name"]
            if name in value:
                out[name] = _adapt(value[name], field["type"], names)
            elif "default" in field:
                out[name] = field["default"]
            elif is_nullable(field["type"]):
                out[name] = None
            else:
                raise FormatError(f"field {name!r} is missing and has no default")
        return out
    if type_name == "array" and isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_adapt(item, schema["items"], names) for item in value]
    if type_name == "map" and isinstance(value, Mapping):
        return {key: _adapt(item, schema["values"], names) for key, item in value.items()}
    return value


def _adapt_or_none(value: Any, schema: Schema, names: Names) -> Any:
    try:
        return _adapt(value, schema, names)
    except FormatError:
        return None
