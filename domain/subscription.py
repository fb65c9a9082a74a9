"""Which topic-partitions a source or sink reads: Spark's ``subscribe``, ``subscribePattern`` or ``assign``.

Exactly one of a comma list, a full-match pattern (``__`` topics never match) or a fixed JSON set of
partitions; pure, so the data source parses it in Spark's planning workers and
:class:`~lakesink.adapters.kafka.topic_metadata.TopicMetadata` applies it. See docs/kafka.md, "Options".
"""

from __future__ import annotations

import json
import re

from lakesink.domain.errors import ConfigError
from lakesink.domain.records import TopicPartition

SUBSCRIBE = "subscribe"
SUBSCRIBE_PATTERN = "subscribePattern"
ASSIGN = "assign"
_STRATEGIES = f"{SUBSCRIBE}, {SUBSCRIBE_PATTERN}, {ASSIGN}"


class TopicSelection:
    """``subscribe`` (comma list), ``subscribePattern`` or ``assign`` (JSON), exactly one of them.

    As in Spark's Kafka source: ``assign`` names a fixed set of partitions (no discovery: partitions
    added later are not read). The sink's ``topics`` / ``topics.regex`` map onto ``subscribe`` and
    ``subscribePattern``.
    """

    def __init__(self, topics: str | None, pattern: str | None, assign: str | None = None) -> None:
        given = [value for value in (topics, pattern, assign) if value is not None]
        if not given:
            raise ConfigError(f"One of the options {_STRATEGIES} must be set (the topics to read).")
        if len(given) > 1:
            raise ConfigError(f"Only one of the options {_STRATEGIES} may be set.")
        self._names = tuple(t.strip() for t in (topics or "").split(",") if t.strip())
        if topics is not None and not self._names:
            raise ConfigError(f"No topics to subscribe to: option {SUBSCRIBE} is {topics!r}.")
        self._regex = _pattern(pattern) if pattern is not None else None
        self._assigned = _assignment(assign) if assign is not None else None

    def matches(self, topic: str) -> bool:
        """Whether ``topic`` is selected (with ``assign``: whether one of its partitions is)."""
        if self._regex is not None:
            return not topic.startswith("__") and self._regex.fullmatch(topic) is not None
        if self._assigned is not None:
            return any(name == topic for name, _ in self._assigned)
        return topic in self._names

    def selects(self, key: TopicPartition) -> bool:
        """Whether the topic-partition ``key`` is read."""
        if self._assigned is not None:
            return key in self._assigned
        return self.matches(key[0])


def _pattern(pattern: str) -> re.Pattern[str]:
    if not pattern.strip():
        raise ConfigError(f"Pattern to subscribe is empty: option {SUBSCRIBE_PATTERN} is {pattern!r}.")
    try:
        return re.compile(pattern.strip())
    except re.error as exc:
        raise ConfigError(
            f"Invalid {SUBSCRIBE_PATTERN} {pattern!r}: {exc} (Python's re syntax; see docs/library.md "
            "for where it differs from Java's)."
        ) from None


def _assignment(raw: str) -> frozenset[TopicPartition]:
    """The partitions of ``{"topic": [0, 1], ...}``."""
    try:
        document = json.loads(raw) if raw.strip().startswith("{") else None
    except ValueError:
        document = None
    if not isinstance(document, dict) or not document:
        raise ConfigError(
            f'No topic-partitions to assign: option {ASSIGN} is {raw!r}; expected JSON such as {{"topic": [0, 1]}}.'
        )
    assigned = set()
    for topic, partitions in document.items():
        if not isinstance(partitions, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in partitions
        ):
            raise ConfigError(f"Invalid {ASSIGN}: topic {topic!r} must map to a list of partition numbers.")
        assigned.update((str(topic), p) for p in partitions)
    return frozenset(assigned)
