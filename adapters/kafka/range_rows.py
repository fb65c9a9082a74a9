"""The ``rangesOnly`` mode of the ``lakesink-kafka`` source: offset ranges as rows, read later.

A data source's batches go to the JVM and a ``mapInArrow`` gets them back: every record crosses two
Python processes twice. With ``rangesOnly=true`` the source yields one row per planned range
(:data:`~lakesink.adapters.kafka.source_schemas.RANGES_SCHEMA`), planned exactly as before, and the
consumer reads each with :class:`RangeReader`, built as the record-carrying source builds its consumer.
See docs/kafka.md, "Ranges only".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

import pyarrow as pa

from lakesink.adapters.kafka.client_config import consumer_config
from lakesink.adapters.kafka.partition_reader import read_range
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.config.secret import Secret
from lakesink.domain.offset_range import OffsetRange

_ARROW_SCHEMA = pa.schema(
    [("topic", pa.string()), ("partition", pa.int32()), ("start", pa.int64()), ("end", pa.int64())]
)


def range_batch(offset_range: OffsetRange) -> pa.RecordBatch:
    """The one-row batch the source yields for ``offset_range`` in ``rangesOnly`` mode."""
    return pa.RecordBatch.from_pydict(
        {
            "topic": [offset_range.topic],
            "partition": [offset_range.partition],
            "start": [offset_range.start],
            "end": [offset_range.end],
        },
        schema=_ARROW_SCHEMA,
    )


def ranges_in(batch: pa.RecordBatch | pa.Table) -> list[OffsetRange]:
    """The ranges carried by a batch (or table) of :data:`~lakesink.adapters.kafka.source_schemas.RANGES_SCHEMA` rows, in row order."""
    columns = [batch.column(name).to_pylist() for name in ("topic", "partition", "start", "end")]
    return [OffsetRange(*row) for row in zip(*columns, strict=True)]


@dataclass(frozen=True)
class RangeReader:
    """Reads ranges the way the source's ``read()`` does; pickled with a ``mapInArrow`` closure.

    The client settings keep their :class:`Secret` values (masked in ``repr``); credentials are
    revealed only when the consumer is built on the executor. ``header_column`` is the
    ``includeHeaders`` option; ``headers=False`` (see :meth:`without_headers`) leaves the
    ``headers`` lists empty, for a consumer that never reads them.
    """

    client_settings: Mapping[str, str | Secret] = field(repr=False)
    group_id: str
    batch_records: int
    stall_timeout_s: float
    header_column: bool
    fail_on_data_loss: bool
    headers: bool = True

    @classmethod
    def of(cls, options: SourceOptions) -> RangeReader:
        """The reader the source itself uses for these options."""
        return cls(
            dict(options.client_settings),
            options.group_id,
            options.batch_records,
            options.stall_timeout_s,
            header_column=options.include_headers,
            fail_on_data_loss=options.fail_on_data_loss,
        )

    def without_headers(self) -> RangeReader:
        """This reader, leaving every ``headers`` list empty (a third of a passthrough sink task's CPU)."""
        return replace(self, headers=False)

    def read(self, offset_range: OffsetRange) -> Iterator[pa.RecordBatch]:
        """The records of ``offset_range`` as Arrow batches of Spark's Kafka schema (``includeHeaders`` as set)."""
        return read_range(
            offset_range,
            consumer_config(self.client_settings, group_id=self.group_id),
            batch_records=self.batch_records,
            stall_timeout_s=self.stall_timeout_s,
            headers=self.headers,
            header_column=self.header_column,
            fail_on_data_loss=self.fail_on_data_loss,
        )
