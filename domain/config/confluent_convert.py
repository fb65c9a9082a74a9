"""A Confluent S3 sink config as the nearest Lenses-dialect config (``lakesink config convert``).

Users leaving Confluent's S3 sink get a config lakesink runs today (the Lenses dialect), plus
one line per Confluent key that could not be carried over and why. The Confluent config is
validated first (:class:`~lakesink.domain.config.confluent_sink.ConfluentSinkConfig`), so an
invalid one is refused exactly as ``kcql explain`` refuses it.

* ``s3.bucket.name`` + ``topics.dir`` + topic give the statement's ``bucket:prefix``; one
  statement per topic (``*`` for ``topics.regex``, a provided ``topics`` or a topic-routing
  transform); the partitioner becomes a PARTITIONBY
  (:mod:`lakesink.domain.config.confluent_convert_layout`);
* ``format.class`` becomes STOREAS, the codecs ``connect.s3.compression.codec``, ``flush.size``
  ``'flush.count'``, ``rotate.schedule.interval.ms`` ``'flush.interval'`` (seconds, rounded up),
  ``store.kafka.keys/headers`` an envelope, ``behavior.on.null.values=ignore``
  ``connect.s3.skip.null.values``;
* region, endpoint, path style, credentials, converters, transforms, predicates, Kafka client
  and config provider keys are copied as written.

Values are printed as the file wrote them, so a ``${file:...}`` reference stays a reference and
no value a config provider resolved is ever printed; a key the converter would have to rewrite
(a pattern, a number) may therefore not come from a provider.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from lakesink.domain.config.confluent_convert_keys import left_out_reason
from lakesink.domain.config.confluent_convert_layout import PartitionMapping, partition_mapping
from lakesink.domain.config.confluent_keys import USED_CLIENT_KEYS
from lakesink.domain.config.confluent_sink import CONFLUENT_S3_SINK, ConfluentSinkConfig, is_confluent_sink
from lakesink.domain.config.connector import UNREAD_CLOCK
from lakesink.domain.config.properties_text import properties_line, properties_value
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.lexer import needs_backticks, quote
from lakesink.domain.layout.confluent_naming import ConfluentFormat
from lakesink.domain.transforms.registry import build_chain

LENSES_S3_SINK = "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"
#: Between two statements of ``connect.s3.kcql`` in :attr:`Conversion.properties`; printed as
#: ``;`` and a continuation line, so the loaded value is ``statement;statement``.
STATEMENT_SEPARATOR = ";\n"
_FORMATS = {
    ConfluentFormat.AVRO: Format.AVRO,
    ConfluentFormat.JSON: Format.JSON,
    ConfluentFormat.PARQUET: Format.PARQUET,
    ConfluentFormat.BYTEARRAY: Format.BYTES,
}
_PARQUET_CODECS = {
    "snappy": CompressionCodec.SNAPPY,
    "gzip": CompressionCodec.GZIP,
    "brotli": CompressionCodec.BROTLI,
    "zstd": CompressionCodec.ZSTD,
    "lz4": CompressionCodec.LZ4,
    "lz4_raw": CompressionCodec.LZ4,
}
_AVRO_CODECS = {
    "deflate": CompressionCodec.DEFLATE,
    "snappy": CompressionCodec.SNAPPY,
    "bzip2": CompressionCodec.BZIP2,
}
_DETECTORS = {"BACKWARD": "version", "FULL": "version", "FORWARD": "compatibility"}
#: Keys whose value the converter rewrites (into KCQL or another form): never from a provider.
_REWRITTEN = frozenset(
    {
        "partitioner.class",
        "partition.field.name",
        "partition.duration.ms",
        "path.format",
        "locale",
        "timezone",
        "timestamp.extractor",
        "timestamp.field",
        "flush.size",
        "rotate.schedule.interval.ms",
        "format.class",
        "parquet.codec",
        "avro.codec",
        "s3.compression.type",
        "filename.offset.zero.pad.width",
        "directory.delim",
        "store.kafka.keys",
        "store.kafka.headers",
        "behavior.on.null.values",
        "schema.compatibility",
    }
)
_COPIED_PREFIXES = ("key.converter", "value.converter", "header.converter", "transforms", "predicates")
_CLIENT_PREFIXES = ("consumer.", "sasl.", "ssl.")
_MAX_PADDING = 64
_PARTITIONER_KEYS = (
    "partition.field.name",
    "partition.duration.ms",
    "path.format",
    "locale",
    "timezone",
    "timestamp.extractor",
    "timestamp.field",
)


@dataclass(frozen=True, slots=True)
class Conversion:
    """The Lenses-dialect config, in print order, and (Confluent key, why) for what did not carry over."""

    properties: tuple[tuple[str, str], ...]
    notes: tuple[tuple[str, str], ...]

    def properties_text(self) -> str:
        """The config as ``.properties`` text, one KCQL statement per continuation line."""
        lines = ["# Converted from a Confluent S3 sink config by `lakesink config convert`."]
        for key, value in self.properties:
            if key == "connect.s3.kcql":
                statements = (properties_value(statement) for statement in value.split(STATEMENT_SEPARATOR))
                lines.append(properties_line(key, "") + ";\\\n    ".join(statements))
            else:
                lines.append(properties_line(key, value))
        return "\n".join(lines) + "\n"

    def note_lines(self) -> list[str]:
        """One ``<confluent key>: <why>`` line per key."""
        return [f"{key}: {why}" for key, why in self.notes]


def convert_confluent(
    raw: Mapping[str, str], resolved: Mapping[str, str], provided: frozenset[str] = frozenset()
) -> Conversion:
    """The nearest Lenses-dialect config for a Confluent S3 sink config.

    Args:
        raw: the config as written (provider references unresolved): what is printed.
        resolved: the same config with references resolved: what is validated and read.
        provided: the keys whose value held a reference.

    Raises:
        ConfigError: not a Confluent S3 sink config, an invalid one (Confluent's validation), or
            a key the converter must rewrite comes from a config provider.
    """
    if not is_confluent_sink(resolved):
        shown = raw.get("connector.class", "").strip() or "not set"
        raise ConfigError(
            f"connector.class is {shown}: only a Confluent S3 sink config "
            f"(connector.class={CONFLUENT_S3_SINK}) can be converted."
        )
    config = ConfluentSinkConfig.from_properties(resolved, provided)
    blocked = sorted(provided & _REWRITTEN)
    if blocked:
        raise ConfigError(
            f"{blocked[0]} comes from a config provider reference: converting it would print the value it "
            "resolved to; write the value in the file to convert it."
        )
    return _Converter(raw, config, provided).run()


class _Converter:
    """Builds one conversion: the properties written, the notes, the keys already accounted for."""

    def __init__(self, raw: Mapping[str, str], config: ConfluentSinkConfig, provided: frozenset[str]) -> None:
        self.raw = raw
        self.config = config
        self.provided = provided
        self.out: dict[str, str] = {}
        self.notes: dict[str, list[str]] = {}
        self.handled: set[str] = {"connector.class", "storage.class", "s3.credentials.provider.class"}

    def run(self) -> Conversion:
        raw, config = self.raw, self.config
        self.out["name"] = raw.get("name", config.name)
        self.out["connector.class"] = LENSES_S3_SINK
        self.handled.add("name")
        for key in ("tasks.max", "topics", "topics.regex", "bootstrap.servers"):
            self._copy(key)
        stored = self._kcql()
        self.out["connect.s3.aws.region"] = _given(raw, "s3.region", config.region)
        self._copy("store.url", "connect.s3.custom.endpoint")
        self.out["connect.s3.path.style.access"] = _given(raw, "s3.path.style.access.enabled", "true")
        self.handled.update({"s3.region", "s3.path.style.access.enabled"})
        if config.access_key is not None:
            self.out["connect.s3.aws.auth.mode"] = "Credentials"
            self._copy("aws.access.key.id", "connect.s3.aws.access.key")
            self._copy("aws.secret.access.key", "connect.s3.aws.secret.key")
        self._compression()
        self._copy("s3.part.size", "connect.s3.multipart.part.size")
        self._copy("s3.part.retries", "connect.s3.http.max.retries")
        self._records()
        self._file_names(stored)
        for key in raw:
            if is_provider_key(key) or key.startswith(_COPIED_PREFIXES):
                self._copy(key)
        for key in raw:
            if key.startswith(_CLIENT_PREFIXES) or key in USED_CLIENT_KEYS:
                self._copy(key)
        for key in raw:
            if key not in self.handled:
                self._note(key, left_out_reason(key))
        notes = tuple((key, "; ".join(whys)) for key, whys in self.notes.items())
        return Conversion(tuple(self.out.items()), tuple((k, config.hidden.scrub(w)) for k, w in notes))

    def _copy(self, key: str, to: str | None = None) -> None:
        if key in self.raw:
            self.out[to or key] = self.raw[key]
            self.handled.add(key)

    def _note(self, key: str, why: str) -> None:
        self.notes.setdefault(key, []).append(why)
        self.handled.add(key)

    # --- connect.s3.kcql ------------------------------------------------------------------------

    def _kcql(self) -> Format:
        config = self.config
        mapping = partition_mapping(config, wildcard_key=self._wildcard_key())
        self.handled.update(mapping.handled)
        for key, why in mapping.notes:
            self._note(key, why)
        self._unread_partition_keys(mapping)
        properties = self._statement_properties(mapping)
        stored = _FORMATS[config.format]
        bucket = self.raw.get("s3.bucket.name", config.bucket)
        topics_dir = self.raw.get("topics.dir", config.layout.topics_dir)
        topics_dir = topics_dir if topics_dir.strip() else ""
        self.handled.update({"s3.bucket.name", "topics.dir"})
        tail = f"PARTITIONBY {', '.join(mapping.specs)} STOREAS `{stored.value}` PROPERTIES({properties})"
        if mapping.specs[0] == "_topic":
            location = _name(bucket) + (f":{_name(topics_dir)}" if topics_dir else "")
            statements = [f"INSERT INTO {location} SELECT * FROM `*` {tail}"]
        else:
            statements = [
                f"INSERT INTO {_name(bucket)}:{_name(f'{topics_dir}/{topic}' if topics_dir else topic)} "
                f"SELECT * FROM {_name(topic)} {tail}"
                for topic in config.topics
            ]
        self.out["connect.s3.kcql"] = STATEMENT_SEPARATOR.join(statements)
        if config.layout.directory_delim != "/":
            self._note("directory.delim", "Lenses separates every directory of a key with '/'")
        self.handled.add("directory.delim")
        return stored

    def _wildcard_key(self) -> str | None:
        if self.config.topics_regex is not None:
            return "topics.regex"
        if "topics" in self.provided:
            return "topics"
        if build_chain(self.config.transforms, UNREAD_CLOCK).routes:
            return "transforms"
        return None

    def _unread_partition_keys(self, mapping: PartitionMapping) -> None:
        name = self.raw.get("partitioner.class", "DefaultPartitioner").rsplit(".", 1)[-1]
        if self.config.rotate_schedule_interval_ms > 0:
            self.handled.add("timezone")  # rotate.schedule.interval.ms reads it too (see its note)
        for key in _PARTITIONER_KEYS:
            if key in self.raw and key not in mapping.handled | self.handled:
                self._note(key, f"not read by {name} (no effect in Confluent either)")

    def _statement_properties(self, mapping: PartitionMapping) -> str:
        config = self.config
        properties = {"flush.count": str(config.flush_size)}
        if config.format is ConfluentFormat.BYTEARRAY:
            properties["flush.count"] = "1"
            if config.flush_size != 1:
                self._note(
                    "flush.size", "Lenses' BYTES format stores one record per object ('flush.count'=1)"
                )
        else:
            self._note(
                "flush.size",
                "converted to 'flush.count', which Lenses counts per file (Confluent per topic-partition, "
                "across its open files); Lenses also rolls files at 'flush.size' bytes (default 500000000)"
                + (
                    ""
                    if config.rotate_schedule_interval_ms > 0
                    else " and 'flush.interval' seconds (default 3600)"
                ),
            )
        if config.rotate_schedule_interval_ms > 0:
            seconds = math.ceil(config.rotate_schedule_interval_ms / 1000)
            properties["flush.interval"] = str(seconds)
            self._note(
                "rotate.schedule.interval.ms",
                f"converted to 'flush.interval'={seconds} (seconds, rounded up), counted from when each file "
                "opened, not aligned to the clock in timezone as Confluent does",
            )
        properties.update(mapping.properties)
        width = config.layout.zero_pad_width
        if width <= _MAX_PADDING:
            properties["padding.length.offset"] = str(width)
            self.handled.add("filename.offset.zero.pad.width")
        else:
            self._note(
                "filename.offset.zero.pad.width", f"Lenses pads offsets to at most {_MAX_PADDING} digits"
            )
        properties.update(self._envelope())
        self.handled.update({"flush.size", "format.class"})
        return ", ".join(f"{quote(k, chr(39))}={quote(v, chr(39))}" for k, v in properties.items())

    def _envelope(self) -> dict[str, str]:
        config = self.config
        stored = [
            (which, view) for which, view in (("keys", config.keys), ("headers", config.headers)) if view
        ]
        self.handled.update(
            {"store.kafka.keys", "store.kafka.headers", "keys.format.class", "headers.format.class"}
        )
        if not stored:
            return {}
        if config.format is ConfluentFormat.BYTEARRAY:
            for which, _ in stored:
                self._note(
                    f"store.kafka.{which}",
                    "Lenses' BYTES files hold only the value; store.envelope needs JSON, AVRO or PARQUET",
                )
            return {}
        for which, view in stored:
            other = "" if view.format is config.format else f" (not {view.format.name}, {which}.format.class)"
            self._note(
                f"store.kafka.{which}",
                f"Lenses writes no .{which} sibling files: the {which} are stored in each value file's "
                f"envelope (store.envelope), in {_FORMATS[config.format].value}{other}",
            )
        return {
            "store.envelope": "true",
            "store.envelope.fields.key": _flag(config.keys is not None),
            "store.envelope.fields.value": "true",
            "store.envelope.fields.metadata": "false",
            "store.envelope.fields.headers": _flag(config.headers is not None),
        }

    def _file_names(self, stored: Format) -> None:
        config = self.config
        topic = config.topics[0] if config.topics and "topics" not in self.provided else "<topic>"
        f = config.layout.file_delim
        confluent = f"{topic}{f}0{f}{0:0{config.layout.zero_pad_width}d}{config.extension}"
        codec = self.out.get("connect.s3.compression.codec")
        extension = "gz" if stored is Format.JSON and codec == "GZIP" else stored.extension
        lenses = f"{topic}(0_{0:0{min(config.layout.zero_pad_width, _MAX_PADDING)}d}).{extension}"
        self._note(
            "file.delim",
            f"Confluent's file names <topic>{f}<partition>{f}<start offset><extension> ({confluent}) cannot be "
            f"expressed in Lenses' naming: <topic>(<partition>_<last offset>).<extension> ({lenses})",
        )

    # --- connector-level settings ---------------------------------------------------------------

    def _compression(self) -> None:
        config, raw = self.config, self.raw
        codec: CompressionCodec | None = None
        level_used = False
        compression = raw.get("s3.compression.type", "none").strip()
        if config.format is ConfluentFormat.PARQUET:
            name = raw.get("parquet.codec", "snappy").strip()
            codec = _PARQUET_CODECS.get(name)
            if name in ("lz4", "lz4_raw"):
                self._note(
                    "parquet.codec",
                    f"{name} is written with Lenses' LZ4 codec (Parquet readers read both framings)",
                )
            elif name == "lzo":
                self._note(
                    "parquet.codec",
                    "lzo is not available in lakesink's Parquet writer: files are uncompressed",
                )
        elif config.format is ConfluentFormat.AVRO:
            codec = _AVRO_CODECS.get(config.avro_codec)
        elif compression == "gzip" and config.format is ConfluentFormat.JSON:
            codec, level_used = CompressionCodec.GZIP, True
        elif compression == "gzip":
            self._note("s3.compression.type", "Lenses' BYTES files are never compressed")
        if codec is not None:
            self.out["connect.s3.compression.codec"] = codec.value
        if level_used and config.compression_level != -1:
            self._copy("s3.compression.level", "connect.s3.compression.level")
        elif "s3.compression.level" in raw:
            self._note(
                "s3.compression.level",
                "only used with s3.compression.type=gzip (no effect in Confluent here either)",
            )
        self.handled.update({"parquet.codec", "avro.codec", "s3.compression.type", "s3.compression.level"})

    def _records(self) -> None:
        config = self.config
        if config.null_values == "ignore":
            self.out["connect.s3.skip.null.values"] = "true"
        elif config.null_values == "fail":
            self._note(
                "behavior.on.null.values",
                "fail (the default) has no Lenses equivalent: Lenses writes null values "
                "(connect.s3.skip.null.values=true drops them instead)",
            )
        else:
            self._note(
                "behavior.on.null.values",
                "write: Confluent writes only the key, under tombstone.encoded.partition; Lenses stores the "
                "record with a null value in the envelope, in the directory its PARTITIONBY gives "
                "(a PARTITIONBY on value fields fails on it)",
            )
        self.handled.add("behavior.on.null.values")
        detector = _DETECTORS.get(config.schema_compatibility)
        if detector is not None:
            self.out["connect.s3.schema.change.detector"] = detector
            self._note(
                "schema.compatibility",
                f"{config.schema_compatibility} converted to connect.s3.schema.change.detector={detector}, the "
                "nearest rule: Lenses rolls the file on a "
                + ("newer schema version" if detector == "version" else "schema the file's cannot read")
                + " and writes other records with the file's schema, but it does not project records as "
                "Confluent does",
            )
        self.handled.add("schema.compatibility")
        if self.raw.get("errors.tolerance", "none").strip().lower() == "none":
            self.handled.add("errors.tolerance")  # Lenses' only behaviour


def _name(value: str) -> str:
    """A KCQL name: bare when it can be, else in backticks."""
    return quote(value, "`") if needs_backticks(value) or value.upper() in KEYWORDS else value


def _given(raw: Mapping[str, str], key: str, default: str) -> str:
    """The value as written, or Confluent's default when the key is missing or blank."""
    value = raw.get(key, "")
    return value if value.strip() else default


def _flag(value: bool) -> str:
    return "true" if value else "false"
