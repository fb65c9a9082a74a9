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
  ``connect.s3.skip.null.values`` (:mod:`lakesink.domain.config.confluent_convert_settings`);
* region, endpoint, path style, credentials, converters, transforms, predicates, Kafka client
  and config provider keys are copied as written.

Values are printed as the file wrote them, so a ``${file:...}`` reference stays a reference and
no value a config provider resolved is ever printed; a key the converter would have to rewrite
(a pattern, a number) may therefore not come from a provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lakesink.domain.config.confluent_convert_keys import left_out_reason
from lakesink.domain.config.confluent_convert_layout import partition_mapping
from lakesink.domain.config.confluent_convert_settings import (
    FORMATS,
    MAX_PADDING,
    Piece,
    compression,
    envelope_properties,
    flush_properties,
    record_handling,
)
from lakesink.domain.config.confluent_keys import USED_CLIENT_KEYS
from lakesink.domain.config.confluent_sink import CONFLUENT_S3_SINK, ConfluentSinkConfig, is_confluent_sink
from lakesink.domain.config.connector import UNREAD_CLOCK
from lakesink.domain.config.properties_text import properties_line, properties_value
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.lexer import needs_backticks, quote
from lakesink.domain.transforms.registry import build_chain

LENSES_S3_SINK = "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"
#: Between two statements of ``connect.s3.kcql`` in :attr:`Conversion.properties`; printed as
#: ``;`` and a continuation line, so the loaded value is ``statement;statement``.
STATEMENT_SEPARATOR = ";\n"
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
        self.out.update(self._take(compression(config, raw)))
        self._copy("s3.part.size", "connect.s3.multipart.part.size")
        self._copy("s3.part.retries", "connect.s3.http.max.retries")
        self.out.update(self._take(record_handling(config, raw)))
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
        notes = tuple((key, config.hidden.scrub("; ".join(whys))) for key, whys in self.notes.items())
        return Conversion(tuple(self.out.items()), notes)

    def _copy(self, key: str, to: str | None = None) -> None:
        if key in self.raw:
            self.out[to or key] = self.raw[key]
            self.handled.add(key)

    def _note(self, key: str, why: str) -> None:
        self.notes.setdefault(key, []).append(why)
        self.handled.add(key)

    def _take(self, piece: Piece) -> dict[str, str]:
        """A piece's notes and handled keys recorded; its properties returned."""
        for key, why in piece.notes:
            self._note(key, why)
        self.handled.update(piece.handled)
        return piece.properties

    # --- connect.s3.kcql ------------------------------------------------------------------------

    def _kcql(self) -> Format:
        config = self.config
        mapping = partition_mapping(config, wildcard_key=self._wildcard_key())
        for key, why in mapping.notes:
            self._note(key, why)
        self.handled.update(mapping.handled)
        properties = self._take(flush_properties(config))
        self._unread_partition_keys()
        properties.update(mapping.properties)
        properties.update(self._take(envelope_properties(config)))
        listed = ", ".join(f"{quote(k, chr(39))}={quote(v, chr(39))}" for k, v in properties.items())
        stored = FORMATS[config.format]
        tail = f"PARTITIONBY {', '.join(mapping.specs)} STOREAS `{stored.value}` PROPERTIES({listed})"
        bucket = self.raw.get("s3.bucket.name", config.bucket)
        topics_dir = self.raw.get("topics.dir", config.layout.topics_dir)
        topics_dir = topics_dir if topics_dir.strip() else ""
        self.handled.update({"s3.bucket.name", "topics.dir", "directory.delim"})
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
        return stored

    def _wildcard_key(self) -> str | None:
        if self.config.topics_regex is not None:
            return "topics.regex"
        if "topics" in self.provided:
            return "topics"
        if build_chain(self.config.transforms, UNREAD_CLOCK).routes:
            return "transforms"
        return None

    def _unread_partition_keys(self) -> None:
        name = self.raw.get("partitioner.class", "DefaultPartitioner").rsplit(".", 1)[-1]
        for key in _PARTITIONER_KEYS:
            if key in self.raw and key not in self.handled:
                self._note(key, f"not read by {name} (no effect in Confluent either)")

    def _file_names(self, stored: Format) -> None:
        config = self.config
        topic = config.topics[0] if config.topics and "topics" not in self.provided else "<topic>"
        f = config.layout.file_delim
        confluent = f"{topic}{f}0{f}{0:0{config.layout.zero_pad_width}d}{config.extension}"
        codec = self.out.get("connect.s3.compression.codec")
        extension = "gz" if stored is Format.JSON and codec == "GZIP" else stored.extension
        lenses = f"{topic}(0_{0:0{min(config.layout.zero_pad_width, MAX_PADDING)}d}).{extension}"
        self._note(
            "file.delim",
            f"Confluent's file names <topic>{f}<partition>{f}<start offset><extension> ({confluent}) cannot be "
            f"expressed in Lenses' naming: <topic>(<partition>_<last offset>).<extension> ({lenses})",
        )


def _name(value: str) -> str:
    """A KCQL name: bare when it can be, else in backticks."""
    return quote(value, "`") if needs_backticks(value) or value.upper() in KEYWORDS else value


def _given(raw: Mapping[str, str], key: str, default: str) -> str:
    """The value as written, or Confluent's default when the key is missing or blank."""
    value = raw.get(key, "")
    return value if value.strip() else default
