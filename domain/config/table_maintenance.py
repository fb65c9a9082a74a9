"""``table.maintenance.*``: the maintenance a sink runs on its tables between batches (off by default)."""

from __future__ import annotations

from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.tables.maintenance import MaintenanceSettings, age_ms


def _age(reader: PropertyReader, name: str) -> int | None:
    text = reader.text(name)
    return None if text is None else age_ms(reader.key(name), text)


def parse_table_maintenance(reader: PropertyReader) -> MaintenanceSettings:
    """The maintenance settings, each checked (a bad one is a ConfigError naming it).

    Raises:
        ConfigError: a value that is not a count, size or age, or out of its range.
    """
    defaults = MaintenanceSettings()
    interval = _age(reader, "table.maintenance.interval")
    return MaintenanceSettings(
        every_batches=reader.integer("table.maintenance.every.batches", minimum=1),
        interval_ms=interval or None,
        keep_snapshots=reader.integer("table.maintenance.snapshots.keep", minimum=1) or defaults.keep_snapshots,
        max_snapshot_age_ms=_age(reader, "table.maintenance.snapshots.max.age"),
        target_file_bytes=reader.integer("table.maintenance.compaction.target.file.size", minimum=0) or 0,
        closed_after_ms=_age(reader, "table.maintenance.compaction.closed.after") or 0,
        orphans=reader.flag("table.maintenance.orphans.enable"),
        orphans_older_than_ms=_age(reader, "table.maintenance.orphans.older.than") or 0,
    )
