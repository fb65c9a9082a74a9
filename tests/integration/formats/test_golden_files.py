"""Exact bytes of the text formats, against hand-written files in golden/."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from lakesink.adapters.formats import open_writer
from lakesink.domain.formats import Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

pytestmark = pytest.mark.integration
GOLDEN = Path(__file__).parent / "golden"


def _write(format, path, values, **options):
    writer = open_writer(format, path, **options)
    for offset, value in enumerate(values):
        writer.write(value if isinstance(value, Record) else Record("t", 0, offset, value=value))
    writer.close()
    return path.read_bytes()


def test_csv_with_headers_matches_opencsv_output(tmp_path):
    values = [
        {"name": "tom", "title": None, "salary": Decimal("395.44")},
        {"name": 'sam "the man"', "title": "mr", "salary": 100.43},
    ]
    written = _write(Format.CSV, tmp_path / "out.csv", values, csv_headers=True)
    assert written == (GOLDEN / "values_with_headers.csv").read_bytes()


def test_json_lines_match_the_json_converter_output(tmp_path):
    values = [
        {"name": "sam", "title": "mr", "salary": Decimal("100.43"),
         "at": datetime(2024, 1, 1, 0, 0, 0, 123000, tzinfo=UTC), "day": date(2024, 1, 2)},
        {"name": "tom", "title": None, "salary": 395.44, "at": datetime(1970, 1, 1, tzinfo=UTC), "day": date(1970, 1, 1)},
    ]
    assert _write(Format.JSON, tmp_path / "out.json", values) == (GOLDEN / "values.json").read_bytes()


def test_text_lines_match(tmp_path):
    values = ["hello", "wörld".encode(), 42, True]
    assert _write(Format.TEXT, tmp_path / "out.text", values) == (GOLDEN / "values.text").read_bytes()


def test_json_envelope_matches_the_lenses_layout(tmp_path):
    record = Record("myTopic", 1, 1, 10001, key=b"\x01k", value={"name": "sam"},
                    headers=(("h2", 1), ("h1", "record1-header1")))
    written = _write(Format.JSON, tmp_path / "out.json", [record], envelope=EnvelopeFields())
    assert written == (GOLDEN / "envelope.json").read_bytes()
