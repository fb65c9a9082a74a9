"""Rules tying the KCQL statements to the rest of the config: topics and legacy padding."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql import KcqlStatement

#: Lenses' runtime message for a topic without a statement; lakesink raises it at startup.
TOPIC_WITHOUT_STATEMENT = (
    "The topics defined via [topics] or [topics.regex] need to have an equivalent KCQL statement: "
    "INSERT INTO {DESTINATION} SELECT * FROM {TOPIC}."
)

#: Lenses' message (double spaces included) when legacy and KCQL padding are both given.
PADDING_CONFLICT = (
    "Unable to process both padding Kafka Connect config properties and KCQL properties.  Please use one or "
    "the other.  We recommend KCQL properties for additional configuration ability."
)


def check_topics(
    statements: Sequence[KcqlStatement],
    topics: tuple[str, ...],
    topics_regex: str | None,
    *,
    routed: bool = False,
) -> re.Pattern[str] | None:
    """Every subscribed topic needs a statement and every statement's topic must be subscribed.

    With ``routed`` (a router transform renames topics, so statements name the new topics, as in
    Connect) only the subscription itself is checked; a record whose routed topic no statement
    takes is reported when it is written.

    Returns:
        The compiled ``topics.regex``, if one is given.
    """
    if topics and topics_regex is not None:
        raise ConfigError("topics and topics.regex are mutually exclusive: set only one of them.")
    if not topics and topics_regex is None:
        raise ConfigError("One of topics or topics.regex is required (the topics to read).")
    _reject_duplicate_targets(statements)
    if routed:
        return _compiled(topics_regex)
    named = {s.topic for s in statements if s.topic is not None}
    has_wildcard = len(named) < len(statements)
    pattern = _compiled(topics_regex)
    if pattern is not None:
        stray = sorted(t for t in named if pattern.fullmatch(t) is None)
        if stray:
            raise ConfigError(
                f"KCQL reads topic(s) {', '.join(stray)} which topics.regex {topics_regex!r} does not match. "
                + TOPIC_WITHOUT_STATEMENT
            )
        return pattern
    missing = [t for t in topics if t not in named] if not has_wildcard else []
    if missing:
        raise ConfigError(f"No KCQL statement for topic(s) {', '.join(missing)}. " + TOPIC_WITHOUT_STATEMENT)
    unlisted = sorted(named - set(topics))
    if unlisted:
        raise ConfigError(
            f"KCQL reads topic(s) {', '.join(unlisted)} which are not in topics. " + TOPIC_WITHOUT_STATEMENT
        )
    return None


def _compiled(topics_regex: str | None) -> re.Pattern[str] | None:
    if topics_regex is None:
        return None
    try:
        return re.compile(topics_regex)
    except re.error as error:
        raise ConfigError(f"Invalid regular expression for topics.regex: {error}.") from None


def _reject_duplicate_targets(statements: Sequence[KcqlStatement]) -> None:
    """Lenses routes a topic to the first matching statement only; a second one would be dead."""
    seen: set[str | None] = set()
    for statement in statements:
        if statement.topic in seen:
            which = "`*`" if statement.topic is None else f"topic {statement.topic}"
            raise ConfigError(f"More than one KCQL statement reads {which}; only one would ever be used.")
        seen.add(statement.topic)


def check_padding(statements: Sequence[KcqlStatement], *, legacy_set: bool) -> None:
    """Legacy ``padding.strategy``/``padding.length`` and KCQL ``padding.*`` exclude each other."""
    if not legacy_set:
        return
    for statement in statements:
        options = statement.options
        if (options.padding_type, options.padding_char, options.padding_lengths) != (None, None, None):
            raise ConfigError(PADDING_CONFLICT)
