"""An Aiven S3 sink config as the settings the sink runs on.

The config's single statement takes every subscribed topic into ``aws.s3.bucket.name``; its
``aiven`` part (:class:`~lakesink.domain.aiven_writing.AivenWriting`) names, groups and writes
the files. Aiven's sink writes all it buffered at every Kafka Connect flush
(``offset.flush.interval.ms``, a minute by default, no record count): lakesink's micro-batches
take each partition's waiting records at the same period, and one range of a topic-partition is
one Aiven flush (``--once`` takes everything there is). The index (``.indexes/<name>/…`` in the
bucket) and exactly-once are lakesink's, as for every sink; ``errors.tolerance=all`` skips
records that cannot be written (there is no dead-letter queue yet).
"""

from __future__ import annotations

import math

from lakesink.domain.config.aiven_sink import AivenSinkConfig
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.dialect_settings import dialect_settings


def connector_settings(config: AivenSinkConfig) -> ConnectorSettings:
    """The settings a sink run of ``config`` is built from (its ``aiven`` part set)."""
    interval_s = max(1, math.ceil(config.flush_interval_ms / 1000))
    return dialect_settings(config, f"'flush.interval'={interval_s}", disable_flush_count=True, aiven=config.writing)
