from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.schema_change import (
    SchemaChangeDetector,
    SchemaRules,
    is_newer,
    place,
    schema_changed,
)
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


def _place(detector, incoming, *, last=None, first=None, newest=None, latest=False):
    rules = SchemaRules(detector, latest_optimization=latest)
    return place(rules, incoming, newest=newest, file_schema=first or last, last=last)


def test_latest_schema_optimization_keeps_an_older_compatible_record_in_the_file():
    placement = _place(SchemaChangeDetector.DEFAULT, V1, last=V2, newest=V2, latest=True)
    assert not placement.roll and placement.declared == V2 and placement.write_with == V2
    assert adapt({"id": 5}, V2) == {"id": 5, "note": None}


def test_without_the_optimization_an_older_schema_rolls_with_the_default_detector():
    placement = _place(SchemaChangeDetector.DEFAULT, V1, last=V2, newest=V2)
    assert placement.roll and placement.declared == V1 and placement.newest == V2


def test_a_newer_schema_rolls_even_with_the_optimization_and_becomes_the_newest():
    placement = _place(SchemaChangeDetector.DEFAULT, V2, last=V1, newest=V1, latest=True)
    assert placement.roll and placement.declared == V2 and placement.newest == V2


def test_the_version_detector_keeps_an_older_record_in_the_newer_file():
    placement = _place(SchemaChangeDetector.VERSION, V1, last=V2)
    assert not placement.roll and placement.declared == V1 and placement.write_with == V2


def test_the_compatibility_detector_writes_a_readable_record_with_the_file_schema():
    placement = _place(SchemaChangeDetector.COMPATIBILITY, V2, last=V1)
    assert not placement.roll and placement.write_with == V1
    assert _place(SchemaChangeDetector.COMPATIBILITY, V1, last=V3_REQUIRED).roll


def test_a_record_the_file_schema_cannot_read_rolls_whatever_the_detector_says():
    # the last record was readable, the file's first schema cannot read this one
    placement = place(SchemaRules(SchemaChangeDetector.COMPATIBILITY), V1, newest=None, file_schema=V3_REQUIRED, last=V2)
    assert placement.roll


def test_without_versions_newer_means_reading_the_other_and_adding_fields():
    v1, v2 = ({key: value for key, value in s.items() if key != "connect.version"} for s in (V1, V2))
    assert is_newer(v2, v1) and not is_newer(v1, v2) and not is_newer(v1, dict(v1))
    assert schema_changed(SchemaChangeDetector.VERSION, v1, v2)
    assert not schema_changed(SchemaChangeDetector.VERSION, v2, v1)
    assert not is_newer({**V2, "name": "Other"}, V1)


def test_without_versions_the_optimization_never_drops_fields():
    newest = {key: value for key, value in V1.items() if key != "connect.version"}
    older_with_more_fields = {key: value for key, value in V2.items() if key != "connect.version"}
    placement = _place(SchemaChangeDetector.DEFAULT, older_with_more_fields, last=newest, newest=newest, latest=True)
    assert placement.roll and placement.declared == older_with_more_fields


def test_an_unknown_detector_names_the_setting():
    with pytest.raises(ConfigError, match="schema.change.detector"):
        SchemaChangeDetector.parse("sometimes")


def test_compatibility_of_recursive_types_terminates():
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"], "default": None}]}
    assert can_read(node, node)
