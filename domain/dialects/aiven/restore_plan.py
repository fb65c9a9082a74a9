"""An Aiven S3 sink config (``io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector``) as a :class:`RestorePlan`.

The config that backed topics up restores them, validated as the sink validates it; restore-only
keys are ``producer.*``. Refused where the objects cannot say what was written: a template without
``{{topic}}`` and ``{{partition}}``, no ``value`` among the fields, csv with a raw value.
See docs/restore.md, "Restoring what an Aiven S3 sink wrote".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.dialects.aiven.naming import AivenFormat
from lakesink.domain.dialects.aiven.restore_layout import AivenSinkLayout, object_names
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot
from lakesink.domain.restore.sink_restore import sink_restore_plan, sink_settings
from lakesink.domain.restore.topic_selection import checked_regex

_ENCODING = "format.output.fields.value.encoding"
#: The nearest restore format (what a Format-keyed reader would take it for; the Aiven reader reads it).
_FORMATS = {
    AivenFormat.CSV: Format.CSV,
    AivenFormat.JSON: Format.JSON,
    AivenFormat.JSONL: Format.JSON,
    AivenFormat.AVRO: Format.AVRO,
    AivenFormat.PARQUET: Format.PARQUET,
}


def aiven_sink_restore_plan(
    props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
) -> RestorePlan:
    """Validate an Aiven S3 sink config (plus ``producer.*``) and build the plan restoring what it wrote.

    ``provided`` names the keys a config provider filled (never shown, secrets among the producer settings).

    Raises:
        ConfigError: anything the sink config's validation refuses, an invalid ``topics.regex``, or
            objects that cannot be read back (a template without ``{{topic}}`` and
            ``{{partition}}``, no ``value`` field, csv with a raw value).
    """
    config = AivenSinkConfig.from_properties(sink_settings(props), provided)
    output = config.output
    _check_readable(config)
    list_prefix, names = object_names(config.naming, config.topics)
    layout = AivenSinkLayout(
        names=names,
        output=output,
        topics=config.topics,
        topics_regex=checked_regex(config.topics_regex),
        key_converter=config.key_converter.class_name,
        value_converter=config.value_converter.class_name,
    )
    root = RestoreRoot(
        number=0,
        bucket=config.bucket,
        list_prefix=list_prefix,
        topic=None,
        format=_FORMATS[output.format],
        header_converter=config.header_converter,
        layout=layout,
    )
    return sink_restore_plan(
        props,
        root,
        config,
        tolerate_errors=config.skips_poison,
        parallelism=parallelism,
    )


def _check_readable(config: AivenSinkConfig) -> None:
    """Refuse outputs whose records cannot be read back as they were.

    Raises:
        ConfigError: no ``value`` field (every record would come back a tombstone); csv with the raw
            value (``,`` and ``\\n`` inside a value cannot be told from the separators).
    """
    fields = {item.name: item for item in config.output_fields}
    if "value" not in fields:
        raise ConfigError(
            "format.output.fields has no value: the files hold no record values, so the restore would "
            "produce only null values. Restore from a config whose fields include value."
        )
    if config.format is AivenFormat.CSV and fields["value"].encoding == "none":
        raise ConfigError(
            f"{_ENCODING}=none with format.output.type=csv: raw values may hold ',' or a newline, so the "
            "restore cannot split the file back into records. Only files written with base64 can be restored."
        )
