"""Object keys of Quix Streams' ``FileSink`` (``store.layout=quix``).

``<directory>/<topic>/<partition>/<first offset, 19 digits><extension>``, the KCQL prefix playing
Quix's ``directory`` (:func:`quix_object_key`). See docs/quix.md, "The same keys, side by side".
"""

from __future__ import annotations

import re
from enum import Enum

from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec, Format

_UNSAFE = re.compile(r"[^a-zA-Z0-9 ._/]")
OFFSET_DIGITS = 19
"""Quix pads the start offset to the length of the largest signed 64-bit integer."""
QUIX_FORMATS = (Format.JSON, Format.PARQUET)
"""The formats Quix's FileSink has (``format="json"`` or ``"parquet"``)."""


class StoreLayout(Enum):
    """``store.layout``: whose object keys and file contents a statement writes."""

    LENSES = "lenses"
    """Lenses stream-reactor's keys (PARTITIONBY, padding, ``key.suffix``) and rows."""
    QUIX = "quix"
    """Quix Streams' FileSink keys and ``_timestamp``/``_key``/``_value`` rows."""


def quix_extension(format: Format, codec: CompressionCodec) -> str:
    """The extension without its leading dot: ``jsonl``, ``jsonl.gz`` (GZIP) or ``parquet``.

    Parquet keeps ``.parquet`` whatever its codec, as Quix's ParquetFormat does.

    Raises:
        ConfigError: a format Quix does not write (the KCQL property check refuses it first).
    """
    if format is Format.PARQUET:
        return "parquet"
    if format is not Format.JSON:
        raise ConfigError(f"store.layout=quix writes JSON or PARQUET, not {format.value}.")
    return "jsonl.gz" if codec is CompressionCodec.GZIP else "jsonl"


def quix_topic(topic: str) -> str:
    """The topic as Quix's directory level: characters outside ``[a-zA-Z0-9 ._/]`` become ``_``."""
    return _UNSAFE.sub("_", topic)


def quix_object_key(prefix: str, *, topic: str, partition: int, first_offset: int, extension: str) -> str:
    """``<prefix>/<topic>/<partition>/<first offset, 19 digits>.<extension>`` (no prefix: from the topic).

    ``prefix`` is already normalised; ``topic`` is a legal Kafka topic name (checked by the caller).

    Quix (quixstreams/sinks/community/file/base.py) names a batch
    ``Path(directory) / <topic, [^a-zA-Z0-9 ._/] replaced by "_"> / str(partition) /
    f"{batch start offset:019d}{extension}"``, ``.jsonl`` (``.jsonl.gz`` when ``compress=True``) or
    ``.parquet``; lakesink's KCQL prefix is ``directory`` and a file's first record plays the batch
    start. The prefix is normalised as for the Lenses layout: trailing and doubled ``/`` go, as
    ``Path`` drops them, an empty prefix starts the key at the topic, as ``Path("")`` does, and a
    leading ``/``, which ``Path`` would keep, goes too.

    Raises:
        ValueError: a negative partition or offset (Quix would write ``-000…1``; Kafka never has one).
    """
    if partition < 0 or first_offset < 0:
        raise ValueError(f"Partition {partition} and offset {first_offset} must not be negative.")
    name = f"{first_offset:0{OFFSET_DIGITS}d}.{extension}"
    return "/".join(part for part in (prefix, quix_topic(topic), str(partition), name) if part)
