"""Exactly-once index settings: where the index lives.

The ``indexes.gc.*`` keys are accepted at their Lenses defaults only (``Kind.NOT_YET`` in the
catalog), so nothing of them is kept here.
"""

from __future__ import annotations

from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.errors import ConfigError


def parse_indexes_name(reader: PropertyReader) -> str:
    """``indexes.name``: a relative path from the bucket root; ``..`` could escape into data."""
    name = reader.text("indexes.name") or ".indexes"
    key = reader.key("indexes.name")
    if name.startswith("/") or "\\" in name:
        raise ConfigError(f"Invalid value {name!r} for {key}: expected a relative path using '/'.")
    segments = name.rstrip("/").split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise ConfigError(f"Invalid value {name!r} for {key}: path segments may not be empty, '.' or '..'.")
    return "/".join(segments)
