"""The system clock behind the domain's :class:`~lakesink.domain.ports.Clock` port."""

from __future__ import annotations

import time


class WallClock:
    """The system clock as a :class:`~lakesink.domain.ports.Clock`: epoch milliseconds."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000
