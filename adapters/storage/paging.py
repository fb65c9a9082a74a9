"""Shared listing semantics: roll keys up by a delimiter and cut a key-ordered stream into pages.

Backends whose server cannot express a listing exactly (no ``start_after``, a delimiter combined
with ``start_after`` that emulators answer differently from the cloud, or no server at all) list
flat and let these helpers produce the port's semantics: keys ``<= start_after`` are skipped first,
then keys that contain the delimiter after the prefix collapse into one common prefix, listed once
at the position of its first remaining key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from lakesink.domain.ports import ListPage, ObjectInfo

T = TypeVar("T")


class CommonPrefix(str):
    """A rolled-up prefix in a listing stream (a ``str`` subclass so it can never pass for a key)."""

    __slots__ = ()


def check_page_size(page_size: int) -> None:
    """Reject page sizes no backend accepts (S3, GCS and Azure all cap a page at 1000..5000)."""
    if not 1 <= page_size <= 1000:
        raise ValueError(f"page_size must be between 1 and 1000, got {page_size}")


def roll_up(
    items: Iterable[T],
    key_of: Callable[[T], str],
    prefix: str,
    delimiter: str | None,
    start_after: str | None,
) -> Iterator[T | CommonPrefix]:
    """Filter a key-ordered stream and collapse it by ``delimiter``.

    ``items`` can be bare keys or richer objects (``key_of`` extracts the key), so a backend can
    roll up before paying for per-object metadata.
    """
    last_prefix: str | None = None
    for item in items:
        key = key_of(item)
        if not key.startswith(prefix) or (start_after is not None and key <= start_after):
            continue
        if delimiter:
            cut = key.find(delimiter, len(prefix))
            if cut >= 0:
                common = CommonPrefix(key[: cut + len(delimiter)])
                if common != last_prefix:
                    last_prefix = common
                    yield common
                continue
        yield item


def paginate(entries: Iterable[ObjectInfo | CommonPrefix], page_size: int) -> Iterator[ListPage]:
    """Group entries into pages of at most ``page_size`` (objects and prefixes together)."""
    objects: list[ObjectInfo] = []
    prefixes: list[str] = []
    for entry in entries:
        if isinstance(entry, CommonPrefix):
            prefixes.append(str(entry))
        else:
            objects.append(entry)
        if len(objects) + len(prefixes) >= page_size:
            yield ListPage(tuple(objects), tuple(prefixes))
            objects, prefixes = [], []
    if objects or prefixes:
        yield ListPage(tuple(objects), tuple(prefixes))


def regroup(pages: Iterable[ListPage], page_size: int) -> Iterator[ListPage]:
    """Re-cut server pages so each holds at most ``page_size`` entries, prefixes included.

    GCS and Azure count only objects against their page size and may repeat a prefix on the next
    page; this merges each page's objects and prefixes back into key order, drops repeats and
    re-pages, so every backend pages the way S3 does.
    """

    def entries() -> Iterator[ObjectInfo | CommonPrefix]:
        last_prefix: str | None = None
        for page in pages:
            merged: list[ObjectInfo | CommonPrefix] = [*page.objects, *map(CommonPrefix, page.prefixes)]
            merged.sort(key=lambda e: e if isinstance(e, CommonPrefix) else e.key)
            for entry in merged:
                if isinstance(entry, CommonPrefix):
                    if entry == last_prefix:
                        continue
                    last_prefix = entry
                yield entry

    return paginate(entries(), page_size)


def rolled_up_client_side(
    server_pages: Iterable[ListPage], prefix: str, delimiter: str, start_after: str, page_size: int
) -> Iterator[ListPage]:
    """Pages of a delimiter listing with ``start_after``, rolled up here from a flat server listing.

    Servers and emulators disagree on which common prefixes sort before ``start_after``; listing
    flat (already starting after it) and rolling up client-side gives the port's semantics everywhere.
    """
    flat = (info for page in server_pages for info in page.objects)
    return paginate(roll_up(flat, lambda info: info.key, prefix, delimiter, start_after), page_size)


def delete_each(delete: Callable[[str], None], keys: Iterable[str], *, threads: int = 8) -> None:
    """Delete keys one by one on a small thread pool, for backends without a batch delete call.

    Errors propagate: the first failing delete is re-raised once the pool drains.
    """
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(delete, keys):
            pass
