"""The field option of Lenses' header SMTs: prefixes, and what an unprefixed path means."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.transforms.lenses_fields import FieldPath, Source, field_path
from lakesink.domain.transforms.options import TransformOptions


def parsed(text: str | None) -> FieldPath:
    settings = {} if text is None else {"field": text}
    return field_path(TransformOptions("transforms.t.", "SomeSmt", settings))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, FieldPath(Source.VALUE, ())),
        ("", FieldPath(Source.VALUE, ())),
        ("created", FieldPath(Source.VALUE, ("created",))),
        ("timestamp", FieldPath(Source.VALUE, ("timestamp",))),
        ("_value.a.b", FieldPath(Source.VALUE, ("a", "b"))),
        ("_Key", FieldPath(Source.KEY, ())),
        ("_key.meta.at", FieldPath(Source.KEY, ("meta", "at"))),
        ("_timestamp", FieldPath(Source.TIMESTAMP, ())),
        ("a.b.", FieldPath(Source.VALUE, ("a", "b"))),
    ],
)
def test_paths(text: str | None, expected: FieldPath) -> None:
    assert parsed(text) == expected


def test_nothing_may_follow_the_record_timestamp() -> None:
    with pytest.raises(ConfigError, match=r"transforms\.t\.field"):
        parsed("_timestamp.millis")
