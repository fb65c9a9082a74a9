"""Choosing and configuring a header converter; what each gives for text it cannot read."""

from __future__ import annotations

import json
import pickle

import pytest

from lakesink.adapters.kafka.header_converters import (
    ByteArrayHeaderConverter,
    JsonHeaderConverter,
    SimpleHeaderConverter,
    StringHeaderConverter,
    create_header_converter,
)
from lakesink.domain.errors import ConfigError, RecordError


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (None, SimpleHeaderConverter),
        ("org.apache.kafka.connect.storage.SimpleHeaderConverter", SimpleHeaderConverter),
        (" String ", StringHeaderConverter),
        ("bytes", ByteArrayHeaderConverter),
        ("org.apache.kafka.connect.json.JsonConverter", JsonHeaderConverter),
    ],
)
def test_class_names_and_aliases(name, kind):
    assert isinstance(create_header_converter(name, {}), kind)


def test_a_value_only_converter_is_refused_naming_the_key():
    with pytest.raises(ConfigError, match="Unsupported header.converter 'avro'"):
        create_header_converter("avro", {})


def test_string_converter_honours_its_encoding_and_keeps_undecodable_bytes():
    latin = create_header_converter("string", {"converter.encoding": "latin-1"})
    assert latin.to_connect(b"caf\xe9", header="h", record="t-0@1") == ("café", "string")
    assert StringHeaderConverter().to_connect(b"\xe9", header="h", record="t-0@1") == (b"\xe9", "bytes")
    assert latin.from_connect("café", "string") == b"caf\xe9"


def test_json_converter_reports_a_header_that_is_not_json_as_a_poison_record():
    with pytest.raises(RecordError, match="t-0@7 header 'h'"):
        JsonHeaderConverter(schemas_enable=False).to_connect(b"{oops", header="h", record="t-0@7")


def test_the_simple_converter_pickles_without_its_cache():
    converter = SimpleHeaderConverter()
    converter.to_connect(b"12", header="h", record="t-0@1")
    copy = pickle.loads(pickle.dumps(converter))
    assert copy.to_connect(b"12", header="h", record="t-0@1") == (12, {"type": "int", "connect.type": "int8"})


def test_json_converter_writes_back_a_struct_or_timestamp_with_its_connect_schema():
    """Connect's JsonConverter writes a struct's fields and a Timestamp's name; a null schema would be
    read back as a map or a plain int64 (found by tests/integration/connect_oracle)."""
    converter = JsonHeaderConverter()
    struct = b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"a"}],"optional":false},"payload":{"a":"b"}}'
    stamp = b'{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp"},"payload":1717243200000}'
    for data in (struct, stamp):
        value, schema = converter.to_connect(data, header="h", record="t-0@1")
        assert json.loads(converter.from_connect(value, schema) or b"") == json.loads(data)
