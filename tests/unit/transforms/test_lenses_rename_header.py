"""Lenses' RenameHeader: renamed headers move to the end, in order."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import NoClock

RENAME = "io.lenses.connect.smt.header.RenameHeader"


def renamed(record: Record, **settings: str) -> Record:
    props = {"transforms": "mv", "transforms.mv.type": RENAME}
    props |= {f"transforms.mv.{key.replace('_', '.')}": value for key, value in settings.items()}
    result = build_chain(props, NoClock()).apply(record)
    assert result is not None
    return result


def test_every_old_header_moves_to_the_end_under_the_new_name() -> None:
    record = Record("t", 0, 0, headers=(("src", b"1"), ("dst", b"0"), ("x", None), ("src", b"2")))
    result = renamed(record, header_name_old="src", header_name_new="dst")
    assert result.headers == (("dst", b"0"), ("x", None), ("dst", b"1"), ("dst", b"2"))


def test_renamed_headers_keep_their_schemas() -> None:
    record = Record("t", 0, 0, headers=(("src", 1), ("x", "v")), header_schemas=("int", "string"))
    result = renamed(record, header_name_old="src", header_name_new="dst")
    assert (result.headers, result.header_schemas) == ((("x", "v"), ("dst", 1)), ("string", "int"))


def test_a_record_without_the_header_is_unchanged() -> None:
    record = Record("t", 0, 0, headers=(("other", "v"),))
    assert renamed(record, header_name_old="src", header_name_new="dst") is record


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"header_name_new": "dst"}, r"transforms\.mv\.header\.name\.old is required"),
        (
            {"header_name_old": "src", "header_name_new": " "},
            r"transforms\.mv\.header\.name\.new is required",
        ),
    ],
)
def test_both_names_are_required(settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        renamed(Record("t", 0, 0), **settings)
