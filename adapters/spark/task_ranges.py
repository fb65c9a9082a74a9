"""A sink task's state per topic-partition range: where its records go (the statement, the writer, what
to decode), what it wrote, skipped and kept as dead letters, and the range the task is working on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lakesink.adapters.dialects.file_set import FileSet
from lakesink.adapters.dialects.registry import dialect_files
from lakesink.adapters.formats.range_writer import RangeWriter
from lakesink.adapters.formats.record_decoding import headers_decoded, key_needed, raw_value_passthrough
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.domain.commit.lock_keys import granular_partition_key
from lakesink.domain.commit.range_results import RangeFailure, RangeResult
from lakesink.domain.dead_letters import DeadLetter
from lakesink.domain.errors import LakesinkError
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan, StatementPlan


@dataclass(frozen=True)
class Route:
    """Where the records of one topic-partition go, resolved once per range instead of per record.

    ``values`` are the partition values of every record of the range when the layout reads only
    topic and partition (default layout, NOPARTITION, ``_topic``/``_partition``), else None.
    """

    writer: FileSet
    statement: StatementPlan
    decode_key: bool
    decode_value: bool
    values: PartitionValues | None
    decode_headers: bool = True


@dataclass
class RangeState:
    """The state of one topic-partition range inside a task.

    ``floor`` is the offset at or below which records are already durable; ``locks`` are the
    range's Lenses granular locks (writer name → offset), empty when it has none. ``route`` is
    where the range's records go; ``routed`` holds the routes of the topics a router transform
    renamed them to (the statement, writer and object keys follow the new topic, as in Connect;
    the range's index entry stays under the topic read).
    """

    topic: str
    partition: int
    floor: int | None = None
    locks: Mapping[str, int] = field(default_factory=dict)
    writers: dict[tuple[int, str], RangeWriter] = field(default_factory=dict)
    dialect_files: FileSet | None = None
    """The range's files under a Kafka Connect dialect's config (:func:`~.file_set.dialect_files`)."""
    route: Route | None = None
    routed: dict[str, Route] = field(default_factory=dict)
    first: int = -1
    last: int = -1
    records: int = 0
    skipped: int = 0
    poison: int = 0
    dead_letters: list[DeadLetter] = field(default_factory=list)

    def writer(
        self, index: int, statement: StatementPlan, root: Path, topic: str | None = None
    ) -> RangeWriter:
        """The writer of statement ``index`` for records of ``topic`` (default: the range's), created on first use."""
        topic = topic or self.topic
        writer = self.writers.get((index, topic))
        if writer is None:
            writer = self.writers[index, topic] = RangeWriter(statement, topic, self.partition, root)
        return writer

    def _files(self, index: int, statement: StatementPlan, spec: SinkTaskSpec, root: Path, topic: str) -> FileSet:
        if statement.writing is None:
            return self.writer(index, statement, root, topic)
        if self.dialect_files is None:
            self.dialect_files = dialect_files(statement.writing, statement.bucket, self.partition, root, spec.clock_ms)
        return self.dialect_files

    def all_writers(self) -> list[FileSet]:
        """Every file set of the range."""
        return [*self.writers.values(), *([self.dialect_files] if self.dialect_files is not None else [])]

    def replay_start(self) -> int:
        """Where the range's plan starts (its file sets' word, :meth:`~.file_set.FileSet.replay_start`)."""
        return min((files.replay_start(self.first) for files in self.all_writers()), default=self.first)

    def durable_end(self) -> int:
        """The last offset the range's rolled files make durable."""
        return min((files.durable_end(self.last) for files in self.all_writers()), default=self.last)

    def held(self) -> int:
        """Records the range read but left for the next range (an open Confluent cycle)."""
        return sum(files.held for files in self.all_writers())

    def resolve(self, spec: SinkTaskSpec, root: Path) -> Route:
        """The range's route, kept for its next records.

        Raises:
            RecordError: no statement takes the topic (asked again for each record, so each is
                reported or skipped as poison).
        """
        self.route = self._route(spec, root, self.topic)
        return self.route

    def resolve_routed(self, spec: SinkTaskSpec, root: Path, topic: str) -> Route:
        """The route of records a transform sent to ``topic``, kept for the next ones."""
        route = self.routed.get(topic)
        if route is None:
            route = self.routed[topic] = self._route(spec, root, topic)
        return route

    def _route(self, spec: SinkTaskSpec, root: Path, topic: str) -> Route:
        index = statement_index(spec.plan, topic)
        statement = spec.plan.statements[index]
        return Route(
            self._files(index, statement, spec, root, topic),
            statement,
            decode_key=key_needed(statement),
            decode_value=not raw_value_passthrough(statement, spec.value_converter),
            values=statement.layout.coordinate_values(topic, self.partition),
            decode_headers=headers_decoded(statement),
        )


class TaskRanges(dict[TopicPartition, RangeState]):
    """The task's ranges by topic-partition, and the one being worked on (where an error is reported)."""

    current: RangeState | None = None

    def enter(self, state: RangeState) -> RangeState:
        self.current = state
        return state

    def failed(self, error: LakesinkError) -> RangeResult:
        """The result row of the range the task was working on when ``error`` stopped it."""
        state = self.current
        return RangeResult(
            topic=state.topic if state else "",
            partition=state.partition if state else -1,
            last=state.last if state else -1,
            failure=RangeFailure.of(error),
        )


def range_of(spec: SinkTaskSpec, ranges: TaskRanges, topic: str, partition: int) -> RangeState:
    where = (topic, partition)
    state = ranges.get(where)
    if state is None:
        locks = spec.granular.get(where) or {}
        state = ranges[where] = RangeState(topic, partition, spec.floors.get(where), locks)
    return ranges.enter(state)


def statement_index(plan: SinkPlan, topic: str) -> int:
    chosen = plan.route(topic)
    return plan.statements.index(chosen)


def granular_skip(locks: Mapping[str, int], offset: int, values: PartitionValues) -> bool:
    """Whether a Lenses granular lock says this writer already stored the record."""
    name = granular_partition_key(dict(values))
    held = locks.get(name) if name is not None else None
    return held is not None and offset <= held
