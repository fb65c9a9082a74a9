"""A user's DataFrame as the Kafka records one sink batch writes: checked, shaped, cut into ranges.

The DataFrame must keep ``topic``, ``partition`` and ``offset``: they decide the keys and what the
index commits. Kafka's columns only: the converters decode them as the command's tasks do; any
other column: the value is the user's data, as schemaless JSON. A batch's ranges come from one
aggregate over the persisted frame. See docs/library.md, "What a row becomes".
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    IntegralType,
    MapType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from lakesink.adapters.kafka.converters import JSON
from lakesink.adapters.kafka.source_schemas import HEADERS_TYPE
from lakesink.adapters.spark.sink_task import run_task
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_results import RESULT_DDL, result_of
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.offset_range import OffsetRange

COORDINATES = ("topic", "partition", "offset")
"""The columns every DataFrame the library writes must keep."""

KAFKA_COLUMNS = frozenset({"key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers"})
"""The columns of Spark's Kafka source: all other columns are the user's data."""

RANGE_COLUMNS = frozenset({"topic", "partition", "start", "end"})
"""The columns of the ``lakesink-kafka`` source in ``rangesOnly`` mode."""

JSON_VALUES = ConverterSettings(JSON, {"schemas.enable": "false"})
"""How the values a frame made from the user's columns are decoded."""

_STRUCTURED = (StructType, MapType, ArrayType)


def is_range_frame(df: DataFrame) -> bool:
    """Whether ``df`` holds offset ranges (the source's ``rangesOnly`` rows), not records."""
    return set(df.columns) == RANGE_COLUMNS


@dataclass(frozen=True)
class RecordFrame:
    """One batch's records in the columns the sink's tasks read, persisted while the batch runs.

    Attributes:
        frame: ``key, value, topic, partition, offset, timestamp, headers`` (Spark's Kafka types).
        structured: whether the values are JSON made from the user's columns (:data:`JSON_VALUES`).
    """

    frame: DataFrame
    structured: bool

    @classmethod
    def of(cls, df: DataFrame) -> RecordFrame:
        """The records of ``df``, persisted (the batch reads them twice: ranges, then writing).

        Raises:
            ConfigError: as :func:`check_writable`.
        """
        frame, structured = _shaped(df)
        return cls(frame.persist(StorageLevel.MEMORY_AND_DISK), structured)

    def release(self) -> None:
        """Drop the persisted records (the batch is over)."""
        self.frame.unpersist()

    def ranges(self) -> list[OffsetRange]:
        """Per topic-partition, ``[first offset, last offset + 1)`` of the batch's records."""
        rows = (
            self.frame.groupBy("topic", "partition")
            .agg(F.min("offset"), F.max("offset"), F.count(F.when(F.col("offset").isNull(), 1)))
            .collect()
        )
        if any(None in row[:3] or row[4] for row in rows):
            raise ConfigError(
                "The DataFrame has rows whose topic, partition or offset is null: every row must carry the "
                "coordinates of the Kafka record it comes from."
            )
        return [OffsetRange(topic, partition, low, high + 1) for topic, partition, low, high, _ in sorted(rows)]

    def write(self, spec: SinkTaskSpec, ranges: Sequence[OffsetRange]) -> list[RangeResult]:
        """Write the records of ``ranges``, one task each, in offset order; one result per range.

        The ranges are those of :meth:`ranges`, except where a pending plan of an earlier run cut
        a partition's range in several: those are written in rounds, each round at most one range
        of a partition (a task keeps one range per partition), its records selected by offset.

        Each range's records go to one task in offset order (``repartition`` by topic-partition, sorted
        within). Two rows with the same offset (a join that matched several rows) would be two records
        under one Kafka coordinate: the task refuses them.
        """
        if self.structured:
            spec = replace(spec, value_converter=JSON_VALUES)
        rounds: list[list[OffsetRange]] = []
        seen: dict[tuple[str, int], int] = {}
        for offset_range in ranges:
            where = (offset_range.topic, offset_range.partition)
            number = seen[where] = seen.get(where, -1) + 1
            if number == len(rounds):
                rounds.append([])
            rounds[number].append(offset_range)
        results: list[RangeResult] = []
        for chosen in rounds:
            frame = self.frame if len(rounds) == 1 else self.frame.filter(_within(chosen))
            tasks = (
                frame.repartition(len(chosen), "topic", "partition")
                .sortWithinPartitions("topic", "partition", "offset")
                .mapInArrow(functools.partial(run_record_task, spec), RESULT_DDL)
            )
            results += [result_of(row.asDict(recursive=True)) for row in tasks.collect()]
        return results


def check_writable(df: DataFrame, settings: ConnectorSettings, *, streaming: bool) -> None:
    """Refuse, before anything runs, a DataFrame the sink cannot write with ``settings``.

    Raises:
        ConfigError: a static DataFrame for a stream or the reverse, offset ranges without
            ``bootstrap.servers`` to read them with, a coordinate column missing, or a Kafka column
            with a type that cannot be written (naming it and the type expected).
    """
    if streaming and not df.isStreaming:
        raise ConfigError("write_stream takes a streaming DataFrame (spark.readStream); write a static one with write.")
    if not streaming and df.isStreaming:
        raise ConfigError("write takes a static DataFrame; start a streaming one with write_stream.")
    if not is_range_frame(df):
        _shaped(df)
    elif not settings.bootstrap_servers:
        raise ConfigError(
            "A DataFrame of offset ranges (topic, partition, start, end) is read from Kafka by the sink's tasks: "
            "set bootstrap.servers in the config."
        )


