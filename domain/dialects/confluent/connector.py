"""A Confluent S3 sink config as the settings the sink runs on.

The sink's machinery (index, admission, Spark job, executor tasks) is driven by
:class:`~lakesink.domain.config.connector.ConnectorSettings`. A Confluent config becomes one
whose single statement takes every subscribed topic into ``s3.bucket.name`` and whose
``confluent`` part (:class:`~lakesink.domain.dialects.confluent.writing.ConfluentWriting`) decides keys,
files and rotation. The admission of the micro-batches follows Confluent's rules:

* a partition enters a batch once ``flush.size`` records wait (a full cycle at least);
* and, so that cycles cut short by ``rotate.interval.ms`` (record time) or completed by a few
  new records are written without waiting for ``flush.size`` more, once the interval has passed
  since it last entered one: ``rotate.schedule.interval.ms``, else ``rotate.interval.ms``, else
  a minute.

The index (``.indexes/<name>/…`` in the bucket) and exactly-once are lakesink's, as for every
sink; ``errors.tolerance=all`` skips records that cannot be written (error.policy NOOP), to the
dead-letter topic when ``errors.deadletterqueue.topic.name`` is set.
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
