"""Record's cheap copies keep every field they do not change."""

from __future__ import annotations

import dataclasses

from lakesink.domain.records import Record


def test_with_value_changes_the_value_and_its_schema_only() -> None:
    record = Record("t", 3, 42, 1_700_000_000_000, key=b"k", value={"a": 1}, headers=(("h", b"v"),),
                    key_schema="bytes", value_schema={"type": "record", "name": "A", "fields": []},
                    header_schemas=("bytes",))
    changed = record.with_value({"b": 2}, "string")
    assert changed == dataclasses.replace(record, value={"b": 2}, value_schema="string")
    same = {f.name for f in dataclasses.fields(Record)} - {"value", "value_schema"}
    assert all(getattr(changed, name) is getattr(record, name) for name in same)
    assert (changed.value, changed.value_schema) == ({"b": 2}, "string")
