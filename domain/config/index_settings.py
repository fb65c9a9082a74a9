"""Exactly-once index settings: where the index lives and how its garbage is collected."""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.errors import ConfigError


@dataclass(frozen=True, slots=True)
class IndexGcSettings:
    """``indexes.gc.*``: deleting superseded index objects, and sweeping orphans (Lenses defaults)."""

    interval_seconds: int = 300
    batch_size: int = 1000
    sweep_enabled: bool = True
    sweep_interval_seconds: int = 86_400
    sweep_min_age_seconds: int = 86_400
    sweep_max_reads: int = 1000


def parse_index_gc(reader: PropertyReader) -> IndexGcSettings:
    """Every numeric GC setting must be at least 1, as Lenses' ConfigDef requires."""

    def positive(name: str) -> int:
        value = reader.integer(name, minimum=1)
        if value is None:
            raise KeyError(f"{name} has no default in the catalog")
        return value

    return IndexGcSettings(
        interval_seconds=positive("indexes.gc.interval.seconds"),
        batch_size=positive("indexes.gc.batch.size"),
        sweep_enabled=reader.flag("indexes.gc.sweep.enabled"),
        sweep_interval_seconds=positive("indexes.gc.sweep.interval.seconds"),
        sweep_min_age_seconds=positive("indexes.gc.sweep.min.age.seconds"),
        sweep_max_reads=positive("indexes.gc.sweep.max.reads"),
    )


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
