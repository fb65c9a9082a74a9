"""Which topics a source or sink reads: ``topics`` (a comma list) or ``topics.regex``, exactly one.

Pure (no Kafka client): the data source parses it in Spark's planning workers, which never talk
to the broker; :class:`~lakesink.adapters.kafka.topic_metadata.TopicMetadata` applies it.
"""

from __future__ import annotations

import re

from lakesink.domain.errors import ConfigError


class TopicSelection:
    """``topics`` or ``topics.regex``, exactly one of them."""

    def __init__(self, topics: str | None, pattern: str | None) -> None:
        names = tuple(t.strip() for t in (topics or "").split(",") if t.strip())
        if bool(names) == bool(pattern and pattern.strip()):
            raise ConfigError("Set exactly one of topics (comma list) or topics.regex.")
        self._names = names
        try:
            self._regex = re.compile(pattern.strip()) if pattern and pattern.strip() else None
        except re.error as exc:
            raise ConfigError(f"Invalid topics.regex {pattern!r}: {exc}.") from None

    def matches(self, topic: str) -> bool:
        """Whether ``topic`` is selected."""
        if self._regex is not None:
            return not topic.startswith("__") and self._regex.fullmatch(topic) is not None
        return topic in self._names
