"""Connect's built-in predicates: ``TopicNameMatches``, ``HasHeaderKey`` and ``RecordIsTombstone``.

A predicate decides whether a transform step applies to a record (``transforms.<alias>.predicate``,
inverted by ``negate``), e.g. to ``Filter`` only the tombstones of some topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import PredicateFactory
from lakesink.domain.transforms.kafka_routing import java_regex
from lakesink.domain.transforms.options import TransformOptions

_PACKAGE = "org.apache.kafka.connect.transforms.predicates."


@dataclass(frozen=True)
class TopicNameMatches:
    """True when the whole topic name matches ``pattern``."""

    pattern: re.Pattern[str]

    def test(self, record: Record) -> bool:
        return self.pattern.fullmatch(record.topic) is not None


def topic_name_matches(options: TransformOptions) -> TopicNameMatches:
    """``TopicNameMatches`` from its options."""
    options.check_known(("pattern",))
    return TopicNameMatches(java_regex(options.required("pattern"), options.key("pattern")))


@dataclass(frozen=True)
class HasHeaderKey:
    """True when the record has at least one header called ``name``."""

    name: str

    def test(self, record: Record) -> bool:
        return record.has_header(self.name)


def has_header_key(options: TransformOptions) -> HasHeaderKey:
    """``HasHeaderKey`` from its options."""
    options.check_known(("name",))
    return HasHeaderKey(options.required("name"))


@dataclass(frozen=True)
class RecordIsTombstone:
    """True when the record's value is null."""

    def test(self, record: Record) -> bool:
        return record.value is None


def record_is_tombstone(options: TransformOptions) -> RecordIsTombstone:
    """``RecordIsTombstone`` (it has no options)."""
    options.check_known(())
    return RecordIsTombstone()


PREDICATES: dict[str, PredicateFactory] = {
    _PACKAGE + "TopicNameMatches": topic_name_matches,
    _PACKAGE + "HasHeaderKey": has_header_key,
    _PACKAGE + "RecordIsTombstone": record_is_tombstone,
}
"""The registrations of this module, merged into the catalog."""
