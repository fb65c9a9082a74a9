"""Kafka Connect's dead-letter queue: what a record that could not be written becomes, and which
dead letters a batch still has to send.

A skipped record is kept as a :class:`DeadLetter`; the driver sends a batch's dead letters in one
transaction that also commits the batch's offsets for a group of its own (:func:`sent_marks`), so
a redone batch drops those already sent (:func:`unsent`). See docs/sink.md, "Dead-letter queue".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from lakesink.domain.records import TopicPartition

HEADER_PREFIX = "__connect.errors."
"""Kafka Connect's prefix of the error context headers (``DeadLetterQueueReporter``)."""


class Stage(Enum):
    """The step of Kafka Connect's pipeline that failed, by Connect's names (the ``stage`` header)."""

    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    TRANSFORMATION = "TRANSFORMATION"
    TASK_PUT = "TASK_PUT"


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """One record that could not be converted or written, as read from Kafka, and why.

    ``class_name`` is what ran the failing stage (a converter's Connect class, the transform
    chain, the writer); ``error_class`` / ``error_message`` / ``stacktrace`` describe the error.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    stage: Stage
    class_name: str
    error_class: str
    error_message: str
    stacktrace: str = ""

    @property
    def source(self) -> TopicPartition:
        return (self.topic, self.partition)

    def context_headers(self, connector: str, task_id: int) -> tuple[tuple[str, bytes], ...]:
        """Kafka Connect's error context headers (``errors.deadletterqueue.context.headers.enable``),
        in Connect's order, every value a UTF-8 string as Connect writes them (numbers as decimal text)."""
        pairs = [
            ("topic", self.topic),
            ("partition", str(self.partition)),
            ("offset", str(self.offset)),
            ("connector.name", connector),
            ("task.id", str(task_id)),
            ("stage", self.stage.value),
            ("class.name", self.class_name),
            ("exception.class.name", self.error_class),
            ("exception.message", self.error_message),
        ]
        if self.stacktrace:
            pairs.append(("exception.stacktrace", self.stacktrace))
        return tuple((HEADER_PREFIX + name, text.encode("utf-8")) for name, text in pairs)

    def log_line(self, task: str, *, include_record: bool) -> str:
        """Kafka Connect's ``errors.log.enable`` line (``LogReporter``); the record's coordinates and
        timestamp only with ``errors.log.include.messages`` (Connect never logs a sink record's data)."""
        where = ""
        if include_record:
            stamp = (
                "" if self.timestamp is None else f", timestamp={self.timestamp}, timestampType=CreateTime"
            )
            where = (
                f", where consumed record is {{topic='{self.topic}', partition={self.partition}, "
                f"offset={self.offset}{stamp}}}"
            )
        return (
            f"Error encountered in task {task}. Executing stage '{self.stage.value}' with class "
            f"'{self.class_name}'{where}: {self.error_class}: {self.error_message}"
        )


def unsent(letters: Iterable[DeadLetter], sent: Mapping[TopicPartition, int]) -> list[DeadLetter]:
    """The dead letters still to send, in source order, each once.

    ``sent`` holds per source partition the next offset not covered by a committed dead-letter
    transaction (the dead-letter group's committed offsets): a letter below it was sent by the
    transaction of an earlier attempt of its batch.
    """
    chosen: dict[tuple[str, int, int], DeadLetter] = {}
    for letter in letters:
        if letter.offset >= sent.get(letter.source, 0):
            chosen.setdefault((letter.topic, letter.partition, letter.offset), letter)
    return [chosen[where] for where in sorted(chosen)]


def sent_marks(ends: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
    """The dead-letter group's offsets once a batch that commits ``ends`` (the last offset per
    partition) sent its letters: the next offset, as a consumer group stores it."""
    return {where: last + 1 for where, last in ends.items()}
