"""Splitting one topic-partition's offset range into sub-ranges (chunks), each its own Spark task.

A chunk is written like a range of its own, so its bounds decide file boundaries and must be the
same whenever a batch is planned again (:func:`chunk_bounds`). Pure: offsets in, offset pairs out.
See docs/commit-model.md, "Range plans of a split range".
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

Chunk = tuple[int, int]
"""``(start, end)``: the offsets ``[start, end)``."""


def chunk_bounds(start: int, end: int, size: int | None, pinned: Iterable[Chunk] = ()) -> list[Chunk]:
    """The chunks of ``[start, end)``, in offset order; empty when ``end <= start``.

    ``size`` None or 0 means no fixed-size splitting. A pinned chunk is clipped to the range
    (one outside it belongs to another range); pinned chunks are expected not to overlap — if
    they do, each is cut at the other's bounds, and the sink's plan check stops the batch.

    Fixed-size chunks are counted from the start of the range (``[s, s+M)``, ``[s+M, s+2M)``...), a
    pure function of (start, end, size): re-planning the same batch gives the same chunks, and a
    prefix of the range is chunked the same whatever its end. ``pinned`` chunks come out whole
    whatever the size: a restart pins the chunks that already wrote a batch plan, so that they are
    reproduced exactly even if the size changed since; the size applies to each gap between them,
    counted from its start.
    """
    if end <= start:
        return []
    if size is not None and size < 0:
        raise ValueError(f"chunk size must be positive or 0 (off), not {size}")
    kept = [(max(lo, start), min(hi, end)) for lo, hi in pinned if lo < hi and lo < end and hi > start]
    inner = sorted({bound for chunk in kept for bound in chunk if start < bound < end})
    bounds = [start, *inner, end]
    chunks: list[Chunk] = []
    for begin, stop in pairwise(bounds):
        whole = not size or any(lo <= begin and stop <= hi for lo, hi in kept)
        step = stop - begin if whole else size
        chunks.extend((offset, min(offset + step, stop)) for offset in range(begin, stop, step))
    return chunks
