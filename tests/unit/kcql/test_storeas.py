"""STOREAS selection (reference §5.1)."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import KcqlError
from lakesink.domain.formats import Format
from lakesink.domain.kcql import parse


def storeas(fmt: str, properties: str = "") -> tuple[Format, bool]:
    stmt = parse(f"INSERT INTO b SELECT * FROM t STOREAS {fmt} {properties}")[0]
    return stmt.format, stmt.csv_headers


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("`JSON`", Format.JSON),
        ("json", Format.JSON),
        ("`Avro`", Format.AVRO),
        ("PARQUET", Format.PARQUET),
        ("'parquet'", Format.PARQUET),
        ("`TEXT`", Format.TEXT),
        ("`CSV`", Format.CSV),
    ],
)
def test_format_names_are_matched_case_insensitively_with_or_without_quotes(
    written: str, expected: Format
) -> None:
    assert storeas(written) == (expected, False)


@pytest.mark.parametrize("written", ["`CSV_WITHHEADERS`", "csv_withheaders", "CSV_WithHeaders"])
def test_csv_withheaders_turns_on_the_header_row(written: str) -> None:
    assert storeas(written) == (Format.CSV, True)


def test_bytes_is_accepted_with_flush_count_one() -> None:
    assert storeas("`BYTES`", "PROPERTIES('flush.count'=1)") == (Format.BYTES, False)


def test_other_csv_suffixes_are_rejected_instead_of_silently_ignored() -> None:
    with pytest.raises(KcqlError, match="CSV_WITHHEADERS") as caught:
        storeas("`CSV_WITHHEADER`")
    assert caught.value.reason.startswith("Unsupported format - CSV_WITHHEADER")


def test_bytes_variants_get_the_lenses_message() -> None:
    with pytest.raises(KcqlError) as caught:
        storeas("`BYTES_VALUEONLY`")
    assert caught.value.reason.startswith(
        "Unsupported format - BYTES_VALUEONLY.  Please note that the following formats are no "
        "longer supported"
    )
    assert "using the BYTES mode with no suffix" in caught.value.reason


def test_unknown_format_lists_the_supported_ones() -> None:
    with pytest.raises(KcqlError) as caught:
        storeas("`ORC`")
    assert caught.value.reason == (
        "Unsupported format - ORC. Supported formats: AVRO, BYTES, CSV, CSV_WITHHEADERS, JSON, PARQUET, TEXT."
    )
    assert caught.value.position == len("INSERT INTO b SELECT * FROM t STOREAS ")


def test_suffix_on_a_format_without_variants_is_rejected() -> None:
    with pytest.raises(KcqlError, match="JSON takes no suffix"):
        storeas("`JSON_PRETTY`")


def test_storeas_without_a_format_is_an_error() -> None:
    with pytest.raises(KcqlError, match="expected a storage format"):
        storeas("")
