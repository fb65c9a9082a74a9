"""Where a batch's records start after a resume, and how they are cut into transactions.

A transaction holds at most LIMIT records (of one big object, or of several small ones) and
commits when it is full. A batch is therefore cut into slices: the first one fills what room
the open transaction has left, each further one a whole new transaction.
"""

from __future__ import annotations


def resume_at(skip: int, read: int, size: int) -> int:
    """The first row of a batch of ``size`` rows to deliver.

    ``skip``: the object's leading records already delivered; ``read``: the object's records in
    the batches before this one. A batch wholly before the resume point gives ``size`` (nothing).
    """
    return min(max(skip - read, 0), size)


def transaction_slices(start: int, size: int, in_transaction: int, limit: int) -> list[tuple[int, int]]:
    """Rows ``[start, size)`` of a batch as ``(start, stop)`` runs, each filling a transaction up to ``limit``.

    ``in_transaction``: records already in the open transaction (below ``limit``). Every slice
    but the last ends with a full transaction; the last may leave it open for the next batch.

    Raises:
        ValueError: ``limit`` is below 1 or the open transaction is already full.
    """
    if limit < 1 or in_transaction >= limit:
        raise ValueError(f"no room in a transaction of {in_transaction} records, limit {limit}")
    slices = []
    room = limit - in_transaction
    while start < size:
        stop = min(size, start + room)
        slices.append((start, stop))
        start, room = stop, limit
    return slices
