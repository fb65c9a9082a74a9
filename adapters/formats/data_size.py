"""The data size of a row: what ``flush.size`` and the row-group cut count for PARQUET.

A pure function of the values, alike for Python values (:func:`value_size`) and Arrow arrays
(:func:`row_sizes`): neither a file's size nor an array's ``nbytes`` is, and a retried task that
builds the same rows another way must cut the same files. See docs/formats.md, "Per format".
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakesink.domain.errors import FormatError

STRING_OVERHEAD = 4
"""Bytes counted before each string or bytes value (Parquet PLAIN's length prefix)."""
SCALAR_BYTES = 8
BOOLEAN_BYTES = 1
DECIMAL_BYTES = 16
_SEQUENCE_OF_UNITS = (str, bytes, bytearray, memoryview)


def value_size(value: Any) -> int:
    """The data size of one Python value (a row, or any value inside one)."""
    kind = type(value)
    if kind is str:
        return STRING_OVERHEAD + len(value)
    if kind is dict:
        return sum(map(value_size, value.values()))
    if kind is int or kind is float:
        return SCALAR_BYTES
    if kind is bool:
        return BOOLEAN_BYTES
    if value is None:
        return 0
    if kind is list or kind is tuple:
        return sum(map(value_size, value))
    return _other_size(value)


def _other_size(value: Any) -> int:
    """The less common types, checked by isinstance (subclasses, mappings that are not dicts…)."""
    if isinstance(value, _SEQUENCE_OF_UNITS):
        return STRING_OVERHEAD + len(value)
    if isinstance(value, Decimal):
        return DECIMAL_BYTES
    if isinstance(value, Mapping):
        return sum(map(value_size, value.values()))
    if isinstance(value, list | tuple):
        return sum(map(value_size, value))
    return SCALAR_BYTES


def row_sizes(batch: pa.RecordBatch) -> np.ndarray:
    """The data size of every row of ``batch`` (int64), equal to :func:`value_size` of each row.

    Raises:
        FormatError: a column type the columnar path never produces (map, union, decimal…).
    """
    sizes = np.zeros(batch.num_rows, dtype=np.int64)
    for column in batch.columns:
        sizes += array_sizes(column)
    return sizes


def array_sizes(array: pa.Array) -> np.ndarray:
    """The data size of each element of ``array`` (see :func:`row_sizes`)."""
    kind = array.type
    if pa.types.is_null(kind):
        return np.zeros(len(array), dtype=np.int64)
    if pa.types.is_string(kind):
        return (_characters(array) + STRING_OVERHEAD) * _valid(array)
    if pa.types.is_binary(kind):
        return _filled(pc.add(pc.binary_length(array), STRING_OVERHEAD))
    if pa.types.is_boolean(kind):
        return _valid(array) * BOOLEAN_BYTES
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_temporal(kind):
        return _valid(array) * SCALAR_BYTES
    if pa.types.is_struct(kind):
        sizes = np.zeros(len(array), dtype=np.int64)
        for index in range(kind.num_fields):
            sizes += array_sizes(pc.struct_field(array, [index]))  # parent nulls propagate
        return sizes
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _list_sizes(array)
    raise FormatError(f"no data size is defined for Arrow type {kind}")


def _list_sizes(array: pa.Array) -> np.ndarray:
    """Per list, the sum of its elements' sizes (null lists count 0)."""
    elements = array_sizes(array.values)
    running = np.concatenate(([0], np.cumsum(elements, dtype=np.int64)))
    offsets = array.offsets.to_numpy()
    return (running[offsets[1:]] - running[offsets[:-1]]) * _valid(array)


def _characters(array: pa.Array) -> np.ndarray:
    """Code points per string: bytes minus UTF-8 continuation bytes (``pc.utf8_length`` is slower)."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32, count=len(array) + 1, offset=array.offset * 4)
    data = array.buffers()[2]
    if data is None:
        return np.zeros(len(array), dtype=np.int64)
    units = np.frombuffer(data, dtype=np.uint8, count=int(offsets[-1]))
    continuations = np.concatenate(([0], np.cumsum((units & 0xC0) == 0x80, dtype=np.int64)))
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    return lengths - (continuations[offsets[1:]] - continuations[offsets[:-1]])


def _valid(array: pa.Array) -> np.ndarray:
    if array.null_count == 0:
        return np.ones(len(array), dtype=np.int64)
    return array.is_valid().to_numpy(zero_copy_only=False).astype(np.int64)


def _filled(lengths: pa.Array) -> np.ndarray:
    return lengths.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
