"""The Lenses-compatible index lock: its model and its exact JSON bytes.

Lenses stores one small JSON document per topic-partition (master lock) and per writer
(granular lock) under ``<indexes>/<connector>/.locks/``; it is the source of truth for where a
restarted sink resumes. lakesink reads and writes the same documents byte for byte (circe's
``noSpaces`` printing of Lenses' ``IndexFile``), so Lenses and lakesink can take over from each
other on one bucket. Where these documents live (their keys) is :mod:`lakesink.domain.commit.lock_keys`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lakesink.domain.errors import CommitError

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class LockFormatError(CommitError, ValueError):
    """A lock document is not valid JSON of the expected shape."""


# --- model ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UploadOp:
    """Upload a local staging file (``source`` is a local path) to ``destination``.

    Only ever the first step of a live commit; Lenses never persists it in a lock.
    """

    bucket: str
    source: str
    destination: str


@dataclass(frozen=True, slots=True)
class CopyOp:
    """Copy the temporary object ``source`` to its final key, if it still has ``etag``."""

    bucket: str
    source: str
    destination: str
    etag: str


@dataclass(frozen=True, slots=True)
class DeleteOp:
    """Delete the temporary object ``source`` (``etag`` is recorded but not enforced)."""

    bucket: str
    source: str
    etag: str


PendingOperation = UploadOp | CopyOp | DeleteOp


@dataclass(frozen=True, slots=True)
class PendingState:
    """A commit chain in flight: the offset it makes durable and the steps still to do."""

    pending_offset: int
    operations: tuple[PendingOperation, ...]

    def __post_init__(self) -> None:
        if not self.operations:
            raise LockFormatError(
                "A pending state needs at least one operation (Lenses cannot read an empty list)."
            )


@dataclass(frozen=True, slots=True)
class IndexLock:
    """One lock document.

    Attributes:
        owner: id of the task instance that wrote it (informational; fencing uses etags).
        committed_offset: highest Kafka offset durably written, or None if none yet.
        pending: the commit chain to finish before ``committed_offset`` can be trusted, if any.
    """

    owner: str
    committed_offset: int | None
    pending: PendingState | None = None


# --- encoding (exactly circe noSpaces) ---------------------------------------------------------


def encode_lock(lock: IndexLock) -> bytes:
    """The UTF-8 JSON Lenses writes for ``lock``, byte for byte."""
    pending = "null"
    if lock.pending is not None:
        ops = ",".join(_encode_op(op) for op in lock.pending.operations)
        pending = f'{{"pendingOffset":{lock.pending.pending_offset},"pendingOperations":[{ops}]}}'
    text = f'{{"owner":{_string(lock.owner)},"committedOffset":{_optional_long(lock.committed_offset)},' + (
        f'"pendingState":{pending}}}'
    )
    return _utf8(text)


def _encode_op(op: PendingOperation) -> str:
    # circe merges the discriminator into the derived object, which puts "type" first.
    if isinstance(op, UploadOp):
        fields = [
            ("type", "upload"),
            ("bucket", op.bucket),
            ("source", op.source),
            ("destination", op.destination),
        ]
    elif isinstance(op, CopyOp):
        fields = [
            ("type", "copy"),
            ("bucket", op.bucket),
            ("source", op.source),
            ("destination", op.destination),
            ("eTag", op.etag),
        ]
    else:
        fields = [("type", "delete"), ("bucket", op.bucket), ("source", op.source), ("eTag", op.etag)]
    return "{" + ",".join(f'"{name}":{_string(value)}' for name, value in fields) + "}"


def _optional_long(value: int | None) -> str:
    return "null" if value is None else str(value)


def _string(value: str) -> str:
    """A JSON string escaped the way circe's printer does (ISO controls as lowercase \\u00xx)."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _utf8(text: str) -> bytes:
    # A lone surrogate becomes "?", as the JVM's UTF-8 encoder does.
    return text.encode("utf-8", errors="replace")


# --- decoding (any key order, any whitespace) ---------------------------------------------------


def decode_lock(data: bytes, *, key: str | None = None) -> IndexLock:
    """Parse a lock written by Lenses or lakesink.

    Unknown fields are ignored and a missing ``committedOffset``/``pendingState`` means null,
    as with circe's derived decoder. ``key`` (the lock's object key) only improves messages.

    Raises:
        LockFormatError: not JSON, or a field is missing or has the wrong type, or an
            operation has an unknown ``type`` (message ``Unknown type: x``).
    """
    where = f" in lock {key}" if key else ""
    doc = _object(_parse(data, where), "the document", where)
    pending_doc = doc.get("pendingState")
    pending = None
    if pending_doc is not None:
        pending_obj = _object(pending_doc, "pendingState", where)
        raw_ops = pending_obj.get("pendingOperations")
        if not isinstance(raw_ops, list) or not raw_ops:
            raise LockFormatError(f"pendingState.pendingOperations must be a non-empty array{where}.")
        ops = tuple(
            _decode_op(op, f"pendingState.pendingOperations[{i}]", where) for i, op in enumerate(raw_ops)
        )
        pending = PendingState(_long(pending_obj, "pendingOffset", "pendingState.", where), ops)
    return IndexLock(
        owner=_str(doc, "owner", "", where),
        committed_offset=_optional_long_field(doc, "committedOffset", where),
        pending=pending,
    )


def _parse(data: bytes, where: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise LockFormatError(f"Malformed JSON{where}: {exc}.") from None


def _decode_op(raw: object, path: str, where: str) -> PendingOperation:
    op = _object(raw, path, where)
    kind = _str(op, "type", path + ".", where)
    prefix = path + "."
    if kind == "upload":
        return UploadOp(
            _str(op, "bucket", prefix, where),
            _str(op, "source", prefix, where),
            _str(op, "destination", prefix, where),
        )
    if kind == "copy":
        return CopyOp(
            _str(op, "bucket", prefix, where),
            _str(op, "source", prefix, where),
            _str(op, "destination", prefix, where),
            _str(op, "eTag", prefix, where),
        )
    if kind == "delete":
        return DeleteOp(
            _str(op, "bucket", prefix, where),
            _str(op, "source", prefix, where),
            _str(op, "eTag", prefix, where),
        )
    raise LockFormatError(f"Unknown type: {kind} (at {path}{where}).")


def _object(value: object, path: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise LockFormatError(f"{path} must be a JSON object{where}.")
    return value


def _str(doc: Mapping[str, Any], name: str, prefix: str, where: str) -> str:
    value = doc.get(name)
    if not isinstance(value, str):
        state = "is missing" if name not in doc else "must be a string"
        raise LockFormatError(f"{prefix}{name} {state}{where}.")
    return value


def _long(doc: Mapping[str, Any], name: str, prefix: str, where: str) -> int:
    value = doc.get(name)
    if value is None:
        raise LockFormatError(f"{prefix}{name} is missing{where}.")
    return _check_long(value, prefix + name, where)


def _optional_long_field(doc: Mapping[str, Any], name: str, where: str) -> int | None:
    value = doc.get(name)
    return None if value is None else _check_long(value, name, where)


def _check_long(value: object, path: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not _LONG_MIN <= value <= _LONG_MAX:
        raise LockFormatError(f"{path} must be a 64-bit integer, got {value!r}{where}.")
    return value
