"""The driver-side planning of the Kafka source: the --once path and the stream reader plan alike.

Each case runs the same options over the same fake broker twice: through the planner's
``available_now()`` (what ``lakesink sink --once`` runs) and through the stream reader's calls in
the order Spark makes them under ``Trigger.AvailableNow``; both must give the expected batches.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterable

import pytest

from lakesink.adapters.kafka.batch_planner import BatchPlanner
from lakesink.adapters.kafka.offsets import KafkaDataLossError, TopicPartitionKey
from lakesink.adapters.kafka.source import KafkaStreamReader
from lakesink.adapters.kafka.source_options import SourceOptions
from lakesink.domain.flush.admission import AdmitMode
from lakesink.domain.subscription import TopicSelection
from tests.support.planned_ranges import planned_ranges

Batches = list[list[str]]


class FakeBroker:
    """Topic-partitions with low and high watermarks; a test moves them as producers would."""

    def __init__(self, watermarks: dict[TopicPartitionKey, tuple[int, int]]) -> None:
        self.watermarks = dict(watermarks)
        self.closed = False

    def partitions(self, selection: TopicSelection) -> list[TopicPartitionKey]:
        return sorted(key for key in self.watermarks if selection.selects(key))

    def earliest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        return {key: self.watermarks[key][0] for key in keys}

    def latest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        return {key: self.watermarks[key][1] for key in keys}

    def close(self) -> None:
        self.closed = True


def _options(**options: str) -> SourceOptions:
    return SourceOptions.parse({"kafka.bootstrap.servers": "unused:1", "subscribe": "t", "startingOffsets": "earliest", **options})


def _planned_once(options: SourceOptions, broker: FakeBroker) -> Batches:
    planner = BatchPlanner(options, broker)
    return [[r.describe() for r in planner.ranges(start, end)] for start, end in planner.available_now()]


def _planned_by_spark(options: SourceOptions, broker: FakeBroker) -> Batches:
    """The stream reader driven as Spark drives it under Trigger.AvailableNow without a checkpoint."""
    reader = KafkaStreamReader(options, metadata=broker)
    reader.prepareForTriggerAvailableNow()
    start = reader.initialOffset()
    batches = []
    while (end := reader.latestOffset(start, reader.getDefaultReadLimit())) != start:
        batches.append([r.describe() for r in planned_ranges(reader, start, end)])
        start = end
    return batches


def _both(options: SourceOptions, watermarks: dict[TopicPartitionKey, tuple[int, int]]) -> Batches:
    once = _planned_once(options, FakeBroker(watermarks))
    assert once == _planned_by_spark(options, FakeBroker(watermarks))
    return once


def test_a_fresh_start_drains_every_partition_in_one_batch() -> None:
    batches = _both(_options(**{"flush.count": "1000", "flush.interval": "60"}), {("t", 0): (0, 5), ("t", 1): (2, 3)})

    assert batches == [["t-0[0, 5)", "t-1[2, 3)"]]


def test_a_restart_with_pending_plans_replays_the_planned_batch_with_its_chunks_then_reads_the_rest() -> None:
    options = _options(
        maxRangeOffsets="5",
        startingOffsets='{"t": {"0": 0, "1": 0}}',
        firstBatchEndOffsets='{"t": {"0": 32}}',
        firstBatchChunks='{"t": {"0": [[9, 16], [24, 32]]}}',
    )

    batches = _both(options, {("t", 0): (0, 40), ("t", 1): (0, 3)})

    assert batches == [
        ["t-0[0, 5)", "t-0[5, 9)", "t-0[9, 16)", "t-0[16, 21)", "t-0[21, 24)", "t-0[24, 32)"],
        ["t-0[32, 37)", "t-0[37, 40)", "t-1[0, 3)"],
    ]


def test_a_forced_end_already_reached_is_not_replayed() -> None:
    options = _options(startingOffsets='{"t": {"0": 32}}', firstBatchEndOffsets='{"t": {"0": 32}}')

    assert _both(options, {("t", 0): (0, 40)}) == [["t-0[32, 40)"]]


def test_the_cap_spreads_a_backlog_over_batches() -> None:
    batches = _both(_options(maxRecordsPerPartition="3"), {("t", 2): (0, 7)})

    assert batches == [["t-2[0, 3)"], ["t-2[3, 6)"], ["t-2[6, 7)"]]


def test_a_backlog_is_split_into_fixed_size_chunks_counted_from_the_range_start() -> None:
    batches = _both(_options(maxRangeOffsets="10"), {("t", 1): (3, 28)})

    assert batches == [["t-1[3, 13)", "t-1[13, 23)", "t-1[23, 28)"]]


def test_partitions_with_nothing_to_read_get_no_range() -> None:
    options = _options(startingOffsets='{"t": {"1": 4}}')

    batches = _both(options, {("t", 0): (5, 5), ("t", 1): (0, 4), ("t", 2): (0, 2), ("other", 0): (0, 9)})

    assert batches == [["t-2[0, 2)"]]


def test_an_empty_topic_plans_no_batch() -> None:
    assert _both(_options(), {("t", 0): (0, 0), ("t", 1): (0, 0)}) == []


def test_records_produced_after_the_drain_started_are_left_for_the_next_run() -> None:
    broker = FakeBroker({("t", 0): (0, 3)})
    planner = BatchPlanner(_options(maxRecordsPerPartition="2"), broker)
    batches = planner.available_now()

    first = next(batches)
    broker.watermarks[("t", 0)] = (0, 9)

    assert [first, *batches] == [({("t", 0): 0}, {("t", 0): 2}), ({("t", 0): 2}, {("t", 0): 3})]


def test_a_partition_that_appears_during_a_stream_is_registered_then_read_from_its_start() -> None:
    broker = FakeBroker({("t", 0): (0, 2)})
    planner = BatchPlanner(_options(), broker)
    start = planner.start()
    broker.watermarks[("t", 1)] = (1, 4)

    registered = planner.next_end(start, AdmitMode.POLICY)
    end = planner.next_end(registered, AdmitMode.POLICY)

    assert planner.ranges(start, registered)[0].describe() == "t-0[0, 2)"
    assert registered[("t", 1)] == 1
    assert [r.describe() for r in planner.ranges(registered, end)] == ["t-1[1, 4)"]


def test_a_batch_query_reads_from_starting_to_ending_offsets() -> None:
    options = _options(startingOffsets='{"t": {"0": 2, "1": -2}}', endingOffsets='{"t": {"0": 7, "1": -1}}')
    planner = BatchPlanner(options.for_batch(), FakeBroker({("t", 0): (0, 9), ("t", 1): (1, 4)}))

    assert planner.bounds() == ({("t", 0): 2, ("t", 1): 1}, {("t", 0): 7, ("t", 1): 4})


def test_a_batch_query_defaults_to_earliest_through_latest() -> None:
    options = SourceOptions.parse({"kafka.bootstrap.servers": "unused:1", "subscribe": "t"}).for_batch()
    planner = BatchPlanner(options, FakeBroker({("t", 0): (3, 9)}))

    assert planner.bounds() == ({("t", 0): 3}, {("t", 0): 9})


def test_a_stream_defaults_to_latest_and_reads_partitions_that_appear_later_from_earliest() -> None:
    options = SourceOptions.parse({"kafka.bootstrap.servers": "unused:1", "subscribe": "t"}).for_stream()
    broker = FakeBroker({("t", 0): (3, 9)})
    planner = BatchPlanner(options, broker)

    start = planner.start()
    broker.watermarks.update({("t", 0): (3, 12), ("t", 1): (2, 5)})
    registered = planner.next_end(start, AdmitMode.POLICY)

    assert start == {("t", 0): 9}
    assert registered == {("t", 0): 12, ("t", 1): 2}
    assert [r.describe() for r in planner.ranges(start, registered)] == ["t-0[9, 12)"]


def test_max_offsets_per_trigger_splits_each_batch_in_proportion_to_what_each_partition_has() -> None:
    batches = _both(_options(maxOffsetsPerTrigger="10"), {("t", 0): (0, 30), ("t", 1): (0, 10), ("t", 2): (0, 1)})

    assert batches[0] == ["t-0[0, 7)", "t-1[0, 2)", "t-2[0, 1)"]
    assert sum(len(b) for b in batches) >= 4  # the rest comes in later batches, about 10 offsets each


def test_min_partitions_splits_the_largest_ranges_of_a_batch() -> None:
    planner = BatchPlanner(_options(minPartitions="4").for_batch(), FakeBroker({("t", 0): (0, 30), ("t", 1): (0, 10)}))

    assert [r.describe() for r in planner.ranges(*planner.bounds())] == [
        "t-0[0, 10)", "t-0[10, 20)", "t-0[20, 30)", "t-1[0, 10)"
    ]


def test_max_records_per_partition_also_splits_the_ranges_of_a_batch_read_as_spark_does() -> None:
    planner = BatchPlanner(_options(maxRecordsPerPartition="4").for_batch(), FakeBroker({("t", 0): (0, 10)}))

    assert [r.describe() for r in planner.ranges(*planner.bounds())] == ["t-0[0, 4)", "t-0[4, 8)", "t-0[8, 10)"]


def test_assign_reads_only_the_named_partitions() -> None:
    options = SourceOptions.parse({"kafka.bootstrap.servers": "unused:1", "assign": '{"t": [1]}'}).for_batch()
    planner = BatchPlanner(options, FakeBroker({("t", 0): (0, 5), ("t", 1): (0, 3), ("u", 1): (0, 3)}))

    assert planner.bounds() == ({("t", 1): 0}, {("t", 1): 3})


@pytest.mark.parametrize("offset", [2, 12])
def test_a_starting_offset_outside_what_kafka_holds_is_data_loss_unless_fail_on_data_loss_is_false(
    offset: int,
) -> None:
    broker = FakeBroker({("t", 0): (5, 10)})
    starting = f'{{"t": {{"0": {offset}}}}}'

    with pytest.raises(KafkaDataLossError, match="failOnDataLoss=false"):
        BatchPlanner(_options(startingOffsets=starting), broker).start()
    assert BatchPlanner(_options(startingOffsets=starting, failOnDataLoss="false"), broker).start() == {
        ("t", 0): offset
    }


def test_closing_the_planner_closes_the_broker_connection() -> None:
    broker = FakeBroker({("t", 0): (0, 1)})
    BatchPlanner(_options(), broker).close()

    assert broker.closed


def test_importing_the_source_loads_neither_pyarrow_nor_the_kafka_client() -> None:
    probe = (
        "import sys, json, lakesink.adapters.kafka.source; "
        "print(json.dumps([m for m in ('pyarrow', 'confluent_kafka', 'pandas') if m in sys.modules]))"
    )

    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout

    assert json.loads(loaded) == []


def test_a_partition_whose_latest_offset_fell_below_the_position_read_is_data_loss() -> None:
    broker = FakeBroker({("t", 0): (0, 3)})  # read up to 10, then the topic was deleted and recreated

    with pytest.raises(KafkaDataLossError, match="t-0: the latest offset 3 is below the next offset to read 10"):
        BatchPlanner(_options(), broker).next_end({("t", 0): 10}, AdmitMode.POLICY)
    lenient = BatchPlanner(_options(failOnDataLoss="false"), broker)
    assert lenient.next_end({("t", 0): 10}, AdmitMode.POLICY) == {("t", 0): 10}


class Producing:
    """The planner's clock and its ``wait``: waiting moves time on, and a producer adds records meanwhile."""

    def __init__(self, broker: FakeBroker, per_second: int) -> None:
        self.broker, self.per_second = broker, per_second
        self.now = 0
        self.waits: list[float] = []

    def now_ms(self) -> int:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        before = self.now // 1000
        self.now += round(seconds * 1000)
        for _second in range(self.now // 1000 - before):
            for key, (low, high) in self.broker.watermarks.items():
                self.broker.watermarks[key] = (low, high + self.per_second)
        return False


def test_a_continuous_run_plans_a_batch_each_time_the_flush_interval_runs_out_and_waits_in_between() -> None:
    broker = FakeBroker({("t", 0): (0, 0), ("t", 1): (0, 0)})
    producing = Producing(broker, per_second=10)
    planner = BatchPlanner(_options(**{"flush.count": "1000", "flush.interval": "5"}), broker, producing)

    batches = list(itertools.islice(planner.continuous(poll_s=1.0, wait=producing.wait), 3))

    assert [[r.describe() for r in planner.ranges(start, end)] for start, end in batches] == [
        ["t-0[0, 50)", "t-1[0, 50)"],
        ["t-0[50, 100)", "t-1[50, 100)"],
        ["t-0[100, 150)", "t-1[100, 150)"],
    ]
    assert max(producing.waits) <= 1.0, "new records are looked for at least every poll"
    assert producing.now == 15_000, "each batch starts the moment its interval runs out, not at a later poll"


def test_a_continuous_run_admits_a_partition_as_soon_as_flush_count_records_wait() -> None:
    broker = FakeBroker({("t", 0): (0, 0)})
    producing = Producing(broker, per_second=400)
    planner = BatchPlanner(_options(**{"flush.count": "1000", "flush.interval": "60"}), broker, producing)

    start, end = next(planner.continuous(poll_s=1.0, wait=producing.wait))

    assert (start, end) == ({("t", 0): 0}, {("t", 0): 1200}), "found at the first poll with 1000 waiting"
    assert producing.now == 3_000


def test_a_continuous_run_does_not_hand_over_a_batch_that_only_registers_a_new_partition() -> None:
    broker = FakeBroker({("t", 0): (0, 4)})
    producing = Producing(broker, per_second=0)
    planner = BatchPlanner(_options(), broker, producing)
    batches = planner.continuous(poll_s=1.0, wait=producing.wait)

    assert next(batches) == ({("t", 0): 0}, {("t", 0): 4})
    broker.watermarks[("t", 1)] = (0, 3)  # a partition added while the first batch ran

    assert next(batches) == ({("t", 0): 4, ("t", 1): 0}, {("t", 0): 4, ("t", 1): 3})


def test_a_continuous_run_ends_when_its_wait_says_stop_and_tells_where_it_stopped() -> None:
    broker = FakeBroker({("t", 0): (0, 4)})
    planner = BatchPlanner(_options(), broker)
    waits: list[float] = []
    batches = planner.continuous(poll_s=1.0, wait=lambda seconds: waits.append(seconds) is None)

    assert next(batches) == ({("t", 0): 0}, {("t", 0): 4})
    assert planner.position == {("t", 0): 4}, "the next batch starts after the one handed over"
    assert list(batches) == [] and waits == [1.0], "nothing new: one wait, which says stop"


class UnansweringBroker(FakeBroker):
    """Answers the first ListOffsets (the run's start), refuses the next ``failures`` (an outage), then answers."""

    def __init__(self, watermarks: dict[TopicPartitionKey, tuple[int, int]], failures: int) -> None:
        super().__init__(watermarks)
        self.failures = failures
        self.started = False

    def latest(self, keys: Iterable[TopicPartitionKey]) -> dict[TopicPartitionKey, int]:
        if self.started and self.failures:
            self.failures -= 1
            raise ConnectionError("ListOffsets failed for t-0: Local: Broker transport failure")
        self.started = True
        return super().latest(keys)


def test_a_continuous_run_waits_out_a_cluster_that_does_not_answer_1_s_doubling() -> None:
    broker = UnansweringBroker({("t", 0): (0, 4)}, failures=3)
    planner = BatchPlanner(_options(), broker)
    waits: list[float] = []
    batches = planner.continuous(poll_s=1.0, wait=lambda seconds: waits.append(seconds) and False)

    assert next(batches) == ({("t", 0): 0}, {("t", 0): 4})
    assert waits == [1.0, 2.0, 4.0]
