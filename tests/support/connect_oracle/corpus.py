"""The records and configs the Connect oracle runs through Kafka Connect and through lakesink.

A case is one Kafka message (bytes as Kafka holds them) and one connector config (converters,
``transforms``, ``predicates``). Messages are the awkward ones: nulls, tombstones, nested structs,
arrays, maps, decimals, dates, times, timestamps, unicode, Connect envelopes, headers of every
type; configs are each converter both ways and each Kafka SMT lakesink runs, with and without a
schema, alone and chained behind predicates.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
SMT = "org.apache.kafka.connect.transforms."
PREDICATE = SMT + "predicates."
NOW_MS = 1_717_245_045_123  # 2024-06-01T12:30:45.123Z
DECIMAL = "org.apache.kafka.connect.data.Decimal"
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"


@dataclass(frozen=True)
class Message:
    """A Kafka message as read: what both sides' converters start from."""

    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp: int | None = NOW_MS
    topic: str = "orders-raw"
    converters: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One message under one config; ``id`` names it in the test's report."""

    id: str
    message: Message
    props: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        """The line the Java harness reads (bytes in base64)."""
        m = self.message
        return {
            "id": self.id,
            "props": dict(self.props),
            "topic": m.topic,
            "partition": 3,
            "offset": 42,
            "timestamp": m.timestamp,
            "key": _b64(m.key),
            "value": _b64(m.value),
            "headers": [[name, _b64(data)] for name, data in m.headers],
        }


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def converter(which: str, class_name: str, **settings: str) -> dict[str, str]:
    """``{which}.converter`` and its settings (``schemas_enable`` → ``schemas.enable``)."""
    props = {f"{which}.converter": class_name}
    props.update({f"{which}.converter.{name.replace('_', '.')}": value for name, value in settings.items()})
    return props


def envelope(schema: Mapping[str, Any] | None, payload: Any) -> bytes:
    """A JsonConverter message with ``schemas.enable=true``."""
    return json.dumps({"schema": schema, "payload": payload}, ensure_ascii=False).encode()


def plain(document: Any) -> bytes:
    """A schemaless JSON message."""
    return json.dumps(document, ensure_ascii=False).encode()


def s(type_name: str, optional: bool = False, **extra: Any) -> dict[str, Any]:
    """A Connect schema (``field=`` names it inside a struct)."""
    return {"type": type_name, "optional": optional, **extra}


def struct(*fields: dict[str, Any], name: str | None = None, optional: bool = False, **extra: Any) -> dict[str, Any]:
    """A Connect struct schema (``field=`` names it inside a struct)."""
    schema = s("struct", optional, fields=list(fields), **extra)
    if name:
        schema["name"] = name
    return schema


def decimal_b64(unscaled: int) -> str:
    """A Decimal payload in JsonConverter's default BASE64 form."""
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


JSON_ON = converter("value", JSON, schemas_enable="true")
JSON_OFF = converter("value", JSON, schemas_enable="false")
KEY_STRING = converter("key", STRING)
KEY_JSON_ON = converter("key", JSON, schemas_enable="true")
KEY_JSON_OFF = converter("key", JSON, schemas_enable="false")

ORDER_SCHEMA = struct(
    s("int64", field="id"),
    s("string", field="name"),
    s("bytes", name=DECIMAL, parameters={"scale": "2"}, field="amount"),
    s("boolean", field="active"),
    s("double", field="ratio"),
    s("float", field="score"),
    s("int8", field="small"),
    s("int16", field="mid"),
    s("int32", field="count"),
    s("int64", name=TIMESTAMP, field="created"),
    s("int32", name=DATE, field="day"),
    s("int32", name=TIME, field="at"),
    s("bytes", field="blob"),
    s("string", True, field="note"),
    name="com.example.Order",
)
ORDER = {
    "id": 1001,
    "name": "Zoë ☕",
    "amount": decimal_b64(-12345),
    "active": True,
    "ratio": 0.25,
    "score": 1.5,
    "small": -8,
    "mid": 300,
    "count": 7,
    "created": 1_717_243_200_000,
    "day": 19875,
    "at": 45_045_123,
    "blob": base64.b64encode(b"\x00\xffraw").decode(),
    "note": None,
}
NESTED_SCHEMA = struct(
    s("int32", field="id"),
    struct(
        s("string", field="name"),
        struct(s("string", field="city"), s("string", True, field="zip"), field="address"),
        field="customer",
    ),
    s("array", items=s("string"), field="tags"),
    s("map", keys=s("string"), values=s("int32"), field="attrs"),
    struct(s("double", field="lat"), field="geo", optional=True),
    name="com.example.Nested",
)
NESTED = {
    "id": 7,
    "customer": {"name": "Ana", "address": {"city": "Zürich", "zip": None}},
    "tags": ["a", "ü"],
    "attrs": {"x": 1, "y": 2},
    "geo": None,
}
SCHEMALESS = {
    "id": 5,
    "name": "日本語 😀",
    "price": 9.5,
    "whole": 3.0,
    "ok": True,
    "none": None,
    "created": 1_717_243_200_000,
    "when": "2024-06-01 12:30:45",
    "user": {"name": "Bo", "age": 30, "address": {"city": "Oslo"}},
    "tags": ["x", "y"],
}

