"""The system clock behind the domain's :class:`~lakesink.domain.ports.Clock` port."""

from __future__ import annotations

import time
from datetime import datetime


class WallClock:
    """The system clock as a :class:`~lakesink.domain.ports.Clock`: epoch milliseconds."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


def epoch_ms(moment: datetime | None) -> int | None:
    """A store's last-modified time (an aware datetime from the SDK) in epoch milliseconds; None
    when the answer carried none."""
    return None if moment is None else int(moment.timestamp() * 1000)
