"""lakesink inside a user's Spark job: the Kafka source and the exactly-once sink as functions.

``lakesink.spark`` re-exports this module. :func:`register` adds the ``lakesink-kafka`` source;
:func:`write_stream` (a streaming query) and :func:`write` (a static DataFrame, once) run the
command's use case, :class:`~.sink_run.SinkRun`, with the settings ``lakesink sink`` takes: the
store's index says what is durable, so a record is stored once across retries, restarts and crashes.
See docs/library.md, "Exactly once, in your job" and "The command and the library share the batch step".
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lakesink.adapters.spark.record_frames import check_writable, is_range_frame
from lakesink.adapters.spark.session import register_data_sources
from lakesink.adapters.spark.sink_job import SparkSink
from lakesink.adapters.spark.worker_check import check_workers
from lakesink.application.bootstrap.config_file import load_config, resolve_locally
from lakesink.application.bootstrap.sink import served_metrics, sink_run
from lakesink.application.sink_metrics import NO_METRICS
from lakesink.application.sink_run import BatchReport, SinkRun
from lakesink.application.sink_settings import sink_settings
from lakesink.application.waiting import waiting_out
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql import parse as parse_kcql

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery

    from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics

_KCQL_KEY = re.compile(r"connect\.[a-z0-9]+\.kcql")

Config = Mapping[str, Any] | str | os.PathLike[str]
"""Connector settings: a mapping (values as strings, numbers or booleans) or a config file's path."""


def register(spark: SparkSession) -> None:
    """Make ``spark.readStream.format("lakesink-kafka")`` and ``spark.read.format("lakesink-kafka")``
    available in ``spark`` (registering again is harmless), once its Python workers proved they import
    lakesink (:func:`~lakesink.adapters.spark.worker_check.check_workers`, once per Spark context).

    Raises:
        ConfigError: the workers cannot import lakesink; the line names their interpreter.
    """
    check_workers(spark)
    register_data_sources(spark)


def write_stream(
    df: DataFrame,
    config: Config,
    *,
    checkpoint_location: str | None = None,
    trigger: Mapping[str, Any] | None = None,
    query_name: str | None = None,
) -> StreamingQuery:
    """Start a streaming query that writes ``df`` to the object store, exactly once.

    ``df`` is a streaming DataFrame that kept Kafka's ``topic``, ``partition`` and ``offset``
    columns (and may keep ``key``, ``timestamp``, ``headers``); its other columns are the record's
    value (docs/library.md, "What a row becomes"). The buckets are checked before the query starts
    and, with ``bootstrap.servers``, the index of every subscribed partition is opened (its lock
    claimed; without, a partition's when a batch first holds it); a store failing transiently is
    waited out.

    Args:
        df: the records, from ``lakesink-kafka``, Spark's Kafka source or any streaming source.
        config: the connector settings of ``lakesink sink`` (KCQL, store, flush, format...).
            ``bootstrap.servers`` is needed only for at-least-once mode, a dead-letter topic or a
            DataFrame of offset ranges.
        checkpoint_location: the query's checkpoint (default: the command's, from the connector
            name). Without it the source starts where its options say: from ``earliest`` a lost
            checkpoint costs re-reading, no duplicate; from ``latest`` (Spark's streaming default)
            the records in between are never written.
        trigger: :meth:`DataStreamWriter.trigger`'s keywords, e.g. ``{"processingTime": "5 seconds"}``
            or ``{"availableNow": True}``; None: Spark's default.
        query_name: the query's name (default ``lakesink-sink-<name>``).

    Raises:
        ConfigError: invalid settings, or a DataFrame the sink cannot write (naming what is missing).
        LakesinkError: the store refused the start-up (missing bucket, bad credentials, fenced).
    """
    run, compute, _served = _prepared(df, config, checkpoint_location=checkpoint_location, once=False)
    name = query_name or f"lakesink-sink-{run.settings.name}"
    return compute.start_stream(df, run.write_batch, name=name, trigger=trigger)


