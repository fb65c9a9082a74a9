"""The flush policy: defaults, the three thresholds, interval timing and schema rollover."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.policy import FileStats, FlushPolicy, FlushReason
from lakesink.domain.formats import Format

HOUR_MS = 3_600_000


def create(**overrides: object) -> FlushPolicy:
    args: dict[str, object] = {
        "flush_count": None,
        "flush_size": None,
        "flush_interval_s": None,
        "disable_flush_count": False,
        "format": Format.JSON,
    }
    args.update(overrides)
    return FlushPolicy.create(**args)  # type: ignore[arg-type]


def test_unset_properties_take_the_lenses_defaults() -> None:
    assert create() == FlushPolicy(count=50_000, size_bytes=500_000_000, interval_ms=HOUR_MS)
    assert FlushPolicy() == create()


def test_set_properties_override_the_defaults_and_interval_is_in_seconds() -> None:
    policy = create(flush_count=2, flush_size=1_000, flush_interval_s=30)
    assert policy == FlushPolicy(count=2, size_bytes=1_000, interval_ms=30_000)


def test_disable_flush_count_removes_the_count_condition() -> None:
    policy = create(flush_count=10, disable_flush_count=True)
    assert policy.count is None
    assert policy.reason(FileStats(10_000_000, 1, created_ms=0), now_ms=1) is None


@pytest.mark.parametrize("flush_count", [None, 1, 500])
@pytest.mark.parametrize("disable", [False, True])
def test_bytes_format_always_flushes_every_record(flush_count: int | None, disable: bool) -> None:
    policy = create(format=Format.BYTES, flush_count=flush_count, disable_flush_count=disable)
    assert policy.count == 1
    assert policy.reason(FileStats(1, 1, created_ms=0), now_ms=0) is FlushReason.COUNT


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"flush_count": 0}, "flush.count"),
        ({"flush_size": -1}, "flush.size"),
        ({"flush_interval_s": 0}, "flush.interval"),
    ],
)
def test_non_positive_thresholds_are_rejected_naming_the_property(
    overrides: dict[str, int], key: str
) -> None:
    with pytest.raises(ConfigError, match=key):
        create(**overrides)


def test_flush_triggers_when_record_count_reached() -> None:
    policy = FlushPolicy(count=2)
    assert policy.reason(FileStats(1, 10, created_ms=0), now_ms=0) is None
    assert policy.reason(FileStats(2, 10, created_ms=0), now_ms=0) is FlushReason.COUNT


def test_flush_triggers_when_size_reached() -> None:
    policy = FlushPolicy(size_bytes=100)
    assert policy.reason(FileStats(1, 99, created_ms=0), now_ms=0) is None
    assert policy.reason(FileStats(1, 100, created_ms=0), now_ms=0) is FlushReason.SIZE


def test_interval_is_measured_from_creation_when_the_writer_never_flushed() -> None:
    policy = FlushPolicy(interval_ms=1_000)
    stats = FileStats(1, 1, created_ms=5_000)
    assert policy.reason(stats, now_ms=5_999) is None
    assert policy.reason(stats, now_ms=6_000) is FlushReason.INTERVAL


def test_interval_is_measured_from_the_last_flush_not_the_first_record() -> None:
    policy = FlushPolicy(interval_ms=1_000)
    stats = FileStats(1, 1, created_ms=0, last_flush_ms=10_000)
    assert policy.reason(stats, now_ms=10_999) is None
    assert policy.reason(stats, now_ms=11_000) is FlushReason.INTERVAL


def test_an_idle_writer_flushes_its_first_new_record_at_once_like_lenses() -> None:
    policy = FlushPolicy(interval_ms=1_000)
    stats = FileStats(1, 1, created_ms=0, last_flush_ms=0)
    assert policy.reason(stats, now_ms=60_000) is FlushReason.INTERVAL


def test_any_condition_is_enough_and_count_is_reported_first() -> None:
    policy = FlushPolicy(count=1, size_bytes=1, interval_ms=1)
    assert policy.reason(FileStats(1, 1, created_ms=0), now_ms=10) is FlushReason.COUNT
    assert (
        FlushPolicy(count=5, size_bytes=1, interval_ms=1).reason(FileStats(1, 1, created_ms=0), now_ms=10)
        is FlushReason.SIZE
    )


def test_a_file_without_records_never_flushes() -> None:
    policy = FlushPolicy(count=1, size_bytes=1, interval_ms=1)
    empty = FileStats(0, 0, created_ms=0)
    assert policy.reason(empty, now_ms=1_000_000) is None
