"""The oracle corpus through lakesink, rendered as ConnectOracle.java renders Connect's results.

Each case goes down the sink's own per-record path: a :class:`RawRow` converted by the
configured :class:`Converters` (``RawRow.to_record``, as ``record_path._write_row`` calls it), then
the :class:`TransformChain` that ``build_chain`` makes of the config. The result is rendered in
the Java harness's tagged JSON, so the two compare as data: values by :func:`render`, schemas by
:func:`connect_schema` (lakesink's Avro-model schema mapped back to Connect's types), value and
key bytes by ``jsoncodec.dumps`` (what the JSON format writes, JsonConverter's fromConnectData
with ``schemas.enable=false``), header bytes by the header converter's ``from_connect``.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from collections.abc import Mapping
from typing import Any

from lakesink.adapters.formats.jsoncodec import dumps
from lakesink.adapters.formats.record_decoding import Converters, RawRow
from lakesink.domain.config.passthrough import parse_converter
from lakesink.domain.errors import ConfigError, FormatError, RecordError
from lakesink.domain.records import Record
from lakesink.domain.schema import model
from lakesink.domain.schema.resolve import schema_for
from lakesink.domain.transforms.chain import BatchClock
from lakesink.domain.transforms.registry import build_chain
from tests.support.connect_oracle.corpus import NOW_MS, Case

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DAY = dt.date(1970, 1, 1)
_AVRO_TO_CONNECT = {
    "boolean": "boolean",
    "int": "int32",
    "long": "int64",
    "float": "float32",
    "double": "float64",
    "bytes": "bytes",
    "string": "string",
}
_LOGICAL = {
    "timestamp-millis": ("int64", "org.apache.kafka.connect.data.Timestamp"),
    "date": ("int32", "org.apache.kafka.connect.data.Date"),
    "time-millis": ("int32", "org.apache.kafka.connect.data.Time"),
    "decimal": ("bytes", "org.apache.kafka.connect.data.Decimal"),
}


def run_lakesink(case: Case) -> dict[str, Any]:
    """The case's outcome in lakesink, shaped as the Java harness's result line."""
    props = case.props
    try:
        converters = Converters.create(
            parse_converter(props, "key"), parse_converter(props, "value"), parse_converter(props, "header")
        )
        chain = build_chain(props, BatchClock(NOW_MS))
    except ConfigError as error:
        return {"outcome": "config-error", "error": str(error)}
    m = case.message
    row = RawRow(m.topic, 3, 42, m.timestamp, m.key, m.value, m.headers)
    try:
        record = chain.apply(row.to_record(converters, decode_key=True, decode_value=True, decode_headers=True))
    except RecordError as error:
        return {"outcome": "record-error", "error": str(error)}
    if record is None:
        return {"outcome": "dropped"}
    return {"outcome": "record", **_rendered(record, converters)}


def _rendered(record: Record, converters: Converters) -> dict[str, Any]:
    result: dict[str, Any] = {"topic": record.topic, "partition": record.partition, "timestamp": record.timestamp}
    for name, data, hint in (("key", record.key, record.key_schema), ("value", record.value, record.value_schema)):
        result[name] = render(data, schemaless=hint is None)
        result[f"{name}_schema"] = None if hint is None else _schema(data, hint)
        try:
            result[f"{name}_json"] = None if data is None else _b64(dumps(data).encode())
        except (TypeError, ValueError) as error:
            result[f"{name}_json_error"] = str(error)
    result["headers"] = [
        _header(name, value, schema, converters)
        for (name, value), schema in zip(record.headers, record.aligned_header_schemas(), strict=True)
    ]
    return result


def _schema(data: Any, hint: Any) -> dict[str, Any] | None:
    try:
        return connect_schema(schema_for(data, hint))
    except FormatError as error:
        return {"type": f"error: {error}"}


def _header(name: str, value: Any, schema: Any, converters: Converters) -> dict[str, Any]:
    try:
        avro = schema if schema is not None else schema_for(value)
    except FormatError:
        avro = None
    data = converters.header.from_connect(value, avro)
    return {
        "name": name,
        "value": render(value, schemaless=schema is None),
        "schema": None if avro is None else connect_schema(avro),
        "bytes": _b64(data),
    }


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def render(value: Any, *, schemaless: bool = False) -> Any:
    """Python data in the harness's tagged JSON (``{"$bytes": …}``, ``{"$decimal": …}``, times).

    ``schemaless``: the data has no schema, where Connect holds a date, a time and a timestamp
    alike as a ``java.util.Date`` (the harness renders each as ``$timestamp``).
    """
    if schemaless and isinstance(value, dt.date | dt.time) and not isinstance(value, dt.datetime):
        return {"$timestamp": next(iter(render(value).values())) * (86_400_000 if isinstance(value, dt.date) else 1)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": _b64(bytes(value))}
    if isinstance(value, decimal.Decimal):
        return {"$decimal": format(value, "f")}
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return {"$timestamp": (aware - _EPOCH) // dt.timedelta(milliseconds=1)}
    if isinstance(value, dt.date):
        return {"$date": (value - _EPOCH_DAY).days}
    if isinstance(value, dt.time):
        since = dt.datetime.combine(_EPOCH_DAY, value) - dt.datetime.combine(_EPOCH_DAY, dt.time())
        return {"$time": since // dt.timedelta(milliseconds=1)}
    if isinstance(value, Mapping):
        return {str(key): render(item, schemaless=schemaless) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [render(item, schemaless=schemaless) for item in value]
    return {"$unknown": f"{type(value).__name__}: {value!r}"}


def connect_schema(schema: Any) -> dict[str, Any] | None:
    """lakesink's Avro-model schema as the Connect schema it stands for, in the harness's form."""
    branches = model.non_null(schema)
    if branches == [] or schema == "null":
        return None
    optional = model.is_nullable(schema)
    if len(branches) != 1:
        return {"type": f"union{branches!r}", "optional": optional}
    core = branches[0]
    kind = model.kind(core)
    out: dict[str, Any]
    logical = model.logical(core)
    if logical in _LOGICAL:
        type_name, name = _LOGICAL[logical]
        return {"type": type_name, "optional": optional, "name": name}
    if kind in _AVRO_TO_CONNECT:
        connect_type = core.get("connect.type") if isinstance(core, Mapping) else None
        return {"type": connect_type or _AVRO_TO_CONNECT[kind], "optional": optional}
    if kind == "record":
        out = {"type": "struct", "optional": optional}
        if core.get("name") and core["name"] != model.CONNECT_DEFAULT_NAME:
            out["name"] = model.full_name(core)
        out["fields"] = [[f["name"], connect_schema(f["type"])] for f in core["fields"]]
        return out
    if kind == "array":
        return {"type": "array", "optional": optional, "items": connect_schema(core["items"])}
    if kind == "map":
        return {
            "type": "map",
            "optional": optional,
            "keys": {"type": "string", "optional": False},
            "values": connect_schema(core["values"]),
        }
    return {"type": f"avro:{kind}", "optional": optional}
