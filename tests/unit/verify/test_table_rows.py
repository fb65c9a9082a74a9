"""A change table's rows against the newest change of every key its log holds, and how the report shows it."""

from __future__ import annotations

import json

from lakesink.domain.verify.report import VerifyReport
from lakesink.domain.verify.tables import TableCheck, compare_rows, first_difference

MARK = {("customers", 0): 41}


def _row(key: int, name: str, **more: object) -> dict[str, object]:
    return {"id": key, "name": name, **more}


def _compare(expected: dict[int, dict[str, object]], held: list[dict[str, object]], removed: tuple[int, ...] = ()) -> TableCheck:
    return compare_rows(
        "crm.customers",
        {(key,): row for key, row in expected.items()},
        [(key,) for key in removed],
        [((row["id"],), row) for row in held],
        changes=42,
        marked=MARK,
    )


def test_a_table_holding_the_newest_row_of_every_live_key_has_no_problem() -> None:
    check = _compare({1: _row(1, "a"), 2: _row(2, "b")}, [_row(2, "b"), _row(1, "a")], removed=(3,))
    assert (check.problems, check.rows, check.keys, check.changes, check.marked) == (0, 2, 2, 42, MARK)


def test_each_kind_of_wrong_row_is_named_by_its_key() -> None:
    check = _compare(
        {1: _row(1, "a"), 2: _row(2, "b"), 4: _row(4, "d")},
        [_row(2, "old"), _row(3, "c"), _row(5, "e"), _row(4, "d"), _row(4, "d")],
        removed=(3,),
    )
    assert check.missing == ("1",)
    assert check.deleted == ("3",)
    assert check.unknown == ("5",)
    assert check.differing == ("2 (column name: table 'old', log 'b')",)
    assert check.repeated == ("4",)
    assert check.problems == 5


def test_a_column_the_newest_change_lacks_must_be_null_in_the_table() -> None:
    assert first_difference(_row(1, "a"), _row(1, "a", email=None)) is None
    assert first_difference(_row(1, "a"), _row(1, "a", email="x@y")) == "email"
    assert first_difference(_row(1, "a", email="x@y"), _row(1, "a")) == "email"


def test_nan_is_a_value_equal_to_itself_and_keys_of_several_columns_show_whole() -> None:
    assert first_difference({"v": float("nan")}, {"v": float("nan")}) is None
    check = compare_rows("t", {}, [], [(("eu", 7), {"region": "eu", "id": 7})], changes=0, marked={})
    assert check.unknown == ("('eu', 7)",)


def _report(*tables: TableCheck) -> VerifyReport:
    return VerifyReport("s1", True, (), (), None, listed=3, opened=3, seconds=0.5, tables=tables)


def test_the_report_is_clean_only_when_every_change_table_equals_its_log() -> None:
    equal = _compare({1: _row(1, "a")}, [_row(1, "a")])
    assert _report(equal).clean
    assert not _report(equal, _compare({1: _row(1, "a")}, [])).clean
    unread = TableCheck("crm.customers", error="Iceberg table crm.customers: could not read it: refused")
    assert not _report(unread).clean and _report(unread).problems()["table_rows"] == 1


def test_the_json_and_text_name_the_table_its_counts_and_the_keys_that_differ() -> None:
    report = _report(_compare({1: _row(1, "a"), 2: _row(2, "b")}, [_row(2, "b")]))
    (table,) = json.loads(report.to_json())["tables"]
    assert table == {
        "table": "crm.customers", "compared": True, "error": None, "rows": 1, "keys": 2, "changes": 42,
        "marked": [{"topic": "customers", "partition": 0, "last_offset": 41}],
        "missing": ["1"], "deleted": [], "unknown": [], "differing": [], "repeated": [],
    }
    text = report.to_text()
    assert "change table crm.customers: 1 rows, 1 keys differ from the newest change of each key of its log" in text
    assert "  key alive in the log, no row in the table: 1" in text
    assert "1 change table rows wrong" in text and text.splitlines()[-1].startswith("PROBLEMS")
