"""Lenses' rolling windows: epoch-aligned starts, Java remainder for instants before 1970."""

from __future__ import annotations

import pytest

from lakesink.domain.transforms.lenses_rolling import RollingWindow


@pytest.mark.parametrize(
    ("window", "epoch_ms", "start_ms"),
    [
        (RollingWindow(60, 15), 1_623_746_699_999, 1_623_745_800_000),  # 08:44:59.999 -> 08:30
        (
            RollingWindow(60, 7),
            1_623_745_800_000,
            1_623_745_620_000,
        ),  # 08:30 -> 08:27: 7-minute windows count from 1970
        (RollingWindow(1, 10), 12_345, 10_000),
        (RollingWindow(3600, 1), 0, 0),
        (RollingWindow(60, 1), -30_000, 0),  # before 1970 the start moves towards the epoch
        (RollingWindow(1, 10), -1, 0),
        (RollingWindow(1, 1), -1, -1_000),  # within one second it still floors
    ],
)
def test_window_starts(window: RollingWindow, epoch_ms: int, start_ms: int) -> None:
    assert window.start_ms(epoch_ms) == start_ms
