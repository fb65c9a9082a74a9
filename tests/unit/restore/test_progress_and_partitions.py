"""Resume decisions from progress records, partition routing and post-process steps."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError, FormatError
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.partitions import check_partition_counts, needed_partitions, target_partition
from lakesink.domain.restore.plan import PartitionMode, PartitionRule, PostProcess, RestoreRoot
from lakesink.domain.restore.post_process import post_process_step
from lakesink.domain.restore.progress import Progress, records_to_skip


def _entry(offset: int, key: str | None = None) -> IndexEntry:
    return IndexEntry(0, key or f"p/t/0/{offset:012d}_0_0.json", 10, "t", 0, offset)


def test_objects_before_the_progress_point_are_skipped_and_later_ones_start_at_zero() -> None:
    progress = Progress.of(_entry(20), line=3, complete=True)
    assert records_to_skip(progress, _entry(10)) is None
    assert records_to_skip(progress, _entry(20)) is None
    assert records_to_skip(progress, _entry(30)) == 0
    assert records_to_skip(None, _entry(10)) == 0


def test_a_partly_delivered_object_resumes_after_its_delivered_records() -> None:
    progress = Progress.of(_entry(20), line=7, complete=False)
    assert records_to_skip(progress, _entry(20)) == 7


def test_progress_records_round_trip_and_garbage_is_rejected() -> None:
    progress = Progress("a/b", 12, 5, False)
    assert Progress.decode(progress.encode()) == progress
    with pytest.raises(FormatError, match="Not a restore progress record"):
        Progress.decode(b'{"key": 1}')


def test_too_few_target_partitions_is_a_config_error_naming_topic_and_counts() -> None:
    rule = PartitionRule()
    needed = needed_partitions(rule, [("orders", 0), ("orders", 5), ("audit", 1)])
    assert needed == {"orders": 6, "audit": 2}
    with pytest.raises(ConfigError, match=r"Topic 'orders' has 4 partitions but the restore needs 6.*remap=modulo"):
        check_partition_counts(rule, needed, {"orders": 4, "audit": 4})


def test_modulo_remap_folds_partitions_and_skips_the_check() -> None:
    rule = PartitionRule(remap_modulo=True)
    check_partition_counts(rule, {"orders": 6}, {"orders": 4})
    assert target_partition(rule, 5, 4, "orders") == 1
    assert target_partition(rule, 2, 4, "orders") == 2


def test_producer_partitioner_mode_never_names_a_partition() -> None:
    rule = PartitionRule(PartitionMode.NONE)
    assert needed_partitions(rule, [("orders", 9)]) == {}
    assert target_partition(rule, 9, 4, "orders") is None


def test_a_record_partition_beyond_the_topic_fails_without_remap() -> None:
    with pytest.raises(ConfigError, match="partition 7"):
        target_partition(PartitionRule(), 7, 4, "orders")


def test_move_replaces_the_root_prefix_and_retain_dirs_adds_a_marker() -> None:
    root = RestoreRoot(number=0, bucket="b", list_prefix="backup/", topic="t", format=Format.JSON)
    step = post_process_step(root, PostProcess("Move", "archive", "done/", True), "backup/t/0/000000000001_0_0.json")
    assert (step.marker_key, step.move_bucket, step.move_key) == (
        "backup/t/0/", "archive", "done/t/0/000000000001_0_0.json",
    )
    delete = post_process_step(root, PostProcess("Delete"), "backup/t/0/x.json")
    assert (delete.marker_key, delete.move_key) == (None, None)
