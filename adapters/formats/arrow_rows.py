"""The rows of one partition value as the columnar PARQUET path hands them to a file writer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from lakesink.domain.schema import Schema


@dataclass(frozen=True)
class ArrowRows:
    """The rows of one partition value, parsed, in offset order.

    Attributes:
        schema: the Avro schema every row fits (the file's schema).
        sizes: each row's data size; ``ends`` their running total.
        timestamps: epoch millis, ``NO_TIMESTAMP`` for records without one.
    """

    schema: Schema
    batch: pa.RecordBatch
    sizes: np.ndarray
    ends: np.ndarray
    offsets: np.ndarray
    timestamps: np.ndarray
