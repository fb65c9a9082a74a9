"""Shared listing semantics: roll-up, pagination, regrouping of server pages."""

from __future__ import annotations

from lakesink.adapters.storage.paging import CommonPrefix, paginate, regroup, roll_up
from lakesink.domain.ports import ListPage, ObjectInfo


def _info(key: str) -> ObjectInfo:
    return ObjectInfo(key, 1, "e")


def test_roll_up_applies_start_after_before_collapsing_prefixes() -> None:
    keys = ["p/a/1", "p/a/2", "p/b/1", "p/c"]
    rolled = list(roll_up(keys, str, "p/", "/", "p/a/1"))
    assert rolled == ["p/a/", "p/b/", "p/c"]
    assert isinstance(rolled[0], CommonPrefix) and not isinstance(rolled[2], CommonPrefix)


def test_paginate_counts_prefixes_and_objects_against_the_page_size() -> None:
    pages = list(paginate([CommonPrefix("a/"), _info("b"), _info("c")], 2))
    assert pages == [ListPage((_info("b"),), ("a/",)), ListPage((_info("c"),), ())]


def test_regroup_drops_a_prefix_repeated_on_the_next_server_page() -> None:
    server = [ListPage((_info("a"),), ("b/",)), ListPage((_info("c"),), ("b/",))]
    assert list(regroup(server, 10)) == [ListPage((_info("a"), _info("c")), ("b/",))]
