from __future__ import annotations

import pytest

from lakesink.adapters.kafka.admission import AdmissionControl, AdmissionPolicy, AdmitMode
from lakesink.domain.errors import ConfigError

A0 = ("orders", 0)
A1 = ("orders", 1)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def now_ms(self) -> int:
        return self.now


def test_partition_is_admitted_when_flush_count_records_wait() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=10), FakeClock())

    end = control.plan({A0: 0, A1: 0}, {A0: 10, A1: 9})

    assert end == {A0: 10, A1: 0}


def test_partition_below_flush_count_is_admitted_once_the_interval_passed() -> None:
    clock = FakeClock()
    control = AdmissionControl(AdmissionPolicy(flush_count=100, flush_interval_ms=5_000), clock)
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 0}

    clock.now += 4_999
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 0}
    clock.now += 1
    assert control.plan({A0: 0}, {A0: 3}) == {A0: 3}


def test_interval_restarts_after_each_admission() -> None:
    clock = FakeClock()
    control = AdmissionControl(AdmissionPolicy(flush_interval_ms=1_000), clock)
    assert control.plan({A0: 0}, {A0: 2}) == {A0: 0}, "the interval starts when the partition is first seen"
    clock.now += 1_000
    assert control.plan({A0: 0}, {A0: 2}) == {A0: 2}

    clock.now += 500
    assert control.plan({A0: 2}, {A0: 4}) == {A0: 2}
    clock.now += 500
    assert control.plan({A0: 2}, {A0: 4}) == {A0: 4}


def test_partition_with_nothing_waiting_is_never_admitted() -> None:
    clock = FakeClock()
    control = AdmissionControl(AdmissionPolicy(flush_interval_ms=1), clock)
    clock.now += 10

    assert control.plan({A0: 7}, {A0: 7}) == {A0: 7}


def test_without_flush_rules_everything_waiting_is_admitted_up_to_the_cap() -> None:
    control = AdmissionControl(AdmissionPolicy(max_records_per_partition=4), FakeClock())

    assert control.plan({A0: 10, A1: 0}, {A0: 20, A1: 3}) == {A0: 14, A1: 3}


def test_drain_mode_ignores_flush_rules_but_keeps_the_cap() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=1_000, max_records_per_partition=5), FakeClock())

    assert control.plan({A0: 0}, {A0: 12}, AdmitMode.DRAIN) == {A0: 5}


def test_read_all_mode_ignores_every_option() -> None:
    control = AdmissionControl(AdmissionPolicy(flush_count=1_000, max_records_per_partition=5), FakeClock())

    assert control.plan({A0: 0}, {A0: 12}, AdmitMode.ALL) == {A0: 12}


def test_partition_missing_from_the_available_offsets_keeps_its_position() -> None:
    control = AdmissionControl(AdmissionPolicy(), FakeClock())

    assert control.plan({A0: 5}, {}) == {A0: 5}


@pytest.mark.parametrize("field", ["flush_count", "flush_interval_ms", "max_records_per_partition"])
def test_non_positive_option_is_rejected(field: str) -> None:
    with pytest.raises(ConfigError):
        AdmissionPolicy(**{field: 0})
