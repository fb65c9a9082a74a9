"""What an Iceberg table's current metadata names in its ``metadata/`` folder, as pyiceberg lists it:
the tests' independent account of the files maintenance must keep."""

from __future__ import annotations

from pyiceberg.table import Table


def needed_metadata(table: Table) -> set[str]:
    """The names of the current metadata.json, those of its metadata log, every snapshot's manifest
    list and every manifest those lists name."""
    paths = {table.metadata_location, *(entry.metadata_file for entry in table.metadata.metadata_log),
             *(snapshot.manifest_list for snapshot in table.snapshots()),
             *table.inspect.all_manifests().column("path").to_pylist()}
    return {path.rsplit("/", 1)[1] for path in paths}
