"""A Confluent S3 sink config as the settings the sink runs on.

The sink's machinery (index, admission, Spark job, executor tasks) is driven by
:class:`~lakesink.domain.config.connector.ConnectorSettings`. A Confluent config becomes one
whose single statement takes every subscribed topic into ``s3.bucket.name`` and whose
``confluent`` part (:class:`~lakesink.domain.confluent_writing.ConfluentWriting`) decides keys,
files and rotation. The admission of the micro-batches follows Confluent's rules:

* a partition enters a batch once ``flush.size`` records wait (a full cycle at least);
* and, so that cycles cut short by ``rotate.interval.ms`` (record time) or completed by a few
  new records are written without waiting for ``flush.size`` more, once the interval has passed
  since it last entered one: ``rotate.schedule.interval.ms``, else ``rotate.interval.ms``, else
  a minute.

The index (``.indexes/<name>/…`` in the bucket) and exactly-once are lakesink's, as for every
sink; ``errors.tolerance=all`` skips records that cannot be written (error.policy NOOP; there is
no dead-letter queue yet).
"""

from __future__ import annotations

import math

from lakesink.domain.config.confluent_sink import ConfluentSinkConfig
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.confluent_writing import NullValues
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import CompressionCodec
from lakesink.domain.kcql import parse

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
    kcql = (
        f"INSERT INTO `{config.bucket}` SELECT * FROM `*` STOREAS `JSON` "
        f"PROPERTIES('flush.count'={config.flush_size}, 'flush.interval'={interval_s})"
    )
    return ConnectorSettings(
        role="sink",
        name=config.name,
        backend="s3",
        prefix="connect.s3",
        storage=config.storage,
        kcql=kcql,
        statements=tuple(parse(kcql)),
        topics=config.topics,
        topics_regex=config.topics_regex,
        bootstrap_servers=config.bootstrap_servers,
        key_converter=config.key_converter,
        value_converter=config.value_converter,
        header_converter=config.header_converter,
        kafka_client=config.kafka_client,
        error_policy=ErrorPolicy.NOOP if config.skips_poison else ErrorPolicy.THROW,
        range_split_offsets=0,
        skip_null_values=config.writing.null_values is NullValues.IGNORE,
        transforms=config.transforms,
        confluent=writing,
        hidden=config.hidden,
    )
