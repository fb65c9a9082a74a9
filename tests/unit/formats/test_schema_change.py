from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.schema_change import SchemaChangeDetector, decide, schema_changed
from lakesink.domain.schema import adapt, can_read


def _record(version: int | None, *fields: tuple[str, object, bool]) -> dict:
    schema: dict = {"type": "record", "name": "Order", "namespace": "com.acme", "fields": []}
    if version is not None:
        schema["connect.version"] = version
    for name, type_, has_default in fields:
        field = {"name": name, "type": type_}
        if has_default:
            field["default"] = None
        schema["fields"].append(field)
    return schema


V1 = _record(1, ("id", "long", False))
V2 = _record(2, ("id", "long", False), ("note", ["null", "string"], True))
V3_REQUIRED = _record(3, ("id", "long", False), ("qty", "int", False))


def test_default_detector_sees_any_difference():
    assert schema_changed(SchemaChangeDetector.DEFAULT, V1, V2)
    assert not schema_changed(SchemaChangeDetector.DEFAULT, V1, dict(V1))


def test_version_detector_rolls_on_a_higher_version_or_another_name():
    assert schema_changed(SchemaChangeDetector.VERSION, V1, V2)
    assert not schema_changed(SchemaChangeDetector.VERSION, V2, V1)
    assert schema_changed(SchemaChangeDetector.VERSION, V1, {**V1, "name": "Other"})


def test_compatibility_detector_rolls_only_when_the_file_schema_cannot_read_the_record():
    assert not schema_changed(SchemaChangeDetector.COMPATIBILITY, V1, V2)  # extra field is ignored
    assert not schema_changed(SchemaChangeDetector.COMPATIBILITY, V2, V1)  # missing field has a default
    assert schema_changed(SchemaChangeDetector.COMPATIBILITY, V3_REQUIRED, V1)  # qty has no default


def test_reader_writer_compatibility_follows_avro_promotions():
    assert can_read("long", "int") and can_read("double", "long")
    assert not can_read("int", "long")
    assert can_read(["null", "string"], "string")
    assert not can_read("string", ["null", "string"])
    assert can_read({"type": "enum", "name": "E", "symbols": ["A", "B"]}, {"type": "enum", "name": "E", "symbols": ["A"]})


def test_latest_schema_optimization_keeps_an_older_compatible_record_in_the_file():
    decision = decide(SchemaChangeDetector.DEFAULT, V2, V1, latest_optimization=True)
    assert not decision.roll and decision.adapt and decision.schema == V2
    assert adapt({"id": 5}, V2) == {"id": 5, "note": None}


def test_without_the_optimization_an_older_schema_rolls():
    assert decide(SchemaChangeDetector.DEFAULT, V2, V1).roll


def test_a_newer_schema_rolls_even_with_the_optimization():
    decision = decide(SchemaChangeDetector.DEFAULT, V1, V2, latest_optimization=True)
    assert decision.roll and decision.schema == V2


def test_without_versions_the_optimization_never_drops_fields():
    newest = {**V1, "connect.version": None}
    older_with_more_fields = {**V2, "connect.version": None}
    assert decide(SchemaChangeDetector.DEFAULT, newest, older_with_more_fields, latest_optimization=True).roll


def test_an_unknown_detector_names_the_setting():
    with pytest.raises(ConfigError, match="schema.change.detector"):
        SchemaChangeDetector.parse("sometimes")


def test_compatibility_of_recursive_types_terminates():
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"], "default": None}]}
    assert can_read(node, node)
