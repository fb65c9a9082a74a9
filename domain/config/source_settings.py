"""Restore (source) settings: directory discovery, filtering, partitions.

Besides Lenses' keys, the restore's own (``source.partition.remap``, ``source.transaction.timeout.ms``,
extractor types ``layout`` and ``none``) are parsed here, so every restore setting is validated
once by the catalog and listed in docs/configuration.md. Lenses keys lakesink does not implement
(``ordering.type``, the empty-results backoff, recurse levels, watermark headers, late arrival,
``source.partition.search.continuous=false``) are accepted at their defaults only (``Kind.NOT_YET``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakesink.domain.config.enums import PartitionExtractorType
from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.errors import ConfigError


@dataclass(frozen=True, slots=True)
class SourceSettings:
    """``connect.<prefix>.source.*`` with the Lenses defaults.

    ``partition_remap_modulo``: ``source.partition.remap=modulo`` (partition ``p`` goes to
    ``p % partitions``). ``transaction_timeout_ms``: ``source.transaction.timeout.ms``.
    """

    partition_search_interval_ms: int = 300_000
    partition_search_excludes: tuple[str, ...] = (".indexes",)
    extension_includes: tuple[str, ...] = ()
    extension_excludes: tuple[str, ...] = ()
    partition_extractor: PartitionExtractorType = PartitionExtractorType.LAYOUT
    partition_extractor_regex: str | None = None
    partition_remap_modulo: bool = False
    transaction_timeout_ms: int = 60_000


def parse_source_settings(reader: PropertyReader) -> SourceSettings:
    """Typed source settings."""
    extractor, extractor_regex = _partition_extractor(reader)
    return SourceSettings(
        partition_search_interval_ms=_int(reader, "source.partition.search.interval", minimum=1),
        partition_search_excludes=reader.items("source.partition.search.excludes"),
        extension_includes=_extensions(reader, "source.extension.includes"),
        extension_excludes=_extensions(reader, "source.extension.excludes"),
        partition_extractor=extractor,
        partition_extractor_regex=extractor_regex,
        partition_remap_modulo=_remap_modulo(reader),
        transaction_timeout_ms=_int(reader, "source.transaction.timeout.ms", minimum=1000, maximum=900_000),
    )


def _int(reader: PropertyReader, name: str, *, minimum: int, maximum: int | None = None) -> int:
    value = reader.integer(name, minimum=minimum, maximum=maximum)
    if value is None:
        raise KeyError(f"{name} has no default in the catalog")
    return value


def _extensions(reader: PropertyReader, name: str) -> tuple[str, ...]:
    """Lower-cased, each with its leading dot, as Lenses compares them."""
    return tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in reader.items(name))


def _remap_modulo(reader: PropertyReader) -> bool:
    """``source.partition.remap``: ``none`` (the catalog default) or ``modulo``, any case."""
    raw = reader.text("source.partition.remap") or "none"
    if raw.lower() not in ("none", "modulo"):
        key = reader.key("source.partition.remap")
        raise ConfigError(f"Invalid value {raw!r} for {key}: expected none or modulo.")
    return raw.lower() == "modulo"


def _partition_extractor(reader: PropertyReader) -> tuple[PartitionExtractorType, str | None]:
    type_key = reader.key("source.partition.extractor.type")
    regex_key = reader.key("source.partition.extractor.regex")
    extractor = reader.enum("source.partition.extractor.type", PartitionExtractorType)
    regex = reader.text("source.partition.extractor.regex")
    if extractor is not PartitionExtractorType.REGEX:
        if regex is not None:
            given = extractor.value if reader.is_set("source.partition.extractor.type") else "not regex"
            raise ConfigError(f"{regex_key} is set but {type_key} is {given}.")
        return extractor, None
    if regex is None:
        raise ConfigError(f"{type_key} is regex but {regex_key} is missing.")
    try:
        groups = re.compile(regex).groups
    except re.error as error:
        raise ConfigError(f"Invalid regular expression for {regex_key}: {error}.") from None
    if groups < 1:
        raise ConfigError(f"{regex_key} needs a capturing group: group 1 is the partition number.")
    return extractor, regex
