"""The sink's PROPERTIES keys (reference §1.4), typed and validated.

Values left out stay None so the consumer (flush policy, naming) applies its own default; the
rules that involve the storage format (BYTES needs ``flush.count=1``, the envelope needs
JSON/AVRO/PARQUET, ``store.layout=quix`` needs JSON/PARQUET and no PARTITIONBY) are checked here
because only the statement knows both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lakesink.domain.config.values import as_bool, as_char, as_choice, as_int
from lakesink.domain.dialects.quix.naming import QUIX_FORMATS, StoreLayout
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.kcql.frozen_map import FrozenMap
from lakesink.domain.kcql.property_reader import PropertyReader
from lakesink.domain.schema.envelope_fields import FIELD_KEYS, EnvelopeFields, HeadersLayout
from lakesink.domain.tables.changes import ChangeFormat, ChangeSpec
from lakesink.domain.tables.target import TableFormat

FLUSH_COUNT = "flush.count"
FLUSH_SIZE = "flush.size"
FLUSH_INTERVAL = "flush.interval"
PARTITION_INCLUDE_KEYS = "partition.include.keys"
PADDING_TYPE = "padding.type"
PADDING_CHAR = "padding.char"
PADDING_LENGTH_PREFIX = "padding.length."
PADDING_FIELDS = ("partition", "offset")
KEY_SUFFIX = "key.suffix"
STORE_ENVELOPE = "store.envelope"
HEADERS_LAYOUT = "store.envelope.headers.layout"
PARTITION_DATE_TIMEZONE = "partition.date.timezone"
FILE_NAMER_KEYS = ("store.file.namer", "store.file.namer.param")
STORE_LAYOUT = "store.layout"
TABLE_FORMAT = "table.format"
TABLE_NAME = "table.name"
TABLE_CHANGE_FORMAT = "table.change.format"
TABLE_KEY = "table.key"

PADDING_TYPES = {"leftpad": "LeftPad", "rightpad": "RightPad", "noop": "NoOp"}
_LAYOUTS = {layout.value: layout.value for layout in HeadersLayout}
_STORE_LAYOUTS = {layout.value: layout.value for layout in StoreLayout}
MAX_PADDING_LENGTH = 64

SINK_KEYS = (
    FLUSH_COUNT,
    FLUSH_SIZE,
    FLUSH_INTERVAL,
    PARTITION_INCLUDE_KEYS,
    PADDING_TYPE,
    PADDING_CHAR,
    *(PADDING_LENGTH_PREFIX + field for field in PADDING_FIELDS),
    KEY_SUFFIX,
    STORE_ENVELOPE,
    *FIELD_KEYS,
    HEADERS_LAYOUT,
    PARTITION_DATE_TIMEZONE,
    STORE_LAYOUT,
    TABLE_FORMAT,
    TABLE_NAME,
    TABLE_CHANGE_FORMAT,
    TABLE_KEY,
)

#: The keys that shape Lenses' keys and rows; Quix's layout has none of them.
_LENSES_LAYOUT_KEYS = tuple(
    key for key in SINK_KEYS
    if key not in (FLUSH_COUNT, FLUSH_SIZE, FLUSH_INTERVAL, STORE_LAYOUT, TABLE_FORMAT, TABLE_NAME, TABLE_CHANGE_FORMAT, TABLE_KEY)
)
_TABLE_FORMATS = {table_format.value.lower(): table_format.value for table_format in TableFormat}
_CHANGE_FORMATS = {change_format.value.lower(): change_format.value for change_format in ChangeFormat}
_TABLE_NAME_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

BYTES_FLUSH_COUNT_MESSAGE = (
    "flush.count > 1 is not allowed for BYTES. If you want to store N records as raw bytes use AVRO or "
    "PARQUET. If you are using BYTES but not specified a flush.count, then do so by adding flush.count = 1 "
    "to your KCQL PROPERTIES section."
)

ENVELOPE_ALL_OR_NONE_MESSAGE = (
    "If store.envelope is set to true, then setting selective fields is not allowed. Either set them all "
    "or leave them out, they default to true."
)


@dataclass(frozen=True, slots=True)
class SinkProperties:
    """The sink PROPERTIES of one statement; None means "not given", the consumer applies the default."""

    flush_count: int | None = None
    flush_size: int | None = None
    flush_interval_s: int | None = None
    partition_include_keys: bool | None = None
    padding_type: str | None = None
    padding_char: str | None = None
    padding_lengths: Mapping[str, int] | None = None
    key_suffix: str | None = None
    store_envelope: bool = False
    envelope: EnvelopeFields | None = None
    partition_date_timezone: str | None = None
    store_layout: StoreLayout = StoreLayout.LENSES
    table_format: TableFormat | None = None
    """The table the statement's Parquet objects are committed to; None: plain objects."""
    table_name: str | None = None
    table_changes: ChangeSpec | None = None
    """Change data applied to the table as upserts and deletes; None: the records are appended."""


