"""What the restore and the verifier ask of a dialect's stored objects, whichever connector wrote them.

A restore root of a Confluent or Aiven S3 sink config, or of Quix's layout, carries one ``layout``
(None for Lenses' own layouts): it parses an object key back into topic, partition and first
offset, names the objects read with it, and says how its keys spell a topic. The readers of its
objects are the adapters' (:mod:`lakesink.adapters.dialects.registry`), found by
:attr:`StoredLayout.dialect`.
"""

from __future__ import annotations

from typing import Protocol

from lakesink.domain.restore.parsed_key import ParsedKey


class StoredLayout(Protocol):
    """One dialect's stored objects (see the module)."""

    @property
    def dialect(self) -> str:
        """The dialect's name: which readers read its objects."""
        ...

    @property
    def plain_objects(self) -> bool:
        """Whether its objects are files of the root's format as lakesink writes them (their records
        counted from a footer or their lines), not rows or framing of the dialect's own."""
        ...

    def parse(self, key: str, relative_key: str) -> ParsedKey | None:
        """Topic, partition and first offset of one of its objects (the key whole, and without the
        listing prefix), or None for any other key."""
        ...

    def siblings(self, key: str) -> tuple[tuple[str, str], ...]:
        """``(marker, object key)`` of the objects read together with ``key``."""
        ...

    def stored_topic(self, topic: str) -> str:
        """How its keys spell ``topic``."""
        ...
