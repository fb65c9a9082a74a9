"""Which objects under a table are orphans (lakesink.domain.tables.orphans)."""

from __future__ import annotations

from lakesink.domain.tables.orphans import by_age, is_candidate, orphans, settled


def test_only_parquet_objects_under_the_table_outside_its_metadata_are_candidates() -> None:
    assert is_candidate("lake/orders", "lake/orders/orders/0/000000000004.parquet")
    assert is_candidate("lake/orders/", "lake/orders/region=eu/orders(0_000000000004).parquet")
    assert not is_candidate("lake/orders", "lake/orders/metadata/00001-a.metadata.json")
    assert not is_candidate("lake/orders", "lake/orders/metadata/snap-1.avro")
    assert not is_candidate("lake/orders", "lake/orders/_delta_log/00000000000000000001.json")
    assert not is_candidate("lake/orders", "lake/orders-2/x.parquet")  # another table's prefix
    assert not is_candidate("lake/orders", "lake/orders/notes.txt")


def test_an_object_a_pending_plan_lists_or_the_table_references_is_kept() -> None:
    listed = ["t/a.parquet", "t/b.parquet", "t/c.parquet", "t/d.parquet"]
    assert orphans(listed, pending={"t/b.parquet"}, referenced={"t/a.parquet", "t/x.parquet"}) == [
        "t/c.parquet", "t/d.parquet"]


def test_an_object_is_settled_once_older_than_the_grace_period_and_never_when_its_age_is_unknown() -> None:
    assert settled(1_000, now_ms=5_000, grace_ms=4_000)
    assert not settled(1_001, now_ms=5_000, grace_ms=4_000)
    assert not settled(None, now_ms=5_000, grace_ms=4_000)
    assert settled(None, now_ms=5_000, grace_ms=0)  # no grace period: every orphan goes


def test_found_objects_split_by_age_into_those_to_delete_and_those_kept_in_their_order() -> None:
    modified = {"t/c.parquet": 1_000, "t/a.parquet": 4_500, "t/b.parquet": None, "t/d.parquet": 500}
    found = ["t/c.parquet", "t/a.parquet", "t/b.parquet", "t/d.parquet"]
    assert by_age(found, modified, now_ms=5_000, grace_ms=4_000) == (
        ("t/c.parquet", "t/d.parquet"), ("t/a.parquet", "t/b.parquet"))
