"""Quix Streams' FileSink keys parsed back (``store.layout=quix``).

``<prefix>/<topic directory>/<partition>/<first offset, 19 digits>.<jsonl|jsonl.gz|parquet>``, anchored
against the key without the listing prefix: the topic directory one level (Quix's sanitised topic,
``[a-zA-Z0-9 ._]``), the partition all digits, the offset exactly 19 digits; other keys are not Quix
objects. Objects of one partition replay in their offset order. See docs/quix.md, "Restoring a Quix bucket".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakesink.domain.dialects.quix.naming import quix_topic
from lakesink.domain.restore.parsed_key import ParsedKey

_QUIX_KEY = re.compile(
    r"(?P<topic>[a-zA-Z0-9 ._]+)/(?P<partition>[0-9]+)/(?P<offset>[0-9]{19})\.(?:jsonl|jsonl\.gz|parquet)",
    re.ASCII,
)


def parse_quix_key(relative_key: str) -> ParsedKey | None:
    """Topic directory, partition and first offset of a Quix object key (listing prefix removed), or None."""
    match = _QUIX_KEY.fullmatch(relative_key)
    if match is None or match["topic"] in (".", ".."):
        return None
    return ParsedKey(match["topic"], int(match["partition"]), int(match["offset"]))


@dataclass(frozen=True, slots=True)
class QuixLayout:
    """Quix's stored objects for the restore and the verifier (rows ``_timestamp``/``_key``/``_value``)."""

    @property
    def dialect(self) -> str:
        return "quix"

    @property
    def plain_objects(self) -> bool:
        """Quix's rows (``_timestamp``/``_key``/``_value``) are its own."""
        return False

    def parse(self, key: str, relative_key: str) -> ParsedKey | None:
        return parse_quix_key(relative_key)

    def siblings(self, key: str) -> tuple[tuple[str, str], ...]:
        return ()

    def stored_topic(self, topic: str) -> str:
        """Quix's keys replace some characters of a topic by ``_``."""
        return quix_topic(topic)