def read_sink_properties(
    reader: PropertyReader, fmt: Format, *, partitioning: str | None = None, prefix: str | None = None
) -> SinkProperties:
    """Validate and type the sink PROPERTIES of a statement storing ``fmt`` under ``prefix``.

    ``partitioning`` is the layout clause the statement gives (``PARTITIONBY`` or ``NOPARTITION``),
    None without one: ``store.layout=quix`` refuses both.
    """
    for key in FILE_NAMER_KEYS:
        if reader.has(key):
            raise reader.error(
                key,
                f"'{key}' is not supported: lakesink cannot load custom Java file namers. "
                "Use the padding.*, key.suffix and PARTITIONBY options to shape object keys.",
            )
    for key in reader.keys():
        if key.startswith(PADDING_LENGTH_PREFIX) and key[len(PADDING_LENGTH_PREFIX) :] not in PADDING_FIELDS:
            raise reader.error(
                key,
                f"unknown property '{key}': padding lengths can be set only for 'partition' and 'offset'.",
            )
    reader.reject_unknown(SINK_KEYS, clause_owner="sink")
    positive = partial(as_int, minimum=1)
    options = SinkProperties(
        flush_count=reader.read(FLUSH_COUNT, positive),
        flush_size=reader.read(FLUSH_SIZE, positive),
        flush_interval_s=reader.read(FLUSH_INTERVAL, positive),
        partition_include_keys=reader.read(PARTITION_INCLUDE_KEYS, as_bool),
        padding_type=reader.read(PADDING_TYPE, partial(as_choice, choices=PADDING_TYPES)),
        padding_char=reader.read(PADDING_CHAR, _padding_char),
        padding_lengths=_padding_lengths(reader),
        key_suffix=reader.read(KEY_SUFFIX, _key_suffix),
        store_envelope=bool(reader.read(STORE_ENVELOPE, as_bool)),
        envelope=_envelope(reader),
        partition_date_timezone=reader.read(PARTITION_DATE_TIMEZONE, _timezone),
        store_layout=StoreLayout(
            reader.read(STORE_LAYOUT, partial(as_choice, choices=_STORE_LAYOUTS)) or StoreLayout.LENSES.value
        ),
        **_table(reader, fmt, prefix),
    )
    if options.store_layout is StoreLayout.QUIX:
        _check_quix(reader, fmt, partitioning)
    if fmt is Format.BYTES and options.flush_count != 1:
        raise reader.error(FLUSH_COUNT, BYTES_FLUSH_COUNT_MESSAGE)
    if options.store_envelope and not fmt.supports_envelope:
        raise reader.error(STORE_ENVELOPE, f"Envelope is not supported for format {fmt.value}.")
    if options.table_changes is not None:
        _check_changes(reader, options)
    return options


