"""Object keys and file contents of an Aiven S3 sink, as the restore of that sink's config reads them.

Two key forms, as :mod:`lakesink.domain.dialects.aiven.naming` writes them: the
``file.name.template`` (compiled by :class:`~lakesink.domain.restore.template.KeyTemplate`, the
Aiven source form's parser) or ``aws.s3.prefix`` mode (``S3SinkTask#oldFullKey``).
See docs/restore.md, "Restoring what an Aiven S3 sink wrote".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lakesink.domain.dialects.aiven.naming import PREFIX, TEMPLATE, AivenNaming
from lakesink.domain.dialects.aiven.output import AivenOutput
from lakesink.domain.dialects.aiven.template import TemplatePart, TemplateVariable
from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.parsed_key import ParsedKey
from lakesink.domain.restore.template import KeyTemplate, topic_pattern
from lakesink.domain.restore.topic_selection import selects

#: How each ``aws.s3.prefix`` variable renders (``S3SinkTask#oldFullKey``), as an unnamed pattern
#: (``{{topic}}``: :func:`~.template.topic_pattern`).
_PREFIX_SHAPES = {
    "utc_date": "[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "local_date": "[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "partition": "[0-9]+",
}
_UNIT_DIGITS = {"yyyy": 4, "MM": 2, "dd": 2, "HH": 2}
_PREFIX_NAME = r"(?P<topic>{topic})-(?P<partition>0|[1-9][0-9]*)-(?P<start_offset>[0-9]{{20}})"


@dataclass(frozen=True, slots=True)
class AivenSinkLayout:
    """What a restore of an Aiven S3 sink config reads; picklable, so it travels to Spark executors.

    A template must hold ``{{topic}}`` and ``{{partition}}``: Aiven's fields never carry them. In
    ``aws.s3.prefix`` mode the prefix's variables are matched by their shape and the listing starts at
    its literal lead. The objects of a topic-partition are replayed in start-offset order; key-grouped
    names (``{{key}}``, no ``{{start_offset}}``) hold each key's latest record, replayed in key order.

    Attributes:
        names: the compiled object key pattern, relative to the root's listing prefix.
        output: the sink's file contents (format, fields, envelope, compression).
        topics / topics_regex: the sink's subscription; other topics' objects are not restored.
        key_converter / value_converter: the sink's converter classes (None = ByteArrayConverter, its
            default): they say what a JSON file's text was as Kafka bytes (Base64 for bytes).
    """

    names: KeyTemplate
    output: AivenOutput
    topics: tuple[str, ...] = ()
    topics_regex: str | None = None
    key_converter: str | None = None
    value_converter: str | None = None

    @property
    def dialect(self) -> str:
        return "aiven"

    @property
    def plain_objects(self) -> bool:
        """Aiven's fields, envelope and compression framing are its own."""
        return False

    def stored_topic(self, topic: str) -> str:
        return topic

    def siblings(self, key: str) -> tuple[tuple[str, str], ...]:
        """None: an Aiven file holds its keys and headers itself."""
        return ()

    def parse(self, key: str, relative_key: str) -> ParsedKey | None:
        """Topic, partition and start offset of an object of a subscribed topic, else None (the key
        relative to the listing prefix, which ``aws.s3.prefix`` may hold)."""
        parsed = self.names.parse(relative_key)
        if (
            parsed is None
            or parsed.topic is None
            or not selects(self.topics, self.topics_regex, parsed.topic)
        ):
            return None
        return parsed


def object_names(naming: AivenNaming, topics: Sequence[str] = ()) -> tuple[str, KeyTemplate]:
    """The listing prefix and key pattern of the objects ``naming`` writes; ``topics`` (the
    subscription's names, when it lists them) are the only texts a topic in a key may be.

    Raises:
        ConfigError: the file name template lacks ``{{topic}}`` or ``{{partition}}`` (outside prefix mode).
    """
    if naming.prefix is not None:
        return _prefixed_names(naming, topic_pattern(topics))
    names = KeyTemplate.compile(naming.template, topics)
    missing = [name for name in ("topic", "partition") if name not in names.variables]
    if missing:
        raise ConfigError(
            f"{TEMPLATE} {naming.template} has no {{{{{missing[0]}}}}}: the restore cannot tell which topic and "
            "partition an object's records came from (no output field carries them). Restore with a template "
            "holding {{topic}} and {{partition}}, or from a Lenses/Aiven source config naming the target topic."
        )
    return "", names


def _prefixed_names(naming: AivenNaming, topic: str) -> tuple[str, KeyTemplate]:
    """``<rendered prefix><topic>-<partition>-<offset %020d><suffix>``, listed from the prefix's literal lead."""
    parts = list(naming.prefix_parts)
    lead = ""
    while parts and isinstance(parts[0], str):
        lead += parts.pop(0)
    name = _PREFIX_NAME.format(topic=topic)
    pattern = "".join(_prefix_part(part, topic) for part in parts) + name + re.escape(naming.prefix_suffix)
    return lead, KeyTemplate(f"{PREFIX}={naming.prefix}", pattern, ("topic", "partition", "start_offset"))


def _prefix_part(part: TemplatePart, topic: str) -> str:
    if isinstance(part, str):
        return re.escape(part)
    assert isinstance(part, TemplateVariable)
    if part.name == "timestamp" and part.parameter is not None:
        return f"[0-9]{{{_UNIT_DIGITS[part.parameter[1]]}}}"
    if part.name == "start_offset":
        padded = part.parameter is not None and part.parameter[1].lower() == "true"
        return "[0-9]{20}" if padded else "[0-9]+"
    return f"(?:{topic})" if part.name == "topic" else _PREFIX_SHAPES[part.name]
