"""An Aiven S3 sink config as the nearest Lenses-dialect config (``lakesink config convert``).

The config is validated first (as ``kcql explain`` validates it); the result is a config lakesink
runs plus one line per Aiven key not carried over and why. Values are printed as the file wrote
them, so a ``${file:...}`` reference stays a reference and a key the converter has to rewrite may
not come from a provider. See docs/dialects.md, "Converting an Aiven config".
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
    key_table_reason,
    other_dialect_error,
    refuse_provided,
)
from lakesink.domain.dialects.aiven.convert_naming import RUN_UNCHANGED, location
from lakesink.domain.dialects.aiven.convert_settings import (
    FORMATS,
    compression,
    envelope_properties,
    error_policy,
    flush_properties,
    format_notes,
)
from lakesink.domain.dialects.aiven.keys import DEFAULT_ONLY, LEGACY, NO_EFFECT
from lakesink.domain.dialects.aiven.sink_config import AIVEN_S3_SINK, AivenSinkConfig
from lakesink.domain.dialects.kafka_connect.config_def import int_setting
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.transforms.registry import build_chain

#: Keys whose value the converter rewrites (into KCQL or another form): never from a provider.
_REWRITTEN = frozenset(
    {
        "file.name.template",
        "aws.s3.prefix",
        "aws_s3_prefix",
        "format.output.type",
        "format.output.fields",
        "output_fields",
        "format.output.envelope",
        "format.output.fields.value.encoding",
        "file.compression.type",
        "output_compression",
        "avro.codec",
        "file.max.records",
        "offset.flush.interval.ms",
        "errors.tolerance",
    }
)
#: Lenses' smallest multipart part (``connect.s3.multipart.part.size``); Aiven accepts any size.
_MIN_PART_SIZE = 5 * 1024 * 1024
_LEGACY_NAMES = {name: legacy for legacy, name in LEGACY.items()}


def convert_aiven(
    raw: Mapping[str, str], resolved: Mapping[str, str], provided: frozenset[str] = frozenset()
) -> Conversion:
    """The nearest Lenses-dialect config for an Aiven S3 sink config.

    ``raw`` is the config as written (what is printed), ``resolved`` the same with its provider
    references resolved (what is validated and read), ``provided`` the keys that held a reference.

    Raises:
        ConfigError: not an Aiven S3 sink config, an invalid one (the Aiven dialect's validation),
            or a key the converter must rewrite comes from a config provider.
    """
    if not AivenSinkConfig.matches(resolved):
        raise other_dialect_error(raw, f"an Aiven S3 sink config (connector.class={AIVEN_S3_SINK})")
    config = AivenSinkConfig.from_properties(resolved, provided)
    refuse_provided(provided, _REWRITTEN)
    return _Converter(raw, resolved, config, provided).run()


class _Converter(ConversionBuilder):
    """Builds one conversion of a validated Aiven config."""

    def __init__(
        self,
        raw: Mapping[str, str],
        resolved: Mapping[str, str],
        config: AivenSinkConfig,
        provided: frozenset[str],
    ) -> None:
        super().__init__(raw, {"connector.class"})
        self.resolved = resolved
        self.config = config
        self.provided = provided

    def run(self) -> Conversion:
        raw, config = self.raw, self.config
        self.copy_connector(config.name)
        codec = self.take(compression(config, raw))
        heading = self._kcql(codec.get("connect.s3.compression.codec"))
        self.out["connect.s3.aws.region"] = given(raw, self._spelled("aws.s3.region"), config.region)
        self._endpoint()
        self.copy_credentials(config.access_key is not None)
        self.out.update(codec)
        self.copy("aws.s3.backoff.max.retries", "connect.s3.http.max.retries")
        self._part_size()
        self.out.update(self.take(error_policy(raw)))
        self.copy_passthrough({"security.protocol"})
        self.note_rest(_left_out_reason)
        return self.conversion(heading, config.hidden.scrub)

    def _spelled(self, key: str) -> str:
        """``key``, or Aiven's legacy spelling when only that one is written (both accounted for)."""
        legacy = _LEGACY_NAMES[key]
        self.handled.update({key, legacy})
        if key not in self.raw and legacy in self.raw:
            return legacy
        if key in self.raw and legacy in self.raw:
            self.note(legacy, f"overridden by {key} (as in Aiven)")
        return key

    def _endpoint(self) -> None:
        key = self._spelled("aws.s3.endpoint")
        if self.config.endpoint is None:
            return
        # Aiven adds https:// to an endpoint without scheme; a provided value is printed as written.
        written = self.raw[key] if key in self.provided else self.config.endpoint
        self.out["connect.s3.custom.endpoint"] = written
        self.out["connect.s3.path.style.access"] = "true"  # what Aiven does with an endpoint

    def _part_size(self) -> None:
        key = "aws.s3.part.size.bytes"
        if key not in self.raw:
            return
        size = int_setting(self.resolved, key, _MIN_PART_SIZE)
        if key in self.provided or size >= _MIN_PART_SIZE:
            self.copy(key, "connect.s3.multipart.part.size")
        else:
            self.note(
                key, "below Lenses' smallest multipart part (5 MiB): lakesink's default part size is used"
            )

    # --- connect.s3.kcql ------------------------------------------------------------------------

    def _kcql(self, codec: str | None) -> tuple[str, ...]:
        """The statements, and the heading lines (what must be seen before running the config)."""
        config, raw = self.config, self.raw
        stored = FORMATS[config.format]
        self.take(format_notes(config))
        properties = self.take(flush_properties(config, raw))
        properties.update(self.take(envelope_properties(config, raw)))
        place = location(config, raw, _extension(stored, codec))
        self.take(place.piece)
        listed = kcql_properties(properties)
        tail = f"STOREAS `{stored.value}` PROPERTIES({listed})"
        bucket = kcql_name(raw.get(self._spelled("aws.s3.bucket.name"), config.bucket))
        target = f"{bucket}:{kcql_name(place.prefix)}" if place.prefix else bucket
        if self._wildcard():
            statements = [f"INSERT INTO {target} SELECT * FROM `*` {tail}"]
        else:
            statements = [
                f"INSERT INTO {target} SELECT * FROM {kcql_name(topic)} {tail}" for topic in config.topics
            ]
        self.out["connect.s3.kcql"] = STATEMENT_SEPARATOR.join(statements)
        heading = ["Converted from an Aiven S3 sink config by `lakesink config convert`.", *place.heading]
        if stored is Format.CSV:
            heading.append(
                "NOTE: Lenses' CSV is not Aiven's csv: only the value's columns, quoted, and no Base64 cells "
                "(Aiven Base64-encodes the key, the headers and, by default, the value; see format.output.type)."
            )
        heading.append(f"To keep Aiven's object keys and file contents: {RUN_UNCHANGED}.")
        return tuple(heading)

    def _wildcard(self) -> bool:
        """One ``*`` statement: a pattern, a provided topic list, or transforms that route records."""
        return (
            self.config.topics_regex is not None
            or "topics" in self.provided
            or bool(build_chain(self.config.transforms, UNREAD_CLOCK).routes)
        )


def _extension(stored: Format, codec: str | None) -> str:
    """The extension of the Lenses files: a JSON file takes its codec's, every other its format's."""
    if stored is Format.JSON and codec is not None:
        return CompressionCodec(codec).extension or stored.extension
    return stored.extension


def _left_out_reason(key: str) -> str:
    """Why an Aiven key the conversion did not write or note otherwise is left out (one line)."""
    return key_table_reason(key, "Aiven", NO_EFFECT, DEFAULT_ONLY) or "no Lenses equivalent"