def _table(reader: PropertyReader, fmt: Format, prefix: str | None) -> dict[str, object]:
    """``table.format`` and ``table.name``: a table is made of PARQUET objects, at the statement's
    prefix (its files, and Iceberg's metadata or Delta's log, kept apart from the bucket root where
    the sink's index lives). An Iceberg table is named ``namespace.table`` in its catalog; a Delta
    table's name is only recorded in its metadata (the last segment of the prefix by default)."""
    raw_format = reader.read(TABLE_FORMAT, partial(as_choice, choices=_TABLE_FORMATS))
    if raw_format is None:
        for key in (TABLE_NAME, TABLE_CHANGE_FORMAT, TABLE_KEY):
            if reader.has(key):
                raise reader.error(key, f"'{key}' applies only with '{TABLE_FORMAT}' (ICEBERG or DELTA).")
        return {}
    table_format = TableFormat(raw_format)
    if fmt is not Format.PARQUET:
        raise reader.error(
            TABLE_FORMAT, f"'{TABLE_FORMAT}'={raw_format} needs STOREAS `PARQUET` (a table is made of Parquet files), "
            f"not {fmt.value}."
        )
    if not (prefix or "").strip("/"):
        raise reader.error(
            TABLE_FORMAT, f"'{TABLE_FORMAT}' needs a prefix, INSERT INTO bucket:prefix: the table lives under it, "
            "apart from the sink's index at the bucket root."
        )
    name = reader.read(TABLE_NAME, lambda _key, raw: raw.strip())
    if table_format is TableFormat.ICEBERG:
        parts = (name or "").split(".")
        if len(parts) < 2 or not all(_TABLE_NAME_PART.fullmatch(part) for part in parts):
            raise reader.error(
                TABLE_NAME if name else TABLE_FORMAT,
                f"An Iceberg table needs '{TABLE_NAME}'='namespace.table' (letters, digits and _), "
                f"not {name!r}: the name it has in the catalog.",
            )
    return {
        "table_format": table_format,
        "table_name": name or (prefix or "").strip("/").rsplit("/", 1)[-1],
        "table_changes": _changes(reader),
    }


def _changes(reader: PropertyReader) -> ChangeSpec | None:
    """``table.change.format`` and ``table.key``: both or neither."""
    raw_format = reader.read(TABLE_CHANGE_FORMAT, partial(as_choice, choices=_CHANGE_FORMATS))
    raw_key = reader.read(TABLE_KEY, lambda _key, raw: raw)
    if raw_format is None and raw_key is None:
        return None
    if raw_format is None:
        raise reader.error(TABLE_KEY, f"'{TABLE_KEY}' needs '{TABLE_CHANGE_FORMAT}' (DEBEZIUM): how the records say what changed.")
    columns = tuple(column.strip() for column in (raw_key or "").split(","))
    if raw_key is None or not all(_TABLE_NAME_PART.fullmatch(column) for column in columns):
        raise reader.error(
            TABLE_KEY if raw_key is not None else TABLE_CHANGE_FORMAT,
            f"'{TABLE_CHANGE_FORMAT}' needs '{TABLE_KEY}': the table's key columns, comma-separated (letters, digits "
            f"and _), not {raw_key!r}. A change replaces or deletes the row with the same key.",
        )
    if len(set(columns)) != len(columns):
        raise reader.error(TABLE_KEY, f"'{TABLE_KEY}' names a column twice: {raw_key!r}.")
    return ChangeSpec(ChangeFormat(raw_format), columns)


def _check_changes(reader: PropertyReader, options: SinkProperties) -> None:
    """A change table keeps its change records whole (Lenses' envelope: key, value and metadata), from
    which the table's rows are applied: a tombstone's key, each change's offset and timestamp."""
    envelope = options.envelope
    if not options.store_envelope or envelope is None or not (envelope.key and envelope.value and envelope.metadata):
        raise reader.error(
            TABLE_CHANGE_FORMAT,
            f"'{TABLE_CHANGE_FORMAT}' needs 'store.envelope'=true with the key, value and metadata fields: the "
            "objects keep each change record whole (a tombstone is only a key), and the table is applied from them.",
        )