def write(df: DataFrame, config: Config) -> BatchReport:
    """Write a static DataFrame's records once, exactly once.

    Records at or below a partition's committed offset are skipped, whether an earlier write stored
    them or not: the index keeps one high-water mark per partition, so write a partition's offsets
    in order (a later write of lower offsets, or a filter widened afterwards, writes nothing for
    them). Takes the same DataFrames and settings as :func:`write_stream`; returns what the batch wrote.

    Raises:
        LakesinkError: as :func:`write_stream`, or the batch failed (``error.policy``).
    """
    run, compute, served = _prepared(df, config, checkpoint_location=None, once=True)
    try:
        compute.write_frame(df, 0, run.write_batch)
    finally:
        run.close()
        if served is not None:
            served.close()
    return run.reports[-1]


def _prepared(
    df: DataFrame, config: Config, *, checkpoint_location: str | None, once: bool
) -> tuple[SinkRun, SparkSink, PrometheusSinkMetrics | None]:
    """The run that writes ``df``, its index opened, its Spark compute (which takes DataFrames), and
    the metrics it serves when ``connect.<p>.metrics.port`` is set (a stream's: while the process runs).

    Raises:
        ConfigError: the settings or the DataFrame cannot be written, checked before the store is touched, or
            the session's Python workers cannot import lakesink.
    """
    settings = library_settings(config)
    check_writable(df, settings, streaming=not once)
    check_workers(df.sparkSession)
    served = served_metrics(settings)
    run = sink_run(
        settings, df.sparkSession, checkpoint_dir=checkpoint_location, once=once, metrics=served or NO_METRICS
    )
    compute = run.compute
    assert isinstance(compute, SparkSink), "compose.sink_run runs on Spark"
    if run.holds_records and not is_range_frame(df):
        raise ConfigError(
            "This Confluent config keeps the records of an unfinished file (flush.size, rotate.interval.ms) "
            "for the next batch to read again, which a DataFrame's next batch cannot do. Set "
            "rotate.schedule.interval.ms (files then also close at the end of every batch), or run the "
            "config with the lakesink sink command."
        )
    waiting_out("Start-up", run.prepare)
    return run, compute, served


def library_settings(config: Config) -> ConnectorSettings:
    """The connector settings of a library call, validated as the command validates a config file.

    A mapping's values may hold config provider references (``${env:...}``, ``${file:...}``) as a
    file's do.

    Raises:
        ConfigError: invalid settings, or one that needs Kafka without ``bootstrap.servers``.
    """
    if isinstance(config, Mapping):
        values = {str(key): _text(value) for key, value in config.items()}
        resolved = resolve_locally(values)
    else:
        resolved = load_config(config)
    settings = sink_settings(replace(resolved, values=_with_topics(resolved.values)))
    if not settings.bootstrap_servers:
        needs = (
            "at-least-once mode (it commits Kafka's consumer group)" if not settings.exactly_once
            else "a dead-letter topic" if settings.error_reporting.dlq_topic is not None
            else None
        )
        if needs:
            raise ConfigError(f"bootstrap.servers is required for {needs}: the Kafka cluster to use.")
    return settings


def _with_topics(values: dict[str, str]) -> dict[str, str]:
    """``values`` with ``topics`` set to the topics its KCQL reads when it names neither ``topics``
    nor ``topics.regex``: the DataFrame, not a subscription, says what is read."""
    if "topics" in values or "topics.regex" in values:
        return values
    statements = [
        statement for key, text in values.items() if _KCQL_KEY.fullmatch(key) for statement in parse_kcql(text)
    ]
    topics = [statement.topic for statement in statements if statement.topic is not None]
    if not statements or len(topics) < len(statements):  # none, or `FROM *`: the settings' own error says what to set
        return values
    return {**values, "topics": ",".join(dict.fromkeys(topics))}


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
