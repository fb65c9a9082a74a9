"""The driver's dead-letter step: each batch's skipped records go to the dead-letter topic before
the batch is committed, once.

The letters not sent yet go in one transaction with the batch's new marks
(:mod:`lakesink.domain.dead_letters` decides which), so a batch redone after a crash sends none twice.
See docs/sink.md, "Dead-letter queue" ("Once, relative to the commit").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.dead_letters import sent_marks, unsent
from lakesink.domain.ports import DeadLetterQueue
from lakesink.domain.records import TopicPartition


class DeadLetterStep:
    """One sink run's dead-letter queue and what its committed marks say was sent."""

    def __init__(self, queue: DeadLetterQueue, partitions: Iterable[TopicPartition]) -> None:
        self._queue = queue
        self._sent = queue.sent(partitions)

    def before_commit(self, results: Sequence[RangeResult], ends: Mapping[TopicPartition, int]) -> int:
        """Send the batch's dead letters not sent yet, with ``ends`` (what the batch commits) as the
        new marks; returns how many were sent.

        Raises:
            LakesinkError: the transaction failed or was fenced; the batch must not be committed.
        """
        letters = unsent((letter for result in results for letter in result.dead_letters), self._sent)
        if not letters:
            return 0
        # never back: a replay cut differently (at-least-once has no forced replay) may end lower
        marks = {where: max(mark, self._sent.get(where, 0)) for where, mark in sent_marks(ends).items()}
        self._queue.send(letters, marks)
        self._sent.update(marks)
        return len(letters)

    def close(self) -> None:
        """Release the queue's clients."""
        self._queue.close()
