"""What a sink task tells the driver, as Arrow rows: one per range, its dead letters inside.

A task returns its :class:`~lakesink.domain.commit.range_results.RangeResult` values through
``mapInArrow``: :func:`task_row` flattens one into a row of :data:`RESULT_SCHEMA` on the executor,
:func:`result_of` rebuilds it from the collected row on the driver.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from lakesink.domain.commit.range_results import RangeFailure, RangeResult
from lakesink.domain.dead_letters import DeadLetter, Stage
from lakesink.domain.tables.table_port import DataFile

RESULT_SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("first", pa.int64()),
        ("last", pa.int64()),
        ("records", pa.int64()),
        ("skipped", pa.int64()),
        ("poison", pa.int64()),
        ("bytes", pa.int64()),
        ("files", pa.list_(pa.string())),
        ("error_kind", pa.string()),
        ("error_message", pa.string()),
        (
            "dead_letters",
            pa.list_(
                pa.struct(
                    [
                        ("offset", pa.int64()),
                        ("timestamp", pa.int64()),
                        ("key", pa.binary()),
                        ("value", pa.binary()),
                        ("headers", pa.list_(pa.struct([("name", pa.string()), ("value", pa.binary())]))),
                        ("stage", pa.string()),
                        ("class_name", pa.string()),
                        ("error_class", pa.string()),
                        ("error_message", pa.string()),
                        ("stacktrace", pa.string()),
                    ]
                )
            ),
        ),
        ("rolls", pa.list_(pa.int64())),
        ("requests", pa.int64()),
        (
            "table_files",
            pa.list_(pa.struct([("bucket", pa.string()), ("key", pa.string()), ("size", pa.int64()), ("footer", pa.binary())])),
        ),
    ]
)
"""One row per topic-partition range, the fields of a :class:`RangeResult` (its failure flattened;
its dead letters without the range's topic and partition; its files rolled as one count per reason)."""

RESULT_DDL = (
    "topic string, partition int, first long, last long, records long, skipped long, poison long, "
    "bytes long, files array<string>, error_kind string, error_message string, "
    "dead_letters array<struct<offset: long, timestamp: long, key: binary, value: binary, "
    "headers: array<struct<name: string, value: binary>>, stage: string, class_name: string, "
    "error_class: string, error_message: string, stacktrace: string>>, rolls array<long>, requests long, "
    "table_files array<struct<bucket: string, key: string, size: long, footer: binary>>"
)


def task_row(result: RangeResult) -> dict[str, Any]:
    """The result row of ``result`` (:data:`RESULT_SCHEMA`), as a task yields it."""
    row = {field.name: getattr(result, field.name) for field in dataclasses.fields(result)}
    failure = row.pop("failure")
    return {
        **row,
        "files": list(result.files),
        "rolls": list(result.rolls),
        "error_kind": failure.kind if failure else None,
        "error_message": failure.message if failure else None,
        "dead_letters": [_letter_row(letter) for letter in result.dead_letters],
        "table_files": [dataclasses.asdict(data_file) for data_file in result.table_files],
    }


def _letter_row(letter: DeadLetter) -> dict[str, Any]:
    return {
        "offset": letter.offset,
        "timestamp": letter.timestamp,
        "key": letter.key,
        "value": letter.value,
        "headers": [{"name": name, "value": value} for name, value in letter.headers],
        "stage": letter.stage.value,
        "class_name": letter.class_name,
        "error_class": letter.error_class,
        "error_message": letter.error_message,
        "stacktrace": letter.stacktrace,
    }


def result_of(row: Mapping[str, Any]) -> RangeResult:
    """The :class:`RangeResult` of one collected result row (the driver's side of :func:`task_row`;
    ``row`` as ``Row.asDict(recursive=True)`` gives it)."""
    fields = dict(row)
    kind, message = fields.pop("error_kind"), fields.pop("error_message")
    fields["files"] = tuple(fields["files"] or ())
    fields["rolls"] = tuple(fields["rolls"] or ())
    topic, partition = fields["topic"], fields["partition"]
    fields["dead_letters"] = tuple(_letter_of(topic, partition, letter) for letter in fields["dead_letters"] or ())
    fields["table_files"] = tuple(
        DataFile(f["bucket"], f["key"], f["size"], bytes(f["footer"])) for f in fields.get("table_files") or ()
    )
    return RangeResult(**fields, failure=RangeFailure(kind, message) if kind is not None else None)


def _letter_of(topic: str, partition: int, row: Mapping[str, Any]) -> DeadLetter:
    def raw(value: bytes | bytearray | None) -> bytes | None:  # Spark hands binary back as bytearray
        return None if value is None else bytes(value)

    return DeadLetter(
        topic=topic,
        partition=partition,
        offset=row["offset"],
        timestamp=row["timestamp"],
        key=raw(row["key"]),
        value=raw(row["value"]),
        headers=tuple((header["name"], raw(header["value"])) for header in row["headers"] or ()),
        stage=Stage(row["stage"]),
        class_name=row["class_name"],
        error_class=row["error_class"],
        error_message=row["error_message"],
        stacktrace=row["stacktrace"],
    )