def _shaped(df: DataFrame) -> tuple[DataFrame, bool]:
    """``df`` in the tasks' columns, and whether its values are JSON made from the user's columns."""
    types = {field.name: field.dataType for field in df.schema.fields}
    missing = [name for name in COORDINATES if name not in types]
    if missing:
        raise ConfigError(
            f"The DataFrame lakesink writes has no {', '.join(missing)} column (it has {', '.join(df.columns)}): "
            "keep the Kafka columns topic, partition and offset through your transformation; they name the "
            "objects and are what the sink commits, exactly once."
        )
    wrong = [
        f"{name} is {types[name].simpleString()}"
        for name, kinds in (("topic", StringType), ("partition", IntegralType), ("offset", IntegralType))
        if not isinstance(types[name], kinds)
    ]
    if wrong:
        raise ConfigError(
            f"The DataFrame's Kafka coordinates have other types than Spark's Kafka source gives ({'; '.join(wrong)}): "
            "topic must be a string, partition and offset integers. Keep the source's columns as they are."
        )
    value, structured = _value(df, types)
    frame = df.select(
        _as_bytes(types, "key").alias("key"),
        value.alias("value"),
        F.col("topic").cast("string").alias("topic"),
        F.col("partition").cast("int").alias("partition"),
        F.col("offset").cast("long").alias("offset"),
        _timestamp(types).alias("timestamp"),
        _headers(types).alias("headers"),
    )
    return frame, structured


def run_record_task(spec: SinkTaskSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: the sink's task over rows sorted by topic, partition and offset."""
    return run_task(spec, _one_row_per_offset(batches))


def _one_row_per_offset(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The batches, checked to hold each topic-partition offset once.

    Raises:
        ConfigError: two rows share an offset (naming it).
    """
    previous: tuple[str, int, int] | None = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        topics, partitions, offsets = (batch.column(name) for name in ("topic", "partition", "offset"))
        first = (topics[0].as_py(), partitions[0].as_py(), offsets[0].as_py())
        repeated = first == previous
        if not repeated and batch.num_rows > 1:
            same = pc.and_(
                pc.and_(pc.equal(topics[1:], topics[:-1]), pc.equal(partitions[1:], partitions[:-1])),
                pc.equal(offsets[1:], offsets[:-1]),
            )
            at = pc.index(same, True).as_py()
            if at >= 0:
                first, repeated = (topics[at].as_py(), partitions[at].as_py(), offsets[at].as_py()), True
        if repeated:
            topic, partition, offset = first
            raise ConfigError(
                f"The DataFrame holds several rows for the Kafka record {topic}-{partition}@{offset}: lakesink "
                "writes one row per record (object keys and the exactly-once commit are per offset). Make your "
                "transformation keep one row per record (aggregate what a join matched, e.g. with collect_list)."
            )
        last = batch.num_rows - 1
        previous = (topics[last].as_py(), partitions[last].as_py(), offsets[last].as_py())
        yield batch


def _within(ranges: Sequence[OffsetRange]) -> Column:
    """Rows inside any of ``ranges``."""
    return functools.reduce(
        operator.or_,
        (
            (F.col("topic") == r.topic)
            & (F.col("partition") == r.partition)
            & (F.col("offset") >= r.start)
            & (F.col("offset") < r.end)
            for r in ranges
        ),
    )


def _value(df: DataFrame, types: dict[str, DataType]) -> tuple[Column, bool]:
    """The value column as bytes, and whether it is JSON made from the user's columns."""
    own = [name for name in df.columns if name not in KAFKA_COLUMNS]
    kind = types.get("value")
    if not own and isinstance(kind, BinaryType | StringType):
        return F.col("value").cast("binary"), False
    if not own and isinstance(kind, _STRUCTURED):
        return F.to_json(F.col("value")).cast("binary"), True
    if not own and kind is not None:  # a lone number, date...: the one field of the user's data
        return F.to_json(F.struct(F.col("value"))).cast("binary"), True
    if not own:
        raise ConfigError(
            "The DataFrame lakesink writes has neither a value column nor columns of its own: nothing to write."
        )
    parts = [*own, "value"] if kind is not None else own
    return F.to_json(F.struct(*[F.col(name) for name in parts])).cast("binary"), True


def _as_bytes(types: dict[str, DataType], name: str) -> Column:
    kind = types.get(name)
    if kind is None:
        return F.lit(None).cast("binary")
    if isinstance(kind, BinaryType | StringType):
        return F.col(name).cast("binary")
    if isinstance(kind, _STRUCTURED):
        return F.to_json(F.col(name)).cast("binary")
    return F.col(name).cast("string").cast("binary")


def _timestamp(types: dict[str, DataType]) -> Column:
    kind = types.get("timestamp")
    if kind is None:
        return F.lit(None).cast("timestamp")
    if not isinstance(kind, TimestampType | TimestampNTZType):
        raise ConfigError(
            f"The DataFrame's timestamp column is {kind.simpleString()}: lakesink reads it as the record's "
            "timestamp, which must be a timestamp (as Spark's Kafka source gives it). Rename or cast it."
        )
    return F.col("timestamp").cast("timestamp")


def _headers(types: dict[str, DataType]) -> Column:
    kind = types.get("headers")
    if kind is None:
        return F.lit(None).cast(HEADERS_TYPE)
    if kind.simpleString() != HEADERS_TYPE.simpleString():
        raise ConfigError(
            f"The DataFrame's headers column is {kind.simpleString()}, not Spark's Kafka headers type "
            f"{HEADERS_TYPE.simpleString()}. Rename it, or shape it as key/value pairs."
        )
    return F.col("headers")
