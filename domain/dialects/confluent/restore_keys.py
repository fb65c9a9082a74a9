"""Object keys the Confluent S3 sink wrote, parsed back into topic, partition and start offset.

A key is a value object only when it matches the whole layout, anchored
(:meth:`ConfluentLayout.parse`), so ``.keys``/``.headers`` siblings never match. The offset in a
name is the file's *first*: files of two encoded partitions interleave offsets, so the index
orders a partition's files by start offset. See docs/restore.md, "Layouts parsed".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lakesink.domain.dialects.confluent.naming import RecordView, view_object_key
from lakesink.domain.formats import Format
from lakesink.domain.restore.parsed_key import ParsedKey
from lakesink.domain.restore.topic_selection import selects

_TOPIC = r"[A-Za-z0-9._-]{1,249}"


@dataclass(frozen=True, slots=True)
class StoredViewFile:
    """How a ``.keys`` or ``.headers`` sibling is read: its format, extension and compression."""

    format: Format
    extension: str
    compression: str | None = None


@dataclass(frozen=True, slots=True)
class ConfluentLayout:
    """The sink's key layout and topic selection; picklable, so it travels to Spark executors.

    Attributes:
        topics / topics_regex: the sink's ``topics`` / ``topics.regex``; the topic folders restored
            (neither set: every topic).
        keys / headers: the ``store.kafka.keys`` / ``store.kafka.headers`` siblings, None when not stored.
    """

    topics_dir: str
    directory_delim: str
    file_delim: str
    zero_pad_width: int
    extension: str
    topics: tuple[str, ...] = ()
    topics_regex: str | None = None
    keys: StoredViewFile | None = None
    headers: StoredViewFile | None = None

    @property
    def list_prefix(self) -> str:
        """What is listed: ``topics.dir`` and the delimiter, or the whole bucket when it is blank."""
        return self.topics_dir + self.directory_delim if self.topics_dir.strip() else ""

    @property
    def dialect(self) -> str:
        return "confluent"

    @property
    def plain_objects(self) -> bool:
        """A value object is a plain file of its format (its siblings hold the keys and headers)."""
        return True

    def stored_topic(self, topic: str) -> str:
        return topic

    def parse(self, key: str, relative_key: str = "") -> ParsedKey | None:
        """Topic, Kafka partition and start offset of a value object of a selected topic, else None
        (the whole key: ``topics.dir`` is part of Confluent's pattern)."""
        match = _pattern(
            self.list_prefix, self.directory_delim, self.file_delim, self.zero_pad_width, self.extension
        ).fullmatch(key)
        if match is None or match["topic"] in (".", "..") or not self.selects(match["topic"]):
            return None
        return ParsedKey(match["topic"], int(match["partition"]), int(match["offset"]))

    def selects(self, topic: str) -> bool:
        """Whether the sink's ``topics`` / ``topics.regex`` name ``topic`` (everything when neither is set)."""
        return selects(self.topics, self.topics_regex, topic)

    def siblings(self, value_key: str) -> tuple[tuple[str, str], ...]:
        """``(marker, object key)`` of the stored keys and headers objects of a value object.

        The marker (``keys``, ``headers``) names the sibling's local file (:func:`sibling_path`).
        """
        found = []
        for view, stored in ((RecordView.KEYS, self.keys), (RecordView.HEADERS, self.headers)):
            if stored is not None:
                found.append(
                    (
                        view.value.lstrip("."),
                        view_object_key(value_key, self.extension, view, stored.extension),
                    )
                )
        return tuple(found)


def sibling_path(value_path: Path, marker: str) -> Path:
    """Where the sibling marked ``marker`` of the value object downloaded to ``value_path`` goes.

    No dot is added: readers put a decompressed copy at ``path.with_suffix(...)``, which must not
    collide with the value's own.
    """
    return value_path.with_name(f"{value_path.name}-{marker}")


@lru_cache(maxsize=64)
def _pattern(
    prefix: str, directory_delim: str, file_delim: str, width: int, extension: str
) -> re.Pattern[str]:
    d, f = re.escape(directory_delim), re.escape(file_delim)
    segment = rf"(?:(?!{d}).)+"
    offset = rf"(?:[0-9]{{{width}}}|[1-9][0-9]{{{width},}})"
    return re.compile(
        rf"{re.escape(prefix)}(?P<topic>{_TOPIC}){d}{segment}(?:{d}{segment})*{d}"
        rf"(?P=topic){f}(?P<partition>0|[1-9][0-9]*){f}(?P<offset>{offset}){re.escape(extension)}",
        re.ASCII | re.DOTALL,
    )
