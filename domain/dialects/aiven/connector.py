"""An Aiven S3 sink config as the settings the sink runs on.

One statement takes every subscribed topic into ``aws.s3.bucket.name``; its ``aiven`` part
(:class:`~lakesink.domain.dialects.aiven.writing.AivenWriting`) names, groups and writes the files.
Aiven writes all it buffered every ``offset.flush.interval.ms`` (a minute by default), so batches
take each partition's waiting records at that period, one range being one Aiven flush; the index
and exactly-once are lakesink's. See docs/dialects.md, "Running an Aiven config".
"""

from __future__ import annotations

import math

from lakesink.domain.config.connector import UNREAD_CLOCK, ConnectorSettings
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.dialects.kafka_connect.connector_settings import dialect_settings
from lakesink.domain.errors import ConfigError
from lakesink.domain.transforms.registry import build_chain


def connector_settings(config: AivenSinkConfig) -> ConnectorSettings:
    """The settings a sink run of ``config`` is built from (its ``aiven`` part set).

    Raises:
        ConfigError: a transform routes records to other topics under a topic-partition grouping.
            lakesink writes each source topic-partition's files apart (Aiven's task shares one
            head per routed topic-partition), so two source partitions routed to one would name
            files alike (``C-0-0`` from both ``A-0`` and ``B-0``) and one range's records would be
            lost or the sink stuck.
    """
    if not config.naming.grouping.by_key and build_chain(config.transforms, UNREAD_CLOCK).routes:
        raise ConfigError(
            f"transforms: a transform changes records' topics, which the file.name.template "
            f"{config.naming.template!r} groups by topic-partition: records of different source partitions "
            "would be filed under the same names. Route topics with a {{key}} grouping, or drop the router."
        )
    interval_s = max(1, math.ceil(config.flush_interval_ms / 1000))
    return dialect_settings(config, f"'flush.interval'={interval_s}", disable_flush_count=True, writing=config.writing)
