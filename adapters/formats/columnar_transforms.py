"""Single Message Transforms over a parsed Arrow batch, for the columnar PARQUET path.

Each step users chain most (add, drop, rename, blank or cast top-level fields, rename the topic)
is one Arrow operation over the batch; a chain with any other step has no columnar form
(:meth:`ColumnarChain.of` gives None), and :mod:`.columnar_parquet` still proves every file gets
the schema the per-record path would give it. See docs/transforms.md, "Transforms at columnar speed".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakesink.domain.errors import RecordError
from lakesink.domain.records import NO_TIMESTAMP, Record
from lakesink.domain.transforms.chain import Step, TransformChain
from lakesink.domain.transforms.kafka_cast import Cast, cast_schemaless
from lakesink.domain.transforms.kafka_fields import InsertField, MaskField, ReplaceField, Source
from lakesink.domain.transforms.kafka_predicates import RecordIsTombstone, TopicNameMatches
from lakesink.domain.transforms.kafka_routing import RegexRouter
from lakesink.domain.transforms.parts import Part

Columns = dict[str, pa.Array]
"""A batch's columns by name, in order (a value's fields, as a map keeps them)."""

_BATCH_CONSTANT_PREDICATES = (TopicNameMatches, RecordIsTombstone)
_ARROW_TYPES: Mapping[type, pa.DataType] = {
    bool: pa.bool_(),
    int: pa.int64(),
    float: pa.float64(),
    str: pa.string(),
}
"""The column type of each Python type a schemaless JSON value holds (what ``infer`` makes of it)."""
_TYPE_PROBES: Mapping[pa.DataType, Any] = {
    pa.bool_(): True,
    pa.int64(): 1,
    pa.float64(): 1.5,
    pa.string(): "x",
}
"""A value of each scalar column type, to ask a type-driven transform (MaskField) what it makes of the type."""


@dataclass(frozen=True)
class BatchRows:
    """What a step may read besides the values: the Kafka coordinates of the batch's rows."""

    partition: int
    offsets: np.ndarray
    timestamps: np.ndarray
    """Epoch millis, ``NO_TIMESTAMP`` for records without one."""


@dataclass(frozen=True)
class ColumnarChain:
    """A transform chain every step of which has a columnar form (``operations``, one per step)."""

    chain: TransformChain
    operations: tuple[Operation, ...]

    @classmethod
    def of(cls, chain: TransformChain) -> ColumnarChain | None:
        """The chain's columnar form, or None when some step needs the per-record path."""
        operations = []
        for step in chain.steps:
            operation = _columnar(step)
            if operation is None:
                return None
            if step.predicate is not None and not isinstance(step.predicate, _BATCH_CONSTANT_PREDICATES):
                return None
            operations.append(operation)
        return cls(chain, tuple(operations))

    def topic(self, topic: str, partition: int) -> str:
        """The topic the chain routes a batch of ``topic`` to (the same for every record of it)."""
        probe = Record(topic, partition, -1, value={})  # the predicates here read the topic, or test for null
        for step in self.chain.steps:
            if isinstance(step.transform, RegexRouter) and step.applies_to(probe):
                probe = step.transform.apply(probe)
        return probe.topic

    def record(self, record: Record) -> Record | None:
        """The record as the per-record path writes it; None when a step refuses or drops it."""
        try:
            return self.chain.apply(record)
        except RecordError:
            return None

    def apply(self, columns: Columns, first: Record, rows: BatchRows) -> Columns | None:
        """The batch's value columns after the chain, ``first`` being its first record (pre-chain),
        or None when some row must go record by record.

        The chain's own code decides everything that is not a column operation: a step's predicate
        must give the same answer for every row (``TopicNameMatches`` reads the topic, one per batch;
        ``RecordIsTombstone`` is false for every row, as the columnar path takes no null value), so it
        is tested once, on the batch's first record, and so is the topic a router gives; a constant
        (``InsertField``'s topic, partition and static value, a mask) is what the domain transform gives
        for the first record or for a value of the column's type; ``Cast`` runs the domain's cast on each
        distinct value of a column and takes the results back per row. None for a batch where a step
        meets a value it cannot handle as a column: a missing field, a struct to mask, a record without
        a timestamp, two fields renamed onto one name, a cast or custom mask of a double column holding
        a whole number (JSON may have written it as the integer the per-record path then sees).
        """
        current = first
        for step, operation in zip(self.chain.steps, self.operations, strict=True):
            if not step.applies_to(current):
                continue
            try:
                result = operation(columns, current, rows)
                after = step.run(current)
            except (RecordError, pa.ArrowException):
                return None
            if result is None or after is None:
                return None
            columns, current = result, after
        return columns


