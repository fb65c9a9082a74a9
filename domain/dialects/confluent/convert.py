"""A Confluent S3 sink config as the nearest Lenses-dialect config (``lakesink config convert``).

The config is validated first (as ``kcql explain`` validates it); the result is a config lakesink
runs plus one line per Confluent key not carried over and why. Values are printed as the file
wrote them, so a ``${file:...}`` reference stays a reference and a key the converter would have to
rewrite (a pattern, a number) may not come from a provider.
See docs/dialects.md, "Converting a Confluent config".
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.connector import UNREAD_CLOCK
from lakesink.domain.config.lenses_conversion import (
    STATEMENT_SEPARATOR,
    Conversion,
    ConversionBuilder,
    given,
    kcql_name,
    kcql_properties,
    other_dialect_error,
    refuse_provided,
)
from lakesink.domain.dialects.confluent.convert_keys import left_out_reason
from lakesink.domain.dialects.confluent.convert_layout import partition_mapping
from lakesink.domain.dialects.confluent.convert_settings import (
    FORMATS,
    MAX_PADDING,
    compression,
    envelope_properties,
    flush_properties,
    record_handling,
)
from lakesink.domain.dialects.confluent.keys import USED_CLIENT_KEYS
from lakesink.domain.dialects.confluent.sink_config import CONFLUENT_S3_SINK, ConfluentSinkConfig
from lakesink.domain.formats import Format
from lakesink.domain.transforms.registry import build_chain

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
_HEADING = ("Converted from a Confluent S3 sink config by `lakesink config convert`.",)
_PARTITIONER_KEYS = (
    "partition.field.name",
    "partition.duration.ms",
    "path.format",
    "locale",
    "timezone",
    "timestamp.extractor",
    "timestamp.field",
)


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
    if not ConfluentSinkConfig.matches(resolved):
        raise other_dialect_error(raw, f"a Confluent S3 sink config (connector.class={CONFLUENT_S3_SINK})")
    config = ConfluentSinkConfig.from_properties(resolved, provided)
    refuse_provided(provided, _REWRITTEN)
    return _Converter(raw, config, provided).run()


class _Converter(ConversionBuilder):
    """Builds one conversion of a validated Confluent config."""

    def __init__(self, raw: Mapping[str, str], config: ConfluentSinkConfig, provided: frozenset[str]) -> None:
        super().__init__(raw, {"connector.class", "storage.class", "s3.credentials.provider.class"})
        self.config = config
        self.provided = provided

    def run(self) -> Conversion:
        raw, config = self.raw, self.config
        self.copy_connector(config.name)
        stored = self._kcql()
        self.out["connect.s3.aws.region"] = given(raw, "s3.region", config.region)
        self.copy("store.url", "connect.s3.custom.endpoint")
        self.out["connect.s3.path.style.access"] = given(raw, "s3.path.style.access.enabled", "true")
        self.handled.update({"s3.region", "s3.path.style.access.enabled"})
        self.copy_credentials(config.access_key is not None)
        self.out.update(self.take(compression(config, raw)))
        self.copy("s3.part.size", "connect.s3.multipart.part.size")
        self.copy("s3.part.retries", "connect.s3.http.max.retries")
        self.out.update(self.take(record_handling(config, raw)))
        self._file_names(stored)
        self.copy_passthrough(USED_CLIENT_KEYS)
        self.note_rest(left_out_reason)
        return self.conversion(_HEADING, config.hidden.scrub)

    # --- connect.s3.kcql ------------------------------------------------------------------------

    def _kcql(self) -> Format:
        config = self.config
        mapping = partition_mapping(config, wildcard_key=self._wildcard_key())
        for key, why in mapping.notes:
            self.note(key, why)
        self.handled.update(mapping.handled)
        properties = self.take(flush_properties(config))
        self._unread_partition_keys()
        properties.update(mapping.properties)
        properties.update(self.take(envelope_properties(config)))
        listed = kcql_properties(properties)
        stored = FORMATS[config.format]
        tail = f"PARTITIONBY {', '.join(mapping.specs)} STOREAS `{stored.value}` PROPERTIES({listed})"
        bucket = self.raw.get("s3.bucket.name", config.bucket)
        topics_dir = self.raw.get("topics.dir", config.layout.topics_dir)
        topics_dir = topics_dir if topics_dir.strip() else ""
        self.handled.update({"s3.bucket.name", "topics.dir", "directory.delim"})
        if mapping.specs[0] == "_topic":
            location = kcql_name(bucket) + (f":{kcql_name(topics_dir)}" if topics_dir else "")
            statements = [f"INSERT INTO {location} SELECT * FROM `*` {tail}"]
        else:
            statements = [
                f"INSERT INTO {kcql_name(bucket)}:"
                f"{kcql_name(f'{topics_dir}/{topic}' if topics_dir else topic)} "
                f"SELECT * FROM {kcql_name(topic)} {tail}"
                for topic in config.topics
            ]
        self.out["connect.s3.kcql"] = STATEMENT_SEPARATOR.join(statements)
        if config.layout.directory_delim != "/":
            self.note("directory.delim", "Lenses separates every directory of a key with '/'")
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
                self.note(key, f"not read by {name} (no effect in Confluent either)")

    def _file_names(self, stored: Format) -> None:
        config = self.config
        topic = config.topics[0] if config.topics and "topics" not in self.provided else "<topic>"
        f = config.layout.file_delim
        confluent = f"{topic}{f}0{f}{0:0{config.layout.zero_pad_width}d}{config.extension}"
        codec = self.out.get("connect.s3.compression.codec")
        extension = "gz" if stored is Format.JSON and codec == "GZIP" else stored.extension
        lenses = f"{topic}(0_{0:0{min(config.layout.zero_pad_width, MAX_PADDING)}d}).{extension}"
        self.note(
            "file.delim",
            f"Confluent's file names <topic>{f}<partition>{f}<start offset><extension> ({confluent}) cannot be "
            f"expressed in Lenses' naming: <topic>(<partition>_<last offset>).<extension> ({lenses})",
        )
