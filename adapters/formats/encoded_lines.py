"""The columnar write path: raw Kafka values become JSON-lines or TEXT files a slice at a time.

Where a statement writes each value's bytes unchanged plus a newline (:func:`takes_lines`),
:func:`encode_lines` does the per-record path's work for a whole Arrow batch, and
:meth:`~lakesink.adapters.formats.range_writer.RangeWriter.write_lines` cuts the files where the
per-record path would. See docs/sink.md, "One micro-batch".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakesink.adapters.formats.record_decoding import key_needed, raw_value_passthrough
from lakesink.adapters.kafka.converters import ByteArrayConverter, Converter
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import NO_TIMESTAMP
from lakesink.domain.statement_plan import StatementPlan

_EMPTY = pa.scalar(b"", pa.binary())
_NEWLINE = pa.scalar(b"\n", pa.binary())


def takes_lines(plan: StatementPlan, value_settings: ConverterSettings, value_converter: Converter) -> bool:
    """Whether the statement writes every record as its raw value bytes plus ``\\n``.

    JSON lines without compression or envelope over raw JSON values (``JsonConverter`` with
    ``schemas.enable=false``, or ``ByteArrayConverter``), TEXT over ``StringConverter`` /
    ``ByteArrayConverter`` values, with partition values only from the record's topic and partition
    (default layout, NOPARTITION, ``PARTITIONBY _topic``/``_partition``).
    """
    if plan.envelope is not None or key_needed(plan):
        return False
    if not plan.layout.selection.reads_only_coordinates:
        return False
    if plan.format is Format.JSON:
        if plan.codec is not CompressionCodec.UNCOMPRESSED:
            return False  # gzip: the file size depends on the compressor, not on the values
    elif plan.format is not Format.TEXT:
        return False
    return raw_value_passthrough(plan, value_settings) or isinstance(value_converter, ByteArrayConverter)


def single_partition(batch: pa.RecordBatch) -> tuple[str, int] | None:
    """The (topic, partition) of every row of a non-empty batch, or None when they differ."""
    if batch.num_rows == 0:
        return None
    topics, partitions = batch.column("topic"), batch.column("partition")
    if topics.null_count or partitions.null_count:
        return None
    topic, partition = topics[0], partitions[0]
    if not (pc.all(pc.equal(topics, topic)).as_py() and pc.all(pc.equal(partitions, partition)).as_py()):
        return None
    return topic.as_py(), partition.as_py()


@dataclass(frozen=True)
class EncodedLines:
    """The kept records of one batch as one buffer of lines, with their offsets and timestamps.

    Attributes:
        ends: ``ends[i]`` is the number of bytes of lines ``0..i`` (so line ``i`` ends there).
        offsets: Kafka offsets, ascending.
        timestamps: epoch millis, ``NO_TIMESTAMP`` for records without one.
        skipped: records of the batch dropped because they were at or below the floor.
        last_offset: the batch's last offset (kept or skipped).
    """

    buffer: memoryview
    ends: np.ndarray
    offsets: np.ndarray
    timestamps: np.ndarray
    skipped: int
    last_offset: int

    def __len__(self) -> int:
        return len(self.offsets)

    def offset(self, index: int) -> int:
        return int(self.offsets[index])

    def start_byte(self, index: int) -> int:
        """Where line ``index`` starts in :attr:`buffer`."""
        return int(self.ends[index - 1]) if index else 0

    def data(self, start: int, end: int) -> memoryview:
        """The bytes of lines ``start..end-1``."""
        return self.buffer[self.start_byte(start) : int(self.ends[end - 1])]


def encode_lines(batch: pa.RecordBatch, format: Format, *, floor: int | None) -> EncodedLines | None:
    """The batch's records above ``floor`` as lines, or None when a record needs the per-record path.

    Taken only when the result is provably the same bytes: every value must be present (a null is a
    tombstone to skip or a poison record), and for JSON non-empty and free of line breaks (such
    values are parsed and re-serialised by the JSON writer). Records at or below the partition's
    committed offset are dropped first, as the per-record path skips them.
    """
    offsets = batch.column("offset")
    last_offset = offsets[-1].as_py()
    if floor is not None:
        batch = batch.filter(pc.greater(offsets, floor))
    values = batch.column("value")
    if values.null_count or (format is Format.JSON and _needs_json_rewrite(values)):
        return None
    if batch.num_rows == 0:
        none = np.empty(0, dtype=np.int64)
        return EncodedLines(memoryview(b""), none, none, none, len(offsets), last_offset)
    joined = pc.binary_join_element_wise(values, _EMPTY, _NEWLINE)
    positions = np.frombuffer(
        joined.buffers()[1], dtype=np.int32, count=len(joined) + 1, offset=joined.offset * 4
    )
    first = int(positions[0])
    buffer = memoryview(joined.buffers()[2])[first : int(positions[-1])]
    micros = pc.cast(batch.column("timestamp"), pa.int64()).fill_null(NO_TIMESTAMP * 1000)
    return EncodedLines(
        buffer=buffer,
        ends=positions[1:].astype(np.int64) - first,
        offsets=batch.column("offset").to_numpy(),
        timestamps=micros.to_numpy() // 1000,
        skipped=len(offsets) - batch.num_rows,
        last_offset=last_offset,
    )


def _needs_json_rewrite(values: pa.Array) -> bool:
    """Whether the JSON writer would parse and re-serialise some value (empty, or with a line break).

    The line breaks are searched in the values' contiguous data bytes at once (``bytes.find``,
    memchr speed): ``match_substring`` per value cost two thirds of :func:`encode_lines`.
    """
    if len(values) == 0:
        return False
    if pc.any(pc.equal(pc.binary_length(values), 0)).as_py():
        return True
    ends = np.frombuffer(values.buffers()[1], dtype=np.int32, count=len(values) + 1, offset=values.offset * 4)
    first, last = int(ends[0]), int(ends[-1])
    data = values.buffers()[2].slice(first, last - first).to_pybytes()
    return data.find(b"\n") >= 0 or data.find(b"\r") >= 0