SIMPLE_HEADERS: tuple[tuple[str, bytes | None], ...] = (
    ("text", b"hello"),
    ("int", b"42"),
    ("negative", b"-7"),
    ("long", b"12345678901"),
    ("huge", b"12345678901234567890"),
    ("float", b"3.14"),
    ("exp", b"1.5E10"),
    ("true", b"true"),
    ("null", None),
    ("empty", b""),
    ("list", b"[1,2,3]"),
    ("mixed-list", b'[1,"a"]'),
    ("map", b'{"a":1,"b":2}'),
    ("nested", b'{"a":[1,2]}'),
    ("date", b"2024-06-01"),
    ("time", b"12:30:45.123"),
    ("time-z", b"12:30:45.123Z"),
    ("timestamp", b"2024-06-01T12:30:45.123Z"),
    ("quoted", b'"x"'),
    ("spaces", b" a b "),
    ("unicode", "ключ ☕".encode()),
    ("not-utf8", b"\xff\xfe"),
    ("dup", b"1"),
    ("dup", b"2"),
)
JSON_HEADERS: tuple[tuple[str, bytes | None], ...] = (
    ("env-int", envelope(s("int32"), 5)),
    ("env-string", envelope(s("string"), "héllo")),
    ("env-struct", envelope(struct(s("string", field="a")), {"a": "b"})),
    ("env-ts", envelope(s("int64", name=TIMESTAMP), 1_717_243_200_000)),
    ("env-null-schema", envelope(None, {"k": [1, 2]})),
    ("env-null", None),
)

MESSAGES: dict[str, Message] = {
    "order": Message(
        b"order-1001", envelope(ORDER_SCHEMA, ORDER), (("text", b"hello"), ("int", b"42")), converters={**KEY_STRING, **JSON_ON}
    ),
    "headers": Message(b"h", plain({"id": 1}), SIMPLE_HEADERS, converters={**KEY_STRING, **JSON_OFF}),
    "nested": Message(
        envelope(struct(s("int32", field="id")), {"id": 7}),
        envelope(NESTED_SCHEMA, NESTED),
        (("source", b"crm"),),
        converters={**KEY_JSON_ON, **JSON_ON},
    ),
    "schemaless": Message(
        plain({"id": 5}), plain(SCHEMALESS), (("source", b"web"), ("n", b"1")), converters={**KEY_JSON_OFF, **JSON_OFF}
    ),
    "tombstone": Message(b"gone", None, (("source", b"crm"),), converters={**KEY_STRING, **JSON_ON}),
    "schemaless-tombstone": Message(b"gone", None, converters={**KEY_STRING, **JSON_OFF}),
    "null-key-no-timestamp": Message(None, plain({"id": 9}), timestamp=None, converters={**KEY_STRING, **JSON_OFF}),
    "unicode": Message(
        "ключ".encode(),
        plain({"text": "日本語 😀", "emoji": "\u2603"}),
        topic="événements",
        converters={**KEY_STRING, **JSON_OFF},
    ),
    "primitive": Message(b"k", envelope(s("int64"), 1_717_243_200_000), converters={**KEY_STRING, **JSON_ON}),
    "primitive-string": Message(b"k", envelope(s("string"), "2024-06-01T12:30:45"), converters={**KEY_STRING, **JSON_ON}),
    "array": Message(b"k", envelope(s("array", items=s("int32")), [1, 2, 3]), converters={**KEY_STRING, **JSON_ON}),
    "int-key-map": Message(
        b"k", envelope(s("map", keys=s("int32"), values=s("string")), [[1, "a"], [2, "b"]]), converters={**KEY_STRING, **JSON_ON}
    ),
    "defaults": Message(
        b"k",
        envelope(struct(s("int32", True, default=5, field="d"), s("string", True, field="o")), {"d": None, "o": None}),
        converters={**KEY_STRING, **JSON_ON},
    ),
    "decimal-numeric": Message(
        b"k", envelope(s("bytes", name=DECIMAL, parameters={"scale": "3"}), 12.345), converters={**KEY_STRING, **JSON_ON}
    ),
    "null-schema-envelope": Message(b"k", envelope(None, {"a": 1, "b": [True, None]}), converters={**KEY_STRING, **JSON_ON}),
    "numbers": Message(
        b"",
        envelope(
            struct(
                s("float", field="f"), s("double", field="d"), s("int64", field="big"), s("int8", field="i8"),
                s("string", field="t"), s("string", field="n"), s("double", field="neg"), s("boolean", field="b"),
                s("string", True, default="dflt", field="withdefault"), struct(field="empty"),
            ),
            {"f": 0.1, "d": 0.1, "big": 9007199254740993, "i8": 127, "t": "true", "n": "300", "neg": -2.75,
             "b": False, "withdefault": None, "empty": {}},
        ),
        converters={**KEY_STRING, **JSON_ON},
    ),
    "string-value": Message(b"k", "plain text ☕".encode(), converters={**KEY_STRING, **converter("value", STRING)}),
    "json-headers": Message(
        b"k",
        plain({"id": 1}),
        JSON_HEADERS,
        converters={**KEY_STRING, **JSON_OFF, **converter("header", JSON, schemas_enable="true")},
    ),
    "plain-json-headers": Message(
        b"k",
        plain({"id": 1}),
        (("n", b"5"), ("o", b'{"a":[1,2.5]}'), ("s", b'"t"'), ("nul", None)),
        converters={**KEY_STRING, **JSON_OFF, **converter("header", JSON, schemas_enable="false")},
    ),
    "string-headers": Message(
        b"k", plain({"id": 1}), (("n", b"5"), ("u", "ü".encode()), ("nul", None)),
        converters={**KEY_STRING, **JSON_OFF, **converter("header", STRING)},
    ),
}


