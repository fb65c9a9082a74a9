"""Safe, reversible mapping between object keys and paths under a local root.

Each ``/``-separated segment is one path component. ``%`` is written ``%25`` and an empty segment
(``a//b``, a ``dir/`` marker) a lone ``%``, so any other name starting with ``%`` is no object: that
keeps temporary files (``%tmp.*``) out of listings. Keys that could leave the bucket directory
(absolute, ``.``/``..`` segments, NUL) are rejected, not escaped: almost certainly a bug upstream.
"""

from __future__ import annotations

from pathlib import Path

from lakesink.domain.errors import StorageError

TEMP_PREFIX = "%tmp."
_EMPTY = "%"


def check_bucket_name(bucket: str) -> None:
    """Buckets are single directory names that cannot hide or escape (no ``/``, no leading dot)."""
    if not bucket or "/" in bucket or "\0" in bucket or bucket.startswith("."):
        raise StorageError(f"Invalid bucket name {bucket!r} for the local store.")


def key_segments(bucket: str, key: str) -> list[str]:
    """The escaped path components of ``key``; raises StorageError for keys that could escape."""
    if not key or "\0" in key or key.startswith("/"):
        raise StorageError(f"Invalid object key {key!r} in bucket {bucket}: empty, absolute or contains NUL.")
    segments = key.split("/")
    if any(segment in (".", "..") for segment in segments):
        raise StorageError(f"Invalid object key {key!r} in bucket {bucket}: '.' and '..' segments are not allowed.")
    return [encode_segment(segment) for segment in segments]


def encode_segment(segment: str) -> str:
    """One key segment as a file or directory name."""
    return segment.replace("%", "%25") if segment else _EMPTY


def decode_name(name: str) -> str | None:
    """The key segment a file or directory name stands for, or None for non-object names."""
    if name == _EMPTY:
        return ""
    if name.startswith("%") and not name.startswith("%25"):
        return None
    return name.replace("%25", "%")


def object_path(root: Path, bucket: str, key: str) -> Path:
    """Where ``key`` of ``bucket`` lives under ``root``."""
    check_bucket_name(bucket)
    return root.joinpath(bucket, *key_segments(bucket, key))


def prefix_directory(root: Path, bucket: str, prefix: str) -> tuple[Path, str]:
    """The deepest directory that holds every key starting with ``prefix``, and its key prefix."""
    check_bucket_name(bucket)
    complete = prefix.split("/")[:-1]  # the last piece may be a partial name
    if any(segment in (".", "..") for segment in complete):
        raise StorageError(f"Invalid prefix {prefix!r} in bucket {bucket}: '.' and '..' segments are not allowed.")
    directory = root.joinpath(bucket, *(encode_segment(s) for s in complete))
    return directory, "".join(f"{s}/" for s in complete)
