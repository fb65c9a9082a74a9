"""``table.maintenance.*`` parsed and checked (lakesink.domain.config.table_maintenance)."""

from __future__ import annotations

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError
from lakesink.domain.tables.maintenance import MaintenanceSettings


def _load(**extra: str) -> MaintenanceSettings:
    props = {"name": "demo", "topics": "orders", "connect.s3.kcql": "INSERT INTO b:p SELECT * FROM orders", **extra}
    return ConnectorSettings.from_properties(props, role="sink").table_maintenance


def test_maintenance_is_off_by_default_and_typed_when_set() -> None:
    assert _load() == MaintenanceSettings() and not _load().enabled
    settings = _load(**{
        "connect.s3.table.maintenance.every.batches": "50", "connect.s3.table.maintenance.interval": "30m",
        "connect.s3.table.maintenance.snapshots.keep": "10", "connect.s3.table.maintenance.snapshots.max.age": "1d",
        "connect.s3.table.maintenance.compaction.target.file.size": "1048576",
        "connect.s3.table.maintenance.compaction.closed.after": "2h",
        "connect.s3.table.maintenance.orphans.enable": "false",
        "connect.s3.table.maintenance.orphans.older.than": "12h",
    })
    assert settings == MaintenanceSettings(50, 1_800_000, 10, 86_400_000, 1_048_576, 7_200_000, False, 43_200_000)


@pytest.mark.parametrize(("key", "raw"), [
    ("table.maintenance.every.batches", "0"),
    ("table.maintenance.interval", "often"),
    ("table.maintenance.snapshots.keep", "0"),
    ("table.maintenance.snapshots.max.age", "5"),
    ("table.maintenance.compaction.target.file.size", "-1"),
    ("table.maintenance.compaction.closed.after", "1w"),
    ("table.maintenance.orphans.enable", "maybe"),
    ("table.maintenance.orphans.older.than", "3 days"),
    ("table.maintenance.snapshot.keep", "3"),  # unknown
])
def test_a_bad_or_unknown_maintenance_setting_names_itself(key: str, raw: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(**{f"connect.s3.{key}": raw})
    assert f"connect.s3.{key}" in str(caught.value)