Operation = Callable[[Columns, Record, BatchRows], Columns | None]
"""One step over the columns; the record is the batch's first as the step sees it."""


def _columnar(step: Step) -> Operation | None:
    transform = step.transform
    if isinstance(transform, RegexRouter):
        return _unchanged  # the topic is the batch's: the first record's route is every record's
    if getattr(transform, "part", None) is not Part.VALUE:
        return None
    if isinstance(transform, InsertField):
        return lambda columns, first, rows: _insert(transform, columns, first, rows)
    if isinstance(transform, ReplaceField):
        return lambda columns, first, rows: _replace(transform, columns)
    if isinstance(transform, MaskField):
        return lambda columns, first, rows: _mask(transform, columns)
    if isinstance(transform, Cast) and transform.whole is None:
        return lambda columns, first, rows: _cast(transform, columns)
    return None


def _unchanged(columns: Columns, first: Record, rows: BatchRows) -> Columns:
    return columns


def _constant(value: Any, count: int) -> pa.Array:
    return pa.repeat(pa.scalar(value, _ARROW_TYPES[type(value)]), count)


def _insert(transform: InsertField, columns: Columns, first: Record, rows: BatchRows) -> Columns | None:
    count = len(rows.offsets)
    added: Columns = {}
    for name, source in transform.inserted():
        if source is Source.TOPIC:
            added[name] = _constant(first.topic, count)
        elif source is Source.PARTITION:
            added[name] = _constant(rows.partition, count)
        elif source is Source.OFFSET:
            added[name] = pa.array(rows.offsets, pa.int64())
        elif source is Source.STATIC:
            added[name] = _constant(transform.static_value, count)
        elif (rows.timestamps == NO_TIMESTAMP).any():
            return None  # those records get no field: their rows differ in shape
        else:
            added[name] = pa.array(rows.timestamps, pa.int64())
    return {**columns, **added}


def _replace(transform: ReplaceField, columns: Columns) -> Columns | None:
    outputs = transform.output_names(columns)
    if len(outputs) != sum(map(transform.kept, columns)):
        return None  # two fields land on one name: which wins depends on each row's own field order
    return {new: columns[old] for new, old in outputs.items()}


def _mask(transform: MaskField, columns: Columns) -> Columns | None:
    masked = {}
    for name in sorted(transform.fields):
        column = columns.get(name)
        if column is None or column.type not in _TYPE_PROBES:
            return None  # a missing field becomes a null one; a struct or list is masked to {} / []
        if transform.replacement is not None and _holds_whole_doubles(column):
            return None  # a JSON 3 in a double column is an int to the per-record mask (3 → int(replacement))
        blank = transform.masked(_TYPE_PROBES[column.type], None)  # depends on the type only
        masked[name] = pc.if_else(
            pc.is_valid(column), pa.scalar(blank, column.type), pa.scalar(None, column.type)
        )
    return {**columns, **masked}


def _cast(transform: Cast, columns: Columns) -> Columns | None:
    cast = {}
    for name, target in transform.casts.items():
        column = columns.get(name)
        if column is None or column.type not in _TYPE_PROBES or _holds_whole_doubles(column):
            return None  # a JSON 3 in a double column is cast as the int it is on the per-record path
        distinct = pc.unique(column)
        results = [cast_schemaless(value, target) for value in distinct.to_pylist()]
        kinds = {type(result) for result in results if result is not None}
        if len(kinds) != 1:
            return None  # all nulls, or results of several types: per record
        results_array = pa.array(results, _ARROW_TYPES[kinds.pop()])
        cast[name] = results_array.take(pc.index_in(column, value_set=distinct))
    return {**columns, **cast}


def _holds_whole_doubles(column: pa.Array) -> bool:
    """Whether a double column holds a whole number: parsed from JSON it may have been an integer
    (``3``), which the per-record path sees as a Python int, not the double the column holds."""
    if not pa.types.is_float64(column.type):
        return False
    return bool(pc.any(pc.equal(column, pc.floor(column))).as_py())
