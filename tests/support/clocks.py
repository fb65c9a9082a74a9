"""The one set of test clocks: the ``now_ms()`` of :class:`~lakesink.domain.ports.Clock` held still
or moved by the test, and one that must not be read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ManualClock:
    """Epoch milliseconds that change only when the test sets :attr:`now`."""

    now: int = 0

    def now_ms(self) -> int:
        return self.now


class NoClock:
    """A clock whose reading fails the test: the code under test must not read the time."""

    def now_ms(self) -> int:
        raise AssertionError("the clock was read")
