"""Validation of the names a statement points at: bucket, prefix and Kafka topic.

These names become parts of object keys or Kafka requests, so they are checked here, where
the error can still point at the statement: a bucket with a ``/`` or a prefix with a ``..``
segment would write outside the place the user meant.
"""

from __future__ import annotations

import re

from lakesink.domain.kcql.cursor import Cursor, Name

_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")


def split_bucket_and_prefix(cursor: Cursor, name: Name) -> tuple[str, str | None]:
    """Split ``bucket[:prefix]`` and validate both parts.

    Like Lenses, every ``:`` separates (quoted or not), so more than one is an error; an
    empty prefix (``bucket:``) means no prefix, as in Lenses.
    """
    parts = name.value.split(":")
    if len(parts) > 2:
        raise cursor.error_at(
            f"Invalid number of arguments provided to create BucketAndPrefix: {name.value!r} has "
            f"{len(parts) - 1} ':' separators; write bucket or bucket:prefix (a prefix may contain "
            f"'/', not ':')",
            name.start,
        )
    bucket = parts[0]
    check_bucket(cursor, bucket, name.start)
    prefix = parts[1] if len(parts) == 2 and parts[1] else None
    if prefix is not None:
        check_prefix(cursor, prefix, name.start)
    return bucket, prefix


def check_bucket(cursor: Cursor, bucket: str, position: int) -> None:
    """Raise at ``position`` when :func:`bucket_problem` finds one."""
    problem = bucket_problem(bucket)
    if problem is not None:
        raise cursor.error_at(f"invalid bucket name {bucket!r}: {problem}", position)


def check_prefix(cursor: Cursor, prefix: str, position: int) -> None:
    """Raise at ``position`` when :func:`prefix_problem` finds one."""
    problem = prefix_problem(prefix)
    if problem is not None:
        raise cursor.error_at(f"invalid prefix {prefix!r}: {problem}", position)


def bucket_problem(bucket: str) -> str | None:
    """Why ``bucket`` is not a usable bucket name: empty, or has ``/``, ``:``, whitespace or control chars."""
    if not bucket:
        return "the bucket name is empty"
    bad = next((c for c in bucket if c in "/:" or c.isspace() or _is_control(c)), None)
    if bad is not None:
        return (
            f"it must not contain {bad!r} (no '/', ':', whitespace or control characters; "
            "put sub-folders in the prefix: bucket:path/to)"
        )
    return None


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` is unsafe: a control character or a ``.``/``..`` segment (``/`` itself is fine)."""
    if any(_is_control(char) for char in prefix):
        return "control characters are not allowed"
    if any(segment in (".", "..") for segment in prefix.split("/")):
        return "'.' and '..' path segments are not allowed (a prefix may never point outside its bucket)"
    return None


def check_topic(cursor: Cursor, topic: str, position: int) -> None:
    """A Kafka topic name: 1 to 249 of letters, digits, ``.``, ``_``, ``-``; not ``.`` or ``..``."""
    if topic in (".", "..") or not _KAFKA_TOPIC.fullmatch(topic):
        raise cursor.error_at(
            f"invalid topic name {topic!r}: Kafka topic names are 1 to 249 letters, digits, '.', '_' "
            "or '-' (and not '.' or '..')",
            position,
        )


def _is_control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0
