"""Progress lines for an operator's terminal: the numbers a long command shows while it runs.

A command reports progress as one line of text at a time to a :data:`ProgressOutput` (the CLI's writes
to stderr, so stdout stays for results a script parses; ``--quiet`` gives :func:`silent`). The
numbers are formatted here, once, so every command shows sizes and counts alike; a
:class:`Throttle` keeps a loop over thousands of items to one line every few seconds.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressOutput = Callable[[str], None]
"""Where a command's progress lines go, one line (no newline) per call."""

PROGRESS_EVERY_S = 5.0
"""At most one throttled line per this many seconds: often enough to show a command is alive,
rarely enough to stay readable beside its logs."""


def silent(line: str) -> None:
    """A :data:`ProgressOutput` that shows nothing (``--quiet``, a library call)."""
    del line


def human_size(size: int) -> str:
    """``1.5 KiB``-style size; bytes below 1 KiB are shown exactly."""
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def rate(count: int, seconds: float) -> str:
    """``count`` per second, grouped by thousands (``3,380``); 0 for no time at all."""
    return f"{count / seconds if seconds > 0 else 0.0:,.0f}"


class Throttle:
    """Says when a repeated progress line is due: at most one per ``every_s`` seconds of ``now``
    (a monotonic clock), the first ``every_s`` after the throttle was made (a short run shows none)."""

    def __init__(self, now: Callable[[], float], every_s: float = PROGRESS_EVERY_S) -> None:
        self._now = now
        self._every_s = every_s
        self._last = now()

    def due(self) -> bool:
        """Whether a line may be shown now; if so, the next one waits ``every_s`` from now."""
        now = self._now()
        if now - self._last < self._every_s:
            return False
        self._last = now
        return True