def _check_quix(reader: PropertyReader, fmt: Format, partitioning: str | None) -> None:
    """Quix's FileSink writes JSON lines or Parquet into ``<directory>/<topic>/<partition>/``, with
    fixed names and rows: nothing that partitions or shapes Lenses' keys and rows applies."""
    if fmt not in QUIX_FORMATS:
        raise reader.error(
            STORE_LAYOUT, f"store.layout=quix writes JSON or PARQUET (Quix's formats), not {fmt.value}."
        )
    if partitioning is not None:
        raise reader.error(
            STORE_LAYOUT,
            f"store.layout=quix cannot be used with {partitioning}: Quix's FileSink has no partitioning, it "
            "always writes <directory>/<topic>/<partition>/<first offset>. Remove the clause.",
        )
    given = next((key for key in reader.keys() if key in _LENSES_LAYOUT_KEYS), None)
    if given is not None:
        raise reader.error(
            given,
            f"'{given}' does not apply to store.layout=quix: Quix's keys and rows are fixed "
            "(only flush.count, flush.size and flush.interval do).",
        )


def _padding_lengths(reader: PropertyReader) -> Mapping[str, int] | None:
    lengths = {
        field: reader.read(
            PADDING_LENGTH_PREFIX + field, partial(as_int, minimum=0, maximum=MAX_PADDING_LENGTH)
        )
        for field in PADDING_FIELDS
    }
    given = {field: length for field, length in lengths.items() if length is not None}
    return FrozenMap(given) if given else None


def _envelope(reader: PropertyReader) -> EnvelopeFields | None:
    """Lenses' all-or-none rule for the four ``store.envelope.fields.*`` keys, and lakesink's
    ``store.envelope.headers.layout`` (``struct``, Lenses' layout and the default, or ``list``;
    :mod:`lakesink.domain.schema.headers` says what each keeps)."""
    given = [key for key in (*FIELD_KEYS, HEADERS_LAYOUT) if reader.has(key)]
    if not reader.read(STORE_ENVELOPE, as_bool):
        if given:
            raise reader.error(given[0], f"'{given[0]}' applies only when 'store.envelope' is true.")
        return None
    fields_given = [key for key in given if key in FIELD_KEYS]
    if fields_given and len(fields_given) != len(FIELD_KEYS):
        raise reader.error(fields_given[0], ENVELOPE_ALL_OR_NONE_MESSAGE)
    flags = {key.rsplit(".", 1)[1]: reader.read(key, as_bool) for key in FIELD_KEYS}
    layout = reader.read(HEADERS_LAYOUT, partial(as_choice, choices=_LAYOUTS)) or HeadersLayout.STRUCT.value
    try:
        return EnvelopeFields(
            **{field: True if flag is None else flag for field, flag in flags.items()},
            headers_layout=HeadersLayout(layout),
        )
    except ConfigError as error:
        raise reader.error(STORE_ENVELOPE, str(error)) from None


def _padding_char(key: str, raw: str) -> str:
    char = as_char(key, raw)
    if char in "/\\" or not char.isprintable():
        raise ConfigError(
            f"Invalid value {raw!r} for {key}: the padding character cannot be a path separator."
        )
    return char


def _key_suffix(key: str, raw: str) -> str:
    bad = next((char for char in raw if char in "/\\" or not char.isprintable()), None)
    if bad is not None:
        raise ConfigError(
            f"Invalid value {raw!r} for {key}: it must not contain {bad!r} (no '/', '\\' or control "
            f"characters)."
        )
    return raw


def _timezone(key: str, raw: str) -> str:
    try:
        ZoneInfo(raw)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"Invalid value {raw!r} for {key}: expected an IANA time-zone name such as 'UTC' or "
            f"'Europe/Paris'."
        ) from None
    return raw
