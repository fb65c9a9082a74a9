"""Which files of an Iceberg table's metadata folder no kept version needs (lakesink.domain.tables.metadata_orphans)."""

from __future__ import annotations

from lakesink.domain.tables.metadata_orphans import MetadataReferences, unreferenced_metadata

CURRENT = "lake/orders/metadata/00009-c.metadata.json"
REFERENCES = MetadataReferences(CURRENT, frozenset({
    "lake/orders/metadata/00008-b.metadata.json",  # in the current one's metadata log
    "lake/orders/metadata/snap-9-1-k.avro",  # a kept snapshot's manifest list
    "lake/orders/metadata/k-m0.avro",  # a manifest it names
}))


def test_metadata_json_manifest_lists_and_manifests_no_kept_version_needs_are_unreferenced() -> None:
    listed = [
        CURRENT, *REFERENCES.needed,
        "lake/orders/metadata/00001-a.metadata.json",  # fell out of the metadata log
        "lake/orders/metadata/snap-3-1-e.avro",  # an expired snapshot's manifest list
        "lake/orders/metadata/e-m0.avro",  # a manifest only expired snapshots named
        "lake/orders/metadata/00002-d.gz.metadata.json",
    ]
    assert unreferenced_metadata("lake/orders/", listed, REFERENCES) == [
        "lake/orders/metadata/00001-a.metadata.json", "lake/orders/metadata/00002-d.gz.metadata.json",
        "lake/orders/metadata/e-m0.avro", "lake/orders/metadata/snap-3-1-e.avro",
    ]


def test_only_metadata_and_manifest_files_of_the_tables_own_metadata_folder_are_candidates() -> None:
    listed = [
        "lake/orders/metadata/version-hint.text",
        "lake/orders/metadata/1-stats.puffin",
        "lake/orders/orders/0/000000000004.parquet",  # a data file: table clean's
        "lake/orders-2/metadata/00001-a.metadata.json",  # another table's
        "lake/orders/data/x-m0.avro",
    ]
    assert unreferenced_metadata("lake/orders", listed, REFERENCES) == []


def test_nothing_is_a_candidate_when_the_current_metadata_lives_outside_the_folder() -> None:
    """``write.metadata.path`` elsewhere: the folder is not known to be this table's."""
    elsewhere = MetadataReferences("lake/meta/orders/00009-c.metadata.json", frozenset())
    assert unreferenced_metadata("lake/orders", ["lake/orders/metadata/00001-a.metadata.json"], elsewhere) == []
