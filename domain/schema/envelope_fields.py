"""Which parts of a Kafka message the envelope stores (``store.envelope*`` properties).

The envelope turns each stored row into ``{key, value, headers, metadata}`` so a restore can
rebuild the original message. The field names are Lenses' so files interoperate.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from lakesink.domain.errors import ConfigError

FIELD_KEYS = (
    "store.envelope.fields.key",
    "store.envelope.fields.value",
    "store.envelope.fields.metadata",
    "store.envelope.fields.headers",
)


class HeadersLayout(Enum):
    """How the envelope stores headers (``store.envelope.headers.layout``, :mod:`.headers`)."""

    STRUCT = "struct"
    """Lenses' layout: one field per header name, values as the header converter gives them."""
    LIST = "list"
    """lakesink's: an ordered list of ``{key, value}`` pairs holding the raw header bytes."""


@dataclass(frozen=True, slots=True)
class EnvelopeFields:
    """The parts of the message an envelope keeps (all true by default) and the headers' layout."""

    key: bool = True
    value: bool = True
    metadata: bool = True
    headers: bool = True
    headers_layout: HeadersLayout = HeadersLayout.STRUCT

    def __post_init__(self) -> None:
        if not (self.key or self.value or self.metadata or self.headers):
            raise ConfigError(
                "If store.envelope is set to true then at least one of ["
                + ",".join(FIELD_KEYS)
                + "] must be set to true."
            )
