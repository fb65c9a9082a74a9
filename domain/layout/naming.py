"""Object keys: the Lenses key formula, file namers and extensions.

Offsets (and partitions, when configured) are padded as Lenses pads them, so a bucket written by
Lenses and one written by lakesink have the same keys for the same records and either can be
restored by the other; where lakesink deviates, it is to keep keys safe and unambiguous.
See docs/naming.md, "The key formula" and "Deliberate differences from Lenses".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lakesink.domain.dialects.quix.naming import StoreLayout, quix_extension, quix_object_key
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.layout.key_segments import has_control_character, normalise_prefix, safe_value
from lakesink.domain.layout.padding import PaddingSettings
from lakesink.domain.layout.partitioning import PartitionDisplay, PartitionSelection, PartitionValues
from lakesink.domain.records import Record

_LEGAL_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")


def file_extension(format: Format, codec: CompressionCodec) -> str:
    """The file extension: the format's, except JSON whose codec extension replaces it (``gz``)."""
    if format is Format.JSON and codec.extension is not None:
        return codec.extension
    return format.extension


@dataclass(frozen=True, slots=True)
class KeyLayout:
    """Everything that decides the object keys of one KCQL statement; build it with :meth:`create`.

    Immutable, hashable and picklable: it is built once on the driver and shipped to executors.
    """

    prefix: str
    selection: PartitionSelection
    padding: PaddingSettings
    key_suffix: str
    format: Format
    codec: CompressionCodec
    store: StoreLayout = StoreLayout.LENSES

    @classmethod
    def create(
        cls,
        *,
        prefix: str | None,
        partition_specs: Sequence[str],
        no_partition: bool,
        include_keys: bool | None,
        padding: PaddingSettings,
        key_suffix: str | None,
        format: Format,
        codec: CompressionCodec,
        date_timezone: str = "UTC",
        store: StoreLayout = StoreLayout.LENSES,
    ) -> KeyLayout:
        """Validate the naming settings of one statement.

        Args:
            prefix: the part after ``bucket:`` in ``INSERT INTO``, or None.
            partition_specs: the PARTITIONBY entries as written (backticks kept).
            no_partition: NOPARTITION was given.
            include_keys: ``partition.include.keys``, or None when not set.
            padding: from :func:`~lakesink.domain.layout.padding.resolve_padding`.
            key_suffix: ``key.suffix``, or None.
            format: the STOREAS format.
            codec: the connector's compression codec.
            date_timezone: ``partition.date.timezone`` (zone of ``_date`` values).
            store: ``store.layout``; with QUIX only the prefix, format and codec name files.

        Raises:
            ConfigError: an invalid prefix, PARTITIONBY entry, date pattern, zone or key suffix.
        """
        suffix = key_suffix or ""
        if "/" in suffix or "\\" in suffix or has_control_character(suffix):
            raise ConfigError(
                f"Invalid value {suffix!r} for key.suffix: "
                "it must not contain '/', '\\' or control characters."
            )
        selection = PartitionSelection.create(
            partition_specs, no_partition=no_partition, include_keys=include_keys, date_timezone=date_timezone
        )
        return cls(normalise_prefix(prefix), selection, padding, suffix, format, codec, store)

    @property
    def file_extension(self) -> str:
        """``json``, ``gz`` (gzipped JSON), ``avro``, ``parquet``, ``csv``, ``text`` or ``bytes``;
        Quix's ``jsonl``, ``jsonl.gz`` or ``parquet`` under ``store.layout=quix``."""
        if self.store is StoreLayout.QUIX:
            return quix_extension(self.format, self.codec)
        return file_extension(self.format, self.codec)

    def partition_values(self, record: Record) -> PartitionValues:
        """The record's partition values, already made path-safe; group writers by this.

        Raises:
            RecordError: the record cannot be partitioned (see PartitionSelection.read).
        """
        selection = self.selection
        values = map(safe_value, selection.read(record, self.padding))
        return PartitionValues(tuple(zip(selection.names, values, strict=True)))

    def coordinate_values(self, topic: str, partition: int) -> PartitionValues | None:
        """The partition values of every record of ``topic``/``partition`` when the layout reads
        nothing else (default layout, NOPARTITION, ``_topic``/``_partition``); None otherwise.

        The sink computes them once per range instead of once per record.
        """
        if not self.selection.reads_only_coordinates:
            return None
        return self.partition_values(Record(topic, partition, 0))

    def partition_path(self, values: PartitionValues) -> str:
        """The ``a=1/b=2`` (or ``1/2``) part of the key; "" for NOPARTITION."""
        expected = tuple(f.name for f in self.selection.fields)
        if values.names != expected:
            raise ValueError(f"Partition values {values.names} do not match this layout's fields {expected}.")
        if self.selection.display is PartitionDisplay.KEYS_AND_VALUES:
            return "/".join(f"{name}={value}" for name, value in values)
        return "/".join(values.values)

    def file_name(
        self, *, topic: str, partition: int, last_offset: int, earliest_ts: int, latest_ts: int
    ) -> str:
        """The last path segment: Lenses' TopicPartitionOffsetFileNamer for custom partitioning
        (PARTITIONBY or NOPARTITION), its OffsetFileNamer for the default layout.

        Raises:
            ValueError: a negative partition or offset.
            ConfigError: ``topic`` is not a legal Kafka topic name.
        """
        if partition < 0 or last_offset < 0:
            raise ValueError(f"Partition {partition} and offset {last_offset} must not be negative.")
        offset = self.padding.pad("offset", str(last_offset))
        ending = f"{self.key_suffix}.{self.file_extension}"
        if self.selection.is_custom:
            return (
                f"{_checked_topic(topic)}({self.padding.pad('partition', str(partition))}_{offset}){ending}"
            )
        return f"{offset}_{earliest_ts}_{latest_ts}{ending}"

    def object_key(
        self,
        values: PartitionValues,
        *,
        topic: str,
        partition: int,
        first_offset: int,
        last_offset: int,
        earliest_ts: int,
        latest_ts: int,
    ) -> str:
        """The full object key of a file whose records run from ``first_offset`` to ``last_offset``.

        ``earliest_ts``/``latest_ts`` are the smallest and largest record timestamps in the file
        (epoch millis, -1 for records without one); only the default layout shows them. Lenses
        names a file by its last offset, Quix (``store.layout=quix``) by its first.

        Raises:
            ConfigError: ``topic`` is not a legal Kafka topic name (it would name a directory).
        """
        if self.store is StoreLayout.QUIX:
            return quix_object_key(
                self.prefix,
                topic=_checked_topic(topic),
                partition=partition,
                first_offset=first_offset,
                extension=self.file_extension,
            )
        name = self.file_name(
            topic=topic,
            partition=partition,
            last_offset=last_offset,
            earliest_ts=earliest_ts,
            latest_ts=latest_ts,
        )
        return "/".join(part for part in (self.prefix, self.partition_path(values), name) if part)

    def staging_relative_dir(self, values: PartitionValues) -> str:
        """``<prefix>/<partition path>/<format extension>``: where a writer's local staging file lives,
        relative to the staging root (Lenses adds a random file name below it)."""
        return "/".join(
            part for part in (self.prefix, self.partition_path(values), self.format.extension) if part
        )


def _checked_topic(topic: str) -> str:
    if not _LEGAL_TOPIC.fullmatch(topic) or topic in (".", ".."):
        raise ConfigError(f"Topic {topic!r} is not a legal Kafka topic name and cannot name an object.")
    return topic
