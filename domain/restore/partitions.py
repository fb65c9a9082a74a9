"""Which Kafka partition a restored record goes to, and the up-front partition-count check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.plan import PartitionMode, PartitionRule

REMAP_HINT = "set connect.<prefix>.source.partition.remap=modulo"


def needed_partitions(rule: PartitionRule, items: Iterable[tuple[str, int | None]]) -> dict[str, int]:
    """``{topic: partitions needed}`` from (topic, origin partition) pairs; none when the producer decides."""
    needed: dict[str, int] = {}
    if rule.mode == PartitionMode.NONE:
        return needed
    for topic, partition in items:
        if partition is not None:
            needed[topic] = max(needed.get(topic, 0), partition + 1)
    return needed


def check_partition_counts(rule: PartitionRule, needed: Mapping[str, int], actual: Mapping[str, int]) -> None:
    """Raise ConfigError naming the topic, needed and actual counts, unless remapping is on."""
    if rule.remap_modulo:
        return
    for topic in sorted(needed):
        have = actual.get(topic, 0)
        if needed[topic] > have:
            raise ConfigError(
                f"Topic {topic!r} has {have} partitions but the restore needs {needed[topic]} "
                f"(objects of partition {needed[topic] - 1} exist); create the topic with at least "
                f"{needed[topic]} partitions or {REMAP_HINT}."
            )


def target_partition(rule: PartitionRule, partition: int | None, count: int, topic: str) -> int | None:
    """The partition to produce to; None lets the producer's partitioner choose.

    Raises:
        ConfigError: ``partition`` does not exist in ``topic`` and remapping is off.
    """
    if rule.mode == PartitionMode.NONE or partition is None:
        return None
    if partition < count:
        return partition
    if rule.remap_modulo:
        return partition % count
    raise ConfigError(
        f"Topic {topic!r} has {count} partitions but a record of partition {partition} is to be "
        f"restored; create the topic with at least {partition + 1} partitions or {REMAP_HINT}."
    )
