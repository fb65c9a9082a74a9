"""Reads a sink's output back with code that shares nothing with the writer.

Plain boto3 (:class:`~lakesink.adapters.demo.s3.S3Bucket`) or ``os.walk`` (:class:`LocalBucket`),
``pyarrow.parquet`` and ``json``: lakesink does not check lakesink. Only envelope files can be checked
record by record (only they carry each record's partition and offset); which objects are data is
the demo's call (:func:`lakesink.application.demo.output.is_data_key`).
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class ListedObject:
    """One object of a bucket: its key and size in bytes."""

    key: str
    size: int


@dataclass(frozen=True, slots=True)
class StoredRow:
    """One record as found in an output file, with the object that holds it."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    key: str | None
    value: Any
    headers: dict[str, str]
    object_key: str


class LocalBucket:
    """A bucket of the local backend: a directory under the root; keys are relative paths.

    The local backend stores a ``%`` in a key as ``%25`` and an empty segment as a lone ``%``;
    both are undone here so keys read like the keys the sink computed.
    """

    def __init__(self, root: Path, bucket: str) -> None:
        self.name = bucket
        self._directory = Path(root) / bucket

    def list(self, prefix: str = "") -> list[ListedObject]:
        found: list[ListedObject] = []
        for directory, _dirs, files in os.walk(self._directory):
            for name in files:
                path = Path(directory) / name
                key = "/".join(_unescape(part) for part in path.relative_to(self._directory).parts)
                if key.startswith(prefix):
                    found.append(ListedObject(key, path.stat().st_size))
        return sorted(found, key=lambda item: item.key)

    def read(self, key: str) -> bytes:
        parts = [("%" if part == "" else part.replace("%", "%25")) for part in key.split("/")]
        return self._directory.joinpath(*parts).read_bytes()

    def rows(self, key: str) -> Iterator[StoredRow]:
        """The envelope rows of the object ``key`` (see :func:`rows_of_object`)."""
        return rows_of_object(key, self.read(key))


_ESCAPED = "esc__"
_ESCAPE = re.compile(r"_([0-9a-f]+)_")


def _unescape(segment: str) -> str:
    return "" if segment == "%" else segment.replace("%25", "%")


def rows_of_object(key: str, data: bytes) -> Iterator[StoredRow]:
    """The envelope rows of one Parquet or JSON-lines object.

    Raises:
        ValueError: the object is not an envelope file (no ``metadata``) or has another format.
    """
    if key.endswith(".parquet"):
        import pyarrow.parquet as pq

        documents: list[dict[str, Any]] = pq.read_table(io.BytesIO(data)).to_pylist()
    elif key.endswith(".json"):
        documents = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    else:
        raise ValueError(f"{key}: only Parquet and JSON envelope files can be read back")
    for document in documents:
        metadata = document.get("metadata")
        if not isinstance(metadata, dict):
            raise ValueError(f"{key}: a row without envelope metadata; write with store.envelope=true")
        yield StoredRow(
            topic=metadata["topic"],
            partition=int(metadata["partition"]),
            offset=int(metadata["offset"]),
            timestamp=metadata.get("timestamp"),
            key=_text(document.get("key")),
            value=document.get("value"),
            headers=_headers(document),
            object_key=key,
        )


def _headers(document: dict[str, Any]) -> dict[str, str]:
    raw = document.get("headers") or {}
    base64_named = set(document.get("headersIsArray") or ())
    decoded: dict[str, str] = {}
    for name, value in raw.items():
        if value is None:
            continue
        if name in base64_named:
            decoded[_header_name(name)] = base64.b64decode(value).decode("utf-8")
        else:
            decoded[_header_name(name)] = _text(value) or ""
    return decoded


def _header_name(field: str) -> str:
    """The header name of an Avro/Parquet headers field: ``esc__`` names undo lakesink's documented
    escape (``_<hex>_`` for every character other than an ASCII letter or digit)."""
    if not field.startswith(_ESCAPED):
        return field
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), field[len(_ESCAPED) :])


def _text(value: Any) -> str | None:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8")
    return None if value is None else str(value)
