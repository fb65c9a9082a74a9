"""``python -m bench.change_tables`` on small tables: the snapshot shortcut writes what lakesink's writer
writes, skewed changes spare the snapshot's keys, and each commit's effect is read right per format."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bench.change_events import ChangeLog, write_objects, write_snapshot
from bench.change_tables import run
from lakesink.domain.tables.target import TableFormat


def test_the_snapshot_objects_hold_what_lakesinks_envelope_writer_writes(tmp_path: Path) -> None:
    records = ChangeLog(seed=1).snapshot(50)
    by_writer = write_objects(records, tmp_path / "writer", "t")
    shortcut = write_snapshot(records, tmp_path / "shortcut", "t")

    assert [(o.partition, o.first, o.last, o.key) for o in shortcut] == [
        (o.partition, o.first, o.last, o.key) for o in by_writer
    ]
    for fast, slow in zip(shortcut, by_writer, strict=True):
        assert pq.read_table(tmp_path / "shortcut" / fast.key).equals(pq.read_table(tmp_path / "writer" / slow.key))


def test_skewed_changes_touch_only_keys_inserted_since_the_snapshot() -> None:
    log = ChangeLog(seed=2)
    log.snapshot(100)
    batches = [log.skewed(40) for _ in range(3)]

    touched = {record.key["id"] for batch in batches for record in batch}
    assert min(touched) >= 100
    assert any(record.value and record.value["op"] == "u" for record in batches[-1])


@pytest.mark.filterwarnings("ignore:Delete operation did not match any records")  # pyiceberg, for new keys
@pytest.mark.parametrize("table_format", [TableFormat.ICEBERG, TableFormat.DELTA])
def test_a_small_run_ends_equal_to_the_changes_state_and_reads_each_commits_rewrites(
    table_format: TableFormat, tmp_path: Path
) -> None:
    measured = run(table_format, 500, [50], 1, True, tmp_path)  # asserts the table equals the state

    load, uniform, skewed = measured
    assert (load.kind, load.effect.files_added, load.effect.table_rows) == ("load", 1, 500)
    assert uniform.effect.files_removed >= 1  # keys all over the table: the snapshot's file is rewritten
    assert uniform.effect.rows_written == uniform.effect.table_rows
    assert skewed.effect.files_removed == 0  # new keys only: nothing is rewritten
    assert skewed.effect.rows_written == skewed.effect.table_rows - uniform.effect.table_rows
