"""A Confluent S3 sink config as the settings the sink runs on.

One statement takes every subscribed topic into ``s3.bucket.name``; its ``confluent`` part
(:class:`~lakesink.domain.dialects.confluent.writing.ConfluentWriting`) decides keys, files and
rotation. A partition enters a batch once ``flush.size`` records wait, or once
``rotate.schedule.interval.ms`` (else ``rotate.interval.ms``, else a minute) passed; the index and
exactly-once are lakesink's. See docs/dialects.md, "Running a Confluent config".
"""

from __future__ import annotations

import math

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.dialects.confluent.writing import NullValues
from lakesink.domain.dialects.kafka_connect.connector_settings import dialect_settings
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec

_MINUTE_MS = 60_000


def connector_settings(config: ConfluentSinkConfig) -> ConnectorSettings:
    """The settings a sink run of ``config`` is built from (its ``confluent`` part set).

    Raises:
        ConfigError: ``parquet.codec=lzo``, which lakesink's Parquet writer (pyarrow) cannot write.
    """
    writing = config.writing
    if CompressionCodec.LZO in {
        files.codec for files in (writing.values, writing.keys, writing.headers) if files
    }:
        raise ConfigError(
            "parquet.codec=lzo cannot be written by lakesink's Parquet writer (pyarrow); "
            "use snappy, gzip, zstd, lz4, brotli or none."
        )
    flush_ms = next(
        (ms for ms in (config.rotate_schedule_interval_ms, config.rotate_interval_ms) if ms > 0), _MINUTE_MS
    )
    interval_s = max(1, math.ceil(flush_ms / 1000))
    return dialect_settings(
        config,
        f"'flush.count'={config.flush_size}, 'flush.interval'={interval_s}",
        skip_null_values=config.writing.null_values is NullValues.IGNORE,
        writing=writing,
    )
