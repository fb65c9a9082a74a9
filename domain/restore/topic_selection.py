"""Which topics a sink config restored by ``lakesink restore`` wrote: its ``topics`` / ``topics.regex``.

A bucket may hold objects of topics the sink config never read (another connector's, an old
one's); a restore from a sink config replays only the topics that config names, whichever sink
dialect it is (Confluent, Aiven).
"""

from __future__ import annotations

import re

from lakesink.domain.errors import ConfigError


def selects(topics: tuple[str, ...], regex: str | None, topic: str) -> bool:
    """Whether ``topics`` / ``regex`` name ``topic`` (everything when neither is set)."""
    if regex is not None:
        return re.fullmatch(regex, topic) is not None
    return not topics or topic in topics


def checked_regex(regex: str | None) -> str | None:
    """``topics.regex`` once it compiles, so a bad one fails at plan time, not per listed key.

    Raises:
        ConfigError: it is not a valid regular expression.
    """
    if regex is not None:
        try:
            re.compile(regex)
        except re.error as error:
            raise ConfigError(f"Invalid value {regex} for configuration topics.regex: {error}.") from None
    return regex
