"""Admission: which partitions enter the next micro-batch, by the same flush rule files obey."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionControl, AdmissionPolicy, AdmitMode, rate_limited
from lakesink.domain.flush.policy import FileStats, FlushPolicy
from lakesink.domain.formats import Format
from tests.support.clocks import ManualClock

A0 = ("orders", 0)
A1 = ("orders", 1)


def test_partition_is_admitted_when_flush_count_records_wait() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=10), ManualClock(1_000_000))

    end = control.plan({A0: 0, A1: 0}, {A0: 10, A1: 9})

    assert end == {A0: 10, A1: 0}


def test_partition_below_flush_count_is_admitted_once_the_interval_passed() -> None:
    clock = ManualClock(1_000_000)
    control = AdmissionControl(AdmissionPolicy(flush_count=100, flush_interval_ms=5_000), clock)
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 0}

    clock.now += 4_999
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 0}
    clock.now += 1
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 3}


def test_interval_restarts_after_each_admission() -> None:
    clock = ManualClock(1_000_000)
    control = AdmissionControl(AdmissionPolicy(flush_interval_ms=1_000), clock)
    assert control.plan({A0: 0}, {A0: 2}) == {A0: 0}, "the interval starts when the partition is first seen"
    clock.now += 1_000
    assert control.plan({A0: 0}, {A0: 2}) == {A0: 2}

    clock.now += 500
    assert control.plan({A0: 2}, {A0: 4}) == {A0: 2}
    clock.now += 500
    assert control.plan({A0: 2}, {A0: 4}) == {A0: 4}


def test_partition_with_nothing_waiting_is_never_admitted() -> None:
    clock = ManualClock(1_000_000)
    control = AdmissionControl(AdmissionPolicy(flush_interval_ms=1), clock)
    clock.now += 10

    assert control.plan({A0: 7}, {A0: 7}) == {A0: 7}


def test_without_flush_rules_everything_waiting_is_admitted_up_to_the_cap() -> None:
    control = AdmissionControl(AdmissionPolicy(max_records_per_partition=4), ManualClock(1_000_000))

    assert control.plan({A0: 10, A1: 0}, {A0: 20, A1: 3}) == {A0: 14, A1: 3}


def test_drain_mode_ignores_flush_rules_but_keeps_the_cap() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=1_000, max_records_per_partition=5), ManualClock(1_000_000))

    assert control.plan({A0: 0}, {A0: 12}, AdmitMode.DRAIN) == {A0: 5}


def test_read_all_mode_ignores_every_option() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=1_000, max_records_per_partition=5), ManualClock(1_000_000))

    assert control.plan({A0: 0}, {A0: 12}, AdmitMode.ALL) == {A0: 12}


def test_partition_missing_from_the_available_offsets_keeps_its_position() -> None:
    control = AdmissionControl(AdmissionPolicy(), ManualClock(1_000_000))

    assert control.plan({A0: 5}, {}) == {A0: 5}


@pytest.mark.parametrize(
    "field", ["flush_count", "flush_interval_ms", "max_records_per_partition", "max_offsets_per_trigger"]
)
def test_non_positive_option_is_rejected(field: str) -> None:
    with pytest.raises(ConfigError):
        AdmissionPolicy(**{field: 0})


def test_non_positive_option_names_the_setting() -> None:
    with pytest.raises(ConfigError, match=r"Invalid value 0 for flush\.interval: must be positive\."):
        AdmissionPolicy(flush_interval_ms=0)


def test_the_sink_admits_by_the_smallest_count_and_the_smallest_interval_of_its_statements() -> None:
    policies = [
        FlushPolicy(count=500, interval_ms=60_000),
        FlushPolicy(count=None, interval_ms=5_000),  # disable.flush.count: takes no part in the count
        FlushPolicy(count=200, interval_ms=3_600_000),
    ]

    assert AdmissionPolicy.for_flushes(policies) == AdmissionPolicy(flush_count=200, flush_interval_ms=5_000)
    assert AdmissionPolicy.for_flushes(iter(policies), max_records_per_partition=7).max_records_per_partition == 7


def test_statements_without_a_count_condition_admit_by_interval_only() -> None:
    policy = AdmissionPolicy.for_flushes([FlushPolicy(count=None, interval_ms=10_000)])

    assert policy == AdmissionPolicy(flush_interval_ms=10_000)
    assert policy.waits() and policy.is_limited


def test_bytes_statements_admit_every_record() -> None:
    bytes_flush = FlushPolicy.create(
        flush_count=None, flush_size=None, flush_interval_s=None, disable_flush_count=False, format=Format.BYTES
    )

    assert AdmissionPolicy.for_flushes([bytes_flush, FlushPolicy()]).flush_count == 1


def test_no_statement_means_no_flush_rule() -> None:
    assert AdmissionPolicy.for_flushes([]) == AdmissionPolicy()


@pytest.mark.parametrize(
    ("waiting", "elapsed_ms", "due"),
    [
        (0, 10**9, False),  # nothing waits: never due, whatever the time
        (9, 4_999, False),
        (10, 0, True),  # the count boundary
        (9, 5_000, True),  # the interval boundary
        (1, 5_000, True),
    ],
)
def test_due_is_count_or_interval(waiting: int, elapsed_ms: int, due: bool) -> None:
    assert AdmissionPolicy(flush_count=10, flush_interval_ms=5_000).due(waiting, elapsed_ms) is due


def test_without_a_flush_rule_any_waiting_record_is_due() -> None:
    policy = AdmissionPolicy(max_records_per_partition=3)

    assert policy.due(1, 0) and not policy.due(0, 10**9)


@given(
    count=st.none() | st.integers(1, 50),
    interval_ms=st.integers(1, 10_000),
    records=st.integers(0, 60),
    elapsed_ms=st.integers(0, 12_000),
)
def test_admission_and_the_file_flush_policy_apply_the_same_rule(
    count: int | None, interval_ms: int, records: int, elapsed_ms: int
) -> None:
    """A partition is admitted exactly when a file holding its waiting records would flush by count or interval."""
    flush = FlushPolicy(count=count, size_bytes=10**12, interval_ms=interval_ms)
    file = FileStats(record_count=records, bytes_written=0, created_ms=1_000)

    file_flushes = flush.reason(file, now_ms=1_000 + elapsed_ms) is not None

    assert AdmissionPolicy.for_flushes([flush]).due(records, elapsed_ms) is file_flushes


def test_a_partition_is_admitted_at_the_very_count_and_instant_a_file_of_its_records_flushes() -> None:
    flush = FlushPolicy(count=10, interval_ms=30_000)
    clock = ManualClock(1_000_000)
    control: AdmissionControl[tuple[str, int]] = AdmissionControl(AdmissionPolicy.for_flushes([flush]), clock)
    first_seen = clock.now

    def file_flushes(records: int) -> bool:
        """Whether a file created when the partition was first seen, holding ``records``, flushes now."""
        return flush.reason(FileStats(records, 1, created_ms=first_seen), now_ms=clock.now) is not None

    assert control.plan({A0: 0, A1: 0}, {A0: 9, A1: 3}) == {A0: 0, A1: 0}
    assert not file_flushes(9) and not file_flushes(3)
    assert control.plan({A0: 0, A1: 0}, {A0: 10, A1: 3}) == {A0: 10, A1: 0}
    assert file_flushes(10)

    clock.now = first_seen + 29_999
    assert control.plan({A1: 0}, {A1: 3}) == {A1: 0}
    assert not file_flushes(3)
    clock.now = first_seen + 30_000
    assert control.plan({A1: 0}, {A1: 3}) == {A1: 3}
    assert file_flushes(3)


A2 = ("orders", 2)


def test_max_offsets_per_trigger_splits_the_batch_in_proportion_to_what_each_partition_has_waiting() -> None:
    control = AdmissionControl(AdmissionPolicy(max_offsets_per_trigger=100), ManualClock(1_000_000))

    end = control.plan({A0: 0, A1: 50, A2: 7}, {A0: 300, A1: 150, A2: 7})

    assert end == {A0: 75, A1: 75, A2: 7}  # 300 and 100 waiting: shares 75 and 25


def test_a_share_below_one_offset_is_rounded_up_so_no_partition_starves() -> None:
    assert rate_limited(10, {A0: 0, A1: 0}, {A0: 1000, A1: 1}) == {A0: 9, A1: 1}


def test_nothing_is_cut_when_everything_waiting_fits() -> None:
    assert rate_limited(10, {A0: 0, A1: 5}, {A0: 4, A1: 5}) == {A0: 4, A1: 5}


def test_max_offsets_per_trigger_applies_after_the_per_partition_cap_and_not_when_spark_reads_all() -> None:
    control = AdmissionControl(AdmissionPolicy(max_records_per_partition=40, max_offsets_per_trigger=20), ManualClock(1_000_000))

    assert control.plan({A0: 0, A1: 0}, {A0: 100, A1: 40}, AdmitMode.DRAIN) == {A0: 10, A1: 10}
    assert control.plan({A0: 0, A1: 0}, {A0: 100, A1: 40}, AdmitMode.ALL) == {A0: 100, A1: 40}


@given(
    waiting=st.dictionaries(st.integers(0, 5), st.integers(0, 10_000), min_size=1, max_size=6),
    limit=st.integers(1, 5_000),
)
def test_a_limited_batch_never_passes_the_limit_by_more_than_one_offset_per_partition(
    waiting: dict[int, int], limit: int
) -> None:
    start = dict.fromkeys(waiting, 0)

    end = rate_limited(limit, start, waiting)

    assert all(0 <= end[key] <= waiting[key] for key in waiting)
    assert sum(end.values()) <= limit + len(waiting)
    assert all(end[key] > 0 for key in waiting if waiting[key] > 0)


def test_due_in_is_the_time_left_of_the_first_interval_to_run_out_among_partitions_with_records_waiting() -> None:
    clock = ManualClock(1_000_000)
    control = AdmissionControl(AdmissionPolicy(flush_count=100, flush_interval_ms=5_000), clock)
    control.plan({A0: 0, A1: 0}, {A0: 0, A1: 0})  # both first seen now
    clock.now += 1_500

    assert control.due_in_ms({A0: 0, A1: 0}, {A0: 0, A1: 0}) is None, "nothing waits: only new records can wake"
    assert control.due_in_ms({A0: 0, A1: 0}, {A0: 0, A1: 7}) == 3_500
    clock.now += 6_000
    assert control.due_in_ms({A0: 0, A1: 0}, {A0: 0, A1: 7}) == 0, "overdue is due now"


def test_due_in_is_none_without_an_interval_rule() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=10), ManualClock(1_000_000))

    assert control.due_in_ms({A0: 0}, {A0: 5}) is None
