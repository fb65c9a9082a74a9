"""Lenses' rolling windows: an instant moved back to the start of its hours/minutes/seconds window.

Windows of ``rolling.window.size`` units give ``PARTITIONBY _header.x`` one key per window; they
are aligned as Lenses aligns them, on the Unix epoch in UTC (:func:`window_of`), since that decides
the keys. See docs/transforms.md, "Lenses".
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.errors import ConfigError
from lakesink.domain.transforms.options import TransformOptions

ROLLING_WINDOW_TYPE = "rolling.window.type"
ROLLING_WINDOW_SIZE = "rolling.window.size"

#: Window unit -> (seconds per unit, largest size Lenses accepts).
_UNITS = {"hours": (3600, 24), "minutes": (60, 60), "seconds": (1, 60)}


@dataclass(frozen=True, slots=True)
class RollingWindow:
    """Windows of ``size`` units of ``unit_seconds`` seconds."""

    unit_seconds: int
    size: int

    def start_ms(self, epoch_ms: int) -> int:
        """The start of the window holding ``epoch_ms``, in epoch milliseconds, as Lenses computes it."""
        epoch_second = epoch_ms // 1000
        length = self.unit_seconds * self.size
        # Java's % keeps the sign of the dividend; the result is a whole number of units.
        remainder = abs(epoch_second) % length * (1 if epoch_second >= 0 else -1)
        return (epoch_second - remainder) * 1000


def window_of(options: TransformOptions, unit: str, size: int) -> RollingWindow:
    """The window for a unit name Lenses knows (any case) and a size it accepts.

    How Lenses computes the start matters for the keys, and it is not "the start of the window in the
    configured zone": windows are aligned on the Unix epoch in UTC, whatever ``timezone`` says (a
    1-hour window in ``Asia/Kolkata`` starts at hh:30 local time); a size that does not divide the
    next unit (7 minutes, 5 hours) keeps counting from the epoch, so windows do not restart at each
    hour or day (5-hour windows start at 00, 05, … 20, then 01 the next day); the remainder is Java's
    ``%`` on the epoch second, so instants before 1970 move forwards, to the window end nearer the
    epoch.

    Raises:
        ConfigError: the unit is unknown, or the size is not positive or too large for the unit.
    """
    known = _UNITS.get(unit.lower())
    if known is None:
        raise ConfigError(
            f"Invalid value {unit!r} for {options.key(ROLLING_WINDOW_TYPE)}: expected one of minutes, hours, seconds."
        )
    unit_seconds, largest = known
    if size <= 0:
        raise ConfigError(
            f"Invalid value {size} for {options.key(ROLLING_WINDOW_SIZE)}: must be a positive integer."
        )
    if size > largest:
        raise ConfigError(
            f"Invalid value {size} for {options.key(ROLLING_WINDOW_SIZE)}: must be at most {largest} "
            f"for {unit.lower()} windows."
        )
    return RollingWindow(unit_seconds, size)


def required_window(options: TransformOptions) -> RollingWindow:
    """The window of the ``InsertRolling*`` transforms: 15 minutes unless configured.

    The type is matched ignoring case (Lenses upper-cases it for ``Enum.valueOf``) and ``none``
    is not a type here.

    Raises:
        ConfigError: an unknown type, or a bad size.
    """
    return window_of(
        options, options.text(ROLLING_WINDOW_TYPE, "minutes") or "", options.integer(ROLLING_WINDOW_SIZE, 15)
    )
