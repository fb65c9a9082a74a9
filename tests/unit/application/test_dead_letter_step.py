"""The driver's dead-letter step: what it sends before a commit, with which marks, and when nothing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lakesink.application.dead_letter_step import DeadLetterStep
from lakesink.domain.commit.range_results import RangeResult
from lakesink.domain.dead_letters import DeadLetter, Stage
from lakesink.domain.records import TopicPartition

P0: TopicPartition = ("t", 0)


class RecordingQueue:
    """A dead-letter queue that keeps each transaction and commits its marks (test fake)."""

    def __init__(self, committed: Mapping[TopicPartition, int] | None = None) -> None:
        self.committed = dict(committed or {})
        self.transactions: list[tuple[list[int], dict[TopicPartition, int]]] = []

    def sent(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {where: self.committed[where] for where in partitions if where in self.committed}

    def send(self, letters: Sequence[DeadLetter], marks: Mapping[TopicPartition, int]) -> None:
        self.transactions.append(([letter.offset for letter in letters], dict(marks)))
        self.committed.update(marks)

    def close(self) -> None:
        pass


def result(first: int, last: int, *poison: int) -> RangeResult:
    letters = tuple(
        DeadLetter("t", 0, o, None, None, b"x", (), Stage.VALUE_CONVERTER, "c", "e", "m") for o in poison
    )
    return RangeResult("t", 0, first=first, last=last, dead_letters=letters)


def test_a_batch_sends_its_letters_with_the_next_offsets_it_commits() -> None:
    queue = RecordingQueue()
    step = DeadLetterStep(queue, [P0])
    assert step.before_commit([result(0, 9, 3, 7)], {P0: 9}) == 2
    assert queue.transactions == [([3, 7], {P0: 10})]


def test_a_batch_without_dead_letters_sends_no_transaction() -> None:
    queue = RecordingQueue()
    assert DeadLetterStep(queue, [P0]).before_commit([result(0, 9)], {P0: 9}) == 0
    assert queue.transactions == []


def test_a_restart_that_redoes_a_sent_batch_sends_nothing_again() -> None:
    queue = RecordingQueue()
    DeadLetterStep(queue, [P0]).before_commit([result(0, 9, 3)], {P0: 9})  # then the run dies
    redo = DeadLetterStep(queue, [P0])
    assert redo.before_commit([result(0, 9, 3)], {P0: 9}) == 0
    assert redo.before_commit([result(10, 19, 12)], {P0: 19}) == 1
    assert queue.transactions[-1] == ([12], {P0: 20})


def test_marks_never_move_back() -> None:
    queue = RecordingQueue({P0: 30})
    step = DeadLetterStep(queue, [P0])
    assert step.before_commit([result(0, 40, 25, 35)], {P0: 20}) == 1
    assert queue.transactions == [([35], {P0: 30})]
