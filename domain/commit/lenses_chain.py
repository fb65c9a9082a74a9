"""Finishing a commit chain Lenses left in a lock: upload → copy → delete.

Lenses commits a file in three steps recorded in the lock's ``pendingState`` (upload to a temporary
key, copy to the final key with If-Match on the upload's etag, delete the temporary object), the
lock rewritten after each. A task that crashed mid-chain leaves the rest in the lock, to be finished
before its committed offset can be trusted. lakesink never starts such a chain but finishes those
it finds, so a bucket moves from Lenses without losing or duplicating a file. See docs/commit-model.md.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from lakesink.domain.commit.actions import Copy, Delete, Head, HeldLock, Steps
from lakesink.domain.commit.lock_writes import write_lock
from lakesink.domain.commit.locks import CopyOp, DeleteOp, IndexLock, PendingOperation, PendingState, UploadOp
from lakesink.domain.errors import CommitError, ObjectNotFoundError, StorageError

logger = logging.getLogger(__name__)


def replay_chain(held: HeldLock) -> Steps[HeldLock]:
    """Finish the chain ``held`` records, rewriting the lock after each step.

    * An ``upload`` step names a staging file of the crashed process, which is gone: the pending
      state is cleared (the old committed offset stands; Kafka delivers those records again).
    * A ``copy`` whose temporary object is gone is done when the final object exists (it was
      copied before the crash); otherwise, like any failed step, the run stops and the lock
      keeps the remaining steps for the next attempt.

    Raises:
        CommitError: a step failed; the message names the lock.
    """
    while (pending := held.lock.pending) is not None:
        head = pending.operations[0]
        if isinstance(head, UploadOp):
            logger.warning("Abandoning the pending upload in %s: its staging file is gone", held.ref.key)
            return (yield from write_lock(held.ref, held, replace(held.lock, pending=None)))
        try:
            produced = yield from _step(head)
        except StorageError as error:
            raise CommitError(
                f"Cannot finish the pending commit recorded in {held.ref.bucket}/{held.ref.key}: {error}"
            ) from error
        held = yield from write_lock(held.ref, held, _after_step(pending, held.lock, produced))
        logger.info("Replayed %s from %s", type(head).__name__, held.ref.key)
    return held


def _step(op: CopyOp | DeleteOp) -> Steps[str | None]:
    if isinstance(op, DeleteOp):  # its etag is recorded but not enforced (as Lenses on S3)
        yield Delete(op.bucket, op.source)
        return None
    try:
        return (yield Copy(op.bucket, op.source, op.destination, if_match=op.etag))
    except ObjectNotFoundError:
        yield Head(op.bucket, op.destination)  # copied before the crash, else ObjectNotFoundError
        return None


def _after_step(pending: PendingState, lock: IndexLock, produced_etag: str | None) -> IndexLock:
    """The lock once the first step of its ``pending`` chain succeeded.

    An etag the step produced replaces the etag of the remaining steps. After the last step the
    pending offset becomes the committed offset and the pending state clears.
    """
    rest = pending.operations[1:]
    if not rest:
        return replace(lock, committed_offset=pending.pending_offset, pending=None)
    if produced_etag is not None:
        rest = tuple(_with_etag(op, produced_etag) for op in rest)
    return replace(lock, pending=PendingState(pending.pending_offset, rest))


def _with_etag(op: PendingOperation, etag: str) -> PendingOperation:
    return op if isinstance(op, UploadOp) else replace(op, etag=etag)
