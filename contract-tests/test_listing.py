"""Listings are complete, in key order, paginated lazily, and honour delimiter and start_after."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from backends import Harness, Target

from lakesink.domain.ports import ListPage, iter_objects

MANY = 1100  # more than one S3/Azure server page of 1000


def _keys(pages: list[ListPage]) -> list[str]:
    return [o.key for page in pages for o in page.objects]


@pytest.fixture(scope="module")
def crowded(harness: Harness) -> Target:
    """A bucket holding MANY small objects, written once per backend with parallel puts."""
    crowded_target = harness.new_target()
    names = [f"many/{i:05d}" for i in range(MANY)]
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda n: crowded_target.store.put(crowded_target.bucket, crowded_target.key(n), b"x"), names))
    return crowded_target


def test_listing_more_than_a_thousand_keys_returns_all_of_them_in_order(crowded: Target) -> None:
    keys = [o.key for o in iter_objects(crowded.store, crowded.bucket, crowded.key("many/"))]
    assert keys == [crowded.key(f"many/{i:05d}") for i in range(MANY)]


def test_listing_pages_hold_at_most_page_size_entries_and_cover_everything(crowded: Target) -> None:
    pages = list(crowded.store.list_pages(crowded.bucket, crowded.key("many/"), page_size=250))
    assert [len(p.objects) for p in pages] == [250, 250, 250, 250, 100]
    assert _keys(pages) == [crowded.key(f"many/{i:05d}") for i in range(MANY)]


def test_start_after_skips_every_key_up_to_and_including_it(crowded: Target) -> None:
    keys = [o.key for o in iter_objects(crowded.store, crowded.bucket, crowded.key("many/"),
                                        start_after=crowded.key("many/01049"))]
    assert keys == [crowded.key(f"many/{i:05d}") for i in range(1050, MANY)]


def test_delete_many_removes_more_than_a_thousand_keys(crowded: Target) -> None:
    crowded.store.delete_many(crowded.bucket, [crowded.key(f"many/{i:05d}") for i in range(0, MANY, 2)])
    keys = [o.key for o in iter_objects(crowded.store, crowded.bucket, crowded.key("many/"))]
    assert keys == [crowded.key(f"many/{i:05d}") for i in range(1, MANY, 2)]


def _populate(target: Target, *names: str) -> None:
    for name in names:
        target.store.put(target.bucket, target.key(name), b"x")


def test_listing_uses_byte_order_and_filters_by_prefix(target: Target) -> None:
    _populate(target, "b", "a/2", "a-1", "a/1", "ab", "c/1", "é")
    keys = _keys(list(target.store.list_pages(target.bucket, target.key("a"))))
    assert keys == [target.key(k) for k in ("a-1", "a/1", "a/2", "ab")]
    everything = _keys(list(target.store.list_pages(target.bucket, target.prefix)))
    assert everything == [target.key(k) for k in ("a-1", "a/1", "a/2", "ab", "b", "c/1", "é")]


def test_listing_an_empty_prefix_yields_no_objects(target: Target) -> None:
    _populate(target, "x/1")
    assert _keys(list(target.store.list_pages(target.bucket, target.key("nothing-here/")))) == []


def test_delimiter_rolls_deeper_keys_up_into_common_prefixes(target: Target) -> None:
    _populate(target, "t/p=0/1", "t/p=0/2", "t/p=1/1", "t/top", "t/p=2/x/y")
    pages = list(target.store.list_pages(target.bucket, target.key("t/"), delimiter="/"))
    assert _keys(pages) == [target.key("t/top")]
    assert [p for page in pages for p in page.prefixes] == [target.key(f"t/p={i}/") for i in range(3)]


def test_delimiter_listing_with_small_pages_keeps_every_prefix_once_in_order(target: Target) -> None:
    _populate(target, *(f"d/{i}/obj" for i in range(7)), "d/file")
    pages = list(target.store.list_pages(target.bucket, target.key("d/"), delimiter="/", page_size=2))
    assert all(len(p.objects) + len(p.prefixes) <= 2 for p in pages)
    assert [p for page in pages for p in page.prefixes] == [target.key(f"d/{i}/") for i in range(7)]
    assert _keys(pages) == [target.key("d/file")]


def test_start_after_with_delimiter_lists_prefixes_that_still_hold_later_keys(target: Target) -> None:
    _populate(target, "s/a/1", "s/a/2", "s/b/1", "s/c")
    pages = list(target.store.list_pages(target.bucket, target.key("s/"), delimiter="/",
                                         start_after=target.key("s/a/1")))
    assert [p for page in pages for p in page.prefixes] == [target.key("s/a/"), target.key("s/b/")]
    assert _keys(pages) == [target.key("s/c")]
    later = list(target.store.list_pages(target.bucket, target.key("s/"), delimiter="/",
                                         start_after=target.key("s/a/2")))
    assert [p for page in later for p in page.prefixes] == [target.key("s/b/")]


def test_listings_and_heads_say_when_each_object_was_written(target: Target) -> None:
    """``lakesink table clean`` keeps what is younger than its grace period by these times (the
    store's clock: every backend here runs on this machine, so within a minute of ours)."""
    before = time.time() * 1000 - 60_000
    _populate(target, "stamped/a", "stamped/b")
    after = time.time() * 1000 + 60_000
    listed = [o.modified_ms for o in iter_objects(target.store, target.bucket, target.key("stamped/"))]
    headed = target.store.head(target.bucket, target.key("stamped/a")).modified_ms
    assert all(stamp is not None and before <= stamp <= after for stamp in [*listed, headed]), (listed, headed)
