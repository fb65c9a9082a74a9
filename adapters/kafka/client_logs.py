"""librdkafka's log lines through Python logging: at WARNING, each distinct line once a minute.

Left alone, librdkafka prints a ``FAIL`` line per connection attempt to stderr. Every client
(:func:`client_logger`) hands its lines to the ``lakesink.kafka.client`` logger, so they follow
``--log-level`` and a line's repeats within a minute are dropped (counted, said when it returns).
The last line is kept, so an error ending a run can quote it (``Connection refused``).
"""

from __future__ import annotations

import logging
import threading
import time

LOGGER_NAME = "lakesink.kafka.client"
REPEAT_WINDOW_S = 60.0


class _Repeats(logging.Filter):
    """Drops a line seen within :data:`REPEAT_WINDOW_S`; remembers the last line let through."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, int]] = {}
        self.last: tuple[float, str] | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        now = time.monotonic()
        with self._lock:
            self.last = (now, text)
            shown, dropped = self._seen.get(text, (-REPEAT_WINDOW_S, 0))
            if now - shown < REPEAT_WINDOW_S:
                self._seen[text] = (shown, dropped + 1)
                return False
            if len(self._seen) > 1000:  # bounded: a long run logs many distinct lines
                self._seen.clear()
            self._seen[text] = (now, 0)
        if dropped:
            record.msg, record.args = f"{text} (and {dropped} more times in the last minute)", None
        return True


_REPEATS = _Repeats()


def client_logger() -> logging.Logger:
    """The logger every lakesink Kafka client is built with (``logger=`` of confluent-kafka)."""
    logger = logging.getLogger(LOGGER_NAME)
    if _REPEATS not in logger.filters:
        logger.addFilter(_REPEATS)
    return logger


def last_client_line() -> str | None:
    """The last line a client logged (repeats included) within :data:`REPEAT_WINDOW_S`, to quote in
    an error; None when none did lately (an old line may be another client's, about another matter)."""
    last = _REPEATS.last
    return last[1] if last is not None and time.monotonic() - last[0] < REPEAT_WINDOW_S else None
