"""The ``lakesink status`` use case: the store's index and newest objects beside the topic's end and the group.

Driver-only and read-only: one listing pass of the sink's roots (the same as ``lakesink verify``'s,
no object opened) finds the newest object of each topic-partition, the index's locks give the
committed offsets, the cluster the end offsets, and the consumer group ``connect-<name>`` what lag
tools see. In exactly-once mode the index is the truth and the group only follows it; at-least-once
the group is the truth (there is no index).
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.application.verify import KafkaView, read_index, sorted_listing, watermarks
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.verify.keys import KeySorter
from lakesink.domain.verify.status import NewestObject, PartitionStatus, StatusReport
from lakesink.domain.verify.targets import VerifyPlan


def run_status(
    plan: VerifyPlan,
    store: ObjectStore,
    kafka: KafkaView,
    *,
    group_id: str,
    group: Mapping[TopicPartition, int] | None,
    group_error: str | None = None,
) -> StatusReport:
    """Where each topic-partition the store, the index or the cluster knows of stands.

    ``group`` is the group's committed next offsets (None: not read, ``group_error`` says why).

    Raises:
        StorageError: the store does not answer.
        CommitError: a lock is malformed.
    """
    newest: dict[TopicPartition, tuple[tuple[int, int], NewestObject]] = {}
    buckets: dict[TopicPartition, str] = {}
    for bucket, info, found in sorted_listing(plan, store, KeySorter.of(plan)):
        if found is None:
            continue
        # the object holding the highest offset (a batch uploads its objects in any order, and a store's
        # times have one-second steps); the later one of two naming the same offset (an overwrite)
        where, rank = found.topic_partition, (found.offset, info.modified_ms or -1)
        buckets[where] = bucket
        if where not in newest or rank > newest[where][0]:
            newest[where] = (rank, NewestObject(bucket, info.key, info.modified_ms))
    indexed, _plans = read_index(plan, store, buckets)
    offsets = dict(group or {})
    committed = indexed if plan.indexed else {where: offset - 1 for where, offset in offsets.items()}
    partitions = sorted(set(newest) | set(committed) | set(offsets) | set(kafka.partitions))
    _starts, ends, kafka_error = watermarks(kafka, partitions)
    return StatusReport(
        connector=plan.name,
        group_id=group_id,
        source="index" if plan.indexed else "group",
        partitions=tuple(
            PartitionStatus(
                topic=topic,
                partition=partition,
                committed=committed.get((topic, partition)),
                group=offsets.get((topic, partition)),
                end=ends.get((topic, partition)),
                newest=newest[(topic, partition)][1] if (topic, partition) in newest else None,
            )
            for topic, partition in partitions
        ),
        kafka_error=kafka_error,
        group_error=group_error,
    )