def transforms(*steps: tuple[str, Mapping[str, str]], **predicates: Mapping[str, str]) -> dict[str, str]:
    """A ``transforms=`` chain of ``(class, options)`` steps (aliases t0, t1…) and named predicates."""
    props = {"transforms": ",".join(f"t{i}" for i in range(len(steps)))}
    for i, (class_name, options) in enumerate(steps):
        props[f"t{i}.type"] = class_name if "." in class_name else SMT + class_name
        props.update({f"t{i}.{name}": value for name, value in options.items()})
    props = {f"transforms.{k}" if k != "transforms" else k: v for k, v in props.items()}
    if predicates:
        props["predicates"] = ",".join(predicates)
        for alias, options in predicates.items():
            for name, value in options.items():
                props[f"predicates.{alias}.{name}"] = value if name != "type" or "." in value else PREDICATE + value
    return props


def step(class_name: str, **options: str) -> tuple[str, dict[str, str]]:
    """One transform; option names with ``_`` for ``.`` (``static_value`` → ``static.value``)."""
    return class_name, {name.replace("_", "."): value for name, value in options.items()}


SCHEMAFUL = ("order", "nested")
STRUCTURED = ("order", "nested", "schemaless")

CHAINS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    # name: (transforms/predicates props, messages it runs on)
    "insert-field": (
        transforms(step("InsertField$Value", topic_field="t", partition_field="p", offset_field="o!",
                        timestamp_field="ts?", static_field="src", static_value="lakesink")),
        (*STRUCTURED, "null-key-no-timestamp", "tombstone", "primitive"),
    ),
    "insert-field-key": (transforms(step("InsertField$Key", topic_field="t")), ("nested", "schemaless", "order")),
    "replace-exclude": (transforms(step("ReplaceField$Value", exclude="name,blob,tags,nope")), (*STRUCTURED, "tombstone")),
    "replace-include-renames": (
        transforms(step("ReplaceField$Value", include="id,name,customer,user", renames="id:ident,name:label")),
        STRUCTURED,
    ),
    "replace-legacy-names": (transforms(step("ReplaceField$Value", blacklist="id", whitelist="id,name")), STRUCTURED),
    "mask": (
        transforms(step("MaskField$Value", fields="id,name,amount,active,ratio,score,small,created,day,blob,tags,user,attrs,none")),
        (*STRUCTURED, "tombstone"),
    ),
    "mask-replacement-string": (transforms(step("MaskField$Value", fields="name", replacement="***")), STRUCTURED),
    "mask-replacement-number": (transforms(step("MaskField$Value", fields="id,count,price", replacement="0")), STRUCTURED),
    "mask-bad-replacement": (transforms(step("MaskField$Value", fields="id", replacement="abc")), STRUCTURED),
    "cast-fields": (
        transforms(step("Cast$Value", spec="id:string,ratio:int32,active:int8,count:float64,score:string,small:boolean,price:string,ok:int32,name:string,whole:int64")),
        STRUCTURED,
    ),
    "cast-logical-to-string": (transforms(step("Cast$Value", spec="amount:string,created:string,day:string,at:string")), ("order",)),
    "cast-decimal-to-float": (transforms(step("Cast$Value", spec="amount:float64")), ("order",)),
    "cast-string-to-number": (transforms(step("Cast$Value", spec="name:int32")), ("order", "schemaless")),
    "cast-whole": (transforms(step("Cast$Value", spec="string")), ("primitive", "primitive-string", "string-value")),
    "cast-whole-int": (transforms(step("Cast$Value", spec="int32")), ("primitive", "schemaless")),
    "cast-numbers": (
        transforms(step("Cast$Value", spec="f:float64,d:float32,big:int8,i8:string,t:boolean,n:int16,neg:int32,b:string")),
        ("numbers",),
    ),
    "cast-string-to-bool": (transforms(step("Cast$Value", spec="t:boolean,n:float32")), ("numbers",)),
    "cast-replace-null-default": (
        transforms(step("Cast$Value", spec="withdefault:string", replace_null_with_default="false")),
        ("numbers",),
    ),
    "mask-numbers": (transforms(step("MaskField$Value", fields="f,d,big,i8,t,b,empty,withdefault")), ("numbers",)),
    "extract-default": (transforms(step("ExtractField$Value", field="withdefault")), ("numbers",)),
    "extract-default-off": (
        transforms(step("ExtractField$Value", field="withdefault", replace_null_with_default="false")),
        ("numbers",),
    ),
    "flatten-empty": (transforms(step("Flatten$Value")), ("numbers",)),
    "insert-header-typed": (
        transforms(
            step("InsertHeader", header="d", value_literal="2024-06-01"),
            step("InsertHeader", header="f", value_literal="0.1"),
            step("InsertHeader", header="e", value_literal=""),
            step("InsertHeader", header="m", value_literal="{a:1}"),
        ),
        ("schemaless",),
    ),
    "header-from-numbers": (
        transforms(step("HeaderFrom$Value", fields="f,d,big,empty", headers="hf,hd,hbig,hempty", operation="copy")),
        ("numbers",),
    ),
    "insert-field-numbers": (transforms(step("InsertField$Value", timestamp_field="ts", offset_field="o")), ("numbers", "null-key-no-timestamp")),
    "ts-router-no-ts": (transforms(step("TimestampRouter", topic_format="x-${timestamp}")), ("null-key-no-timestamp",)),
    "cast-bad-type": (transforms(step("Cast$Value", spec="id:uuid")), ("order",)),
    "cast-key": (transforms(step("Cast$Key", spec="id:string")), ("nested", "schemaless")),
    "ts-to-string": (
        transforms(step("TimestampConverter$Value", field="created", target_type="string", format="yyyy-MM-dd'T'HH:mm:ss.SSSXXX")),
        ("order", "schemaless"),
    ),
    "ts-to-unix-seconds": (
        transforms(step("TimestampConverter$Value", field="created", target_type="unix", unix_precision="seconds")),
        ("order", "schemaless"),
    ),
    "ts-to-date": (transforms(step("TimestampConverter$Value", field="created", target_type="Date")), ("order", "schemaless")),
    "ts-to-time": (transforms(step("TimestampConverter$Value", field="created", target_type="Time")), ("order", "schemaless")),
    "ts-date-to-timestamp": (transforms(step("TimestampConverter$Value", field="day", target_type="Timestamp")), ("order",)),
    "ts-from-string": (
        transforms(step("TimestampConverter$Value", field="when", target_type="Timestamp", format="yyyy-MM-dd HH:mm:ss")),
        ("schemaless",),
    ),
    "ts-whole-value": (
        transforms(step("TimestampConverter$Value", target_type="string", format="yyyyMMdd")),
        ("primitive", "primitive-string"),
    ),
    "ts-unix-micros": (
        transforms(step("TimestampConverter$Value", field="created", target_type="Timestamp", unix_precision="microseconds")),
        ("schemaless",),
    ),
    "extract": (transforms(step("ExtractField$Value", field="customer")), ("nested", "schemaless", "tombstone")),
    "extract-user": (transforms(step("ExtractField$Value", field="user")), ("schemaless",)),
    "extract-nested-v2": (
        transforms(step("ExtractField$Value", field="customer.address.city", field_syntax_version="V2")),
        ("nested",),
    ),
    "extract-nested-v2-schemaless": (
        transforms(step("ExtractField$Value", field="user.address.city", field_syntax_version="V2")),
        ("schemaless",),
    ),
    "extract-missing": (transforms(step("ExtractField$Value", field="nope")), STRUCTURED),
    "extract-key": (transforms(step("ExtractField$Key", field="id")), ("nested", "schemaless")),
    "flatten": (transforms(step("Flatten$Value")), (*STRUCTURED, "tombstone", "defaults")),
    "flatten-delimiter": (transforms(step("Flatten$Value", delimiter="_")), ("nested", "schemaless")),
    "hoist": (transforms(step("HoistField$Value", field="wrapped")), (*STRUCTURED, "primitive", "string-value", "tombstone")),
    "hoist-key": (transforms(step("HoistField$Key", field="k")), ("order", "nested")),
    "value-to-key": (transforms(step("ValueToKey", fields="id,name")), ("order", "schemaless")),
    "value-to-key-missing": (transforms(step("ValueToKey", fields="id,nope")), ("order", "schemaless")),
    "regex-router": (transforms(step("RegexRouter", regex="(.*)-raw", replacement="$1-clean")), ("order", "unicode")),
    "regex-router-partial": (transforms(step("RegexRouter", regex="raw", replacement="x")), ("order",)),
    "timestamp-router": (transforms(step("TimestampRouter")), ("order", "null-key-no-timestamp")),
    "timestamp-router-format": (
        transforms(step("TimestampRouter", topic_format="lake_${timestamp}_${topic}", timestamp_format="yyyy/MM/dd HH")),
        ("order",),
    ),
    "insert-header": (
        transforms(
            step("InsertHeader", header="origin", value_literal="lakesink"),
            step("InsertHeader", header="version", value_literal="42"),
            step("InsertHeader", header="list", value_literal="[1,2]"),
        ),
        ("schemaless", "order"),
    ),
    "drop-headers": (transforms(step("DropHeaders", headers="text,dup,null,missing")), ("headers",)),
    "header-from-copy": (
        transforms(step("HeaderFrom$Value", fields="id,name,created,customer", headers="h_id,h_name,h_created,h_customer", operation="copy")),
        STRUCTURED,
    ),
    "header-from-move": (
        transforms(step("HeaderFrom$Value", fields="id,user", headers="h_id,h_user", operation="move")),
        STRUCTURED,
    ),
    "header-from-struct": (
        transforms(step("HeaderFrom$Value", fields="customer,tags,attrs,geo", headers="c,t,a,g", operation="move")),
        ("nested",),
    ),
    "header-from-key": (transforms(step("HeaderFrom$Key", fields="id", headers="kid", operation="copy")), ("nested", "schemaless")),
    "filter-topic": (
        transforms(step("Filter", predicate="raw"), raw={"type": "TopicNameMatches", "pattern": ".*-raw"}),
        ("order", "unicode"),
    ),
    "filter-topic-negate": (
        transforms(step("Filter", predicate="raw", negate="true"), raw={"type": "TopicNameMatches", "pattern": "orders-.*"}),
        ("order", "unicode"),
    ),
    "filter-header": (
        transforms(step("Filter", predicate="h"), h={"type": "HasHeaderKey", "name": "source"}),
        ("schemaless", "unicode", "tombstone"),
    ),
    "filter-tombstone": (
        transforms(step("Filter", predicate="tomb"), tomb={"type": "RecordIsTombstone"}),
        ("tombstone", "order", "schemaless-tombstone"),
    ),
    "filter-all": (transforms(step("Filter")), ("order",)),
    "chain-guarded": (
        transforms(
            step("InsertField$Value", predicate="live", negate="true", static_field="kind", static_value="live"),
            step("RegexRouter", predicate="raw", regex="orders-(.*)", replacement="o_$1"),
            step("Flatten$Value", delimiter="."),
            step("DropHeaders", headers="source"),
            step("InsertHeader", header="seen", value_literal="true"),
            live={"type": "RecordIsTombstone"},
            raw={"type": "TopicNameMatches", "pattern": "orders-.*"},
        ),
        ("nested", "schemaless", "tombstone", "unicode"),
    ),
}


def cases() -> Iterator[Case]:
    """Every message alone (converters only), then every chain over its messages."""
    for name, message in MESSAGES.items():
        yield Case(f"convert/{name}", message, dict(message.converters))
    for chain_name, (props, names) in CHAINS.items():
        for name in names:
            message = MESSAGES[name]
            yield Case(f"{chain_name}/{name}", message, {**message.converters, **props})
