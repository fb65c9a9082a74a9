"""A Confluent S3 sink config (``io.confluent.connect.s3.S3SinkConnector``) as a :class:`RestorePlan`.

The config that backed topics up restores them: it says where the objects are, how they are
written and which topics; it is validated as the sink validates it. Restore-only keys are
``producer.*``; records go back to the topic they came from, and the rest of the sink config has
no effect. See docs/restore.md, "Config forms".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.dialects.confluent.naming import COMPRESSION_TYPE
from lakesink.domain.dialects.confluent.restore_keys import ConfluentLayout, StoredViewFile
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.dialects.confluent.writing import FileFormat
from lakesink.domain.dialects.kafka_connect.config_def import string_setting
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot
from lakesink.domain.restore.sink_restore import sink_restore_plan, sink_settings
from lakesink.domain.restore.topic_selection import checked_regex

SEPARATOR = "format.bytearray.separator"


def confluent_restore_plan(
    props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
) -> RestorePlan:
    """Validate a Confluent S3 sink config (plus ``producer.*``) and build the plan restoring what it wrote.

    ``provided`` names the keys a config provider filled (never shown, secrets among the producer settings).

    Raises:
        ConfigError: anything the sink config's validation refuses, no ``bootstrap.servers``, an
            invalid ``topics.regex``, or an empty ``format.bytearray.separator`` with ByteArrayFormat.
    """
    config = ConfluentSinkConfig.from_properties(sink_settings(props), provided)
    compression = "gzip" if string_setting(props, COMPRESSION_TYPE, "none") == "gzip" else None
    layout = config.layout
    confluent = ConfluentLayout(
        topics_dir=layout.topics_dir,
        directory_delim=layout.directory_delim,
        file_delim=layout.file_delim,
        zero_pad_width=layout.zero_pad_width,
        extension=config.extension,
        topics=config.topics,
        topics_regex=checked_regex(config.topics_regex),
        keys=_view_file(config.writing.keys, compression),
        headers=_view_file(config.writing.headers, compression),
    )
    root = RestoreRoot(
        number=0,
        bucket=config.bucket,
        list_prefix=confluent.list_prefix,
        topic=None,
        format=config.writing.values.format,
        compression=compression,
        header_converter=config.header_converter,
        layout=confluent,
        record_separator=_separator(config),
    )
    return sink_restore_plan(
        props,
        root,
        config,
        tolerate_errors=config.error_handling.get("errors.tolerance", "none").strip().lower() == "all",
        parallelism=parallelism,
    )


def _view_file(files: FileFormat | None, compression: str | None) -> StoredViewFile | None:
    """A stored keys/headers view as the reader needs it (the sink's gzip applies to it too)."""
    if files is None:
        return None
    return StoredViewFile(files.format, files.extension, compression)


def _separator(config: ConfluentSinkConfig) -> bytes | None:
    """``format.bytearray.separator`` as the sink writes it (untrimmed; default a newline).

    Raises:
        ConfigError: it is empty while values or keys are ByteArrayFormat: records cannot be told apart.
    """
    writing = config.writing
    formats = (writing.values.format, writing.keys.format if writing.keys else None)
    if Format.BYTES not in formats:
        return None
    if not writing.values.separator:
        raise ConfigError(
            f"{SEPARATOR} is empty: the restore cannot tell the records of a ByteArrayFormat object apart."
        )
    return writing.values.separator
