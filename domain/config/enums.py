"""The closed vocabularies of connector settings (Lenses spellings as values)."""

from __future__ import annotations

from enum import Enum

from lakesink.domain.flush.schema_change import SchemaChangeDetector

__all__ = ["ErrorPolicy", "PartitionExtractorType", "SchemaChangeDetector"]


class ErrorPolicy(Enum):
    """``error.policy``: what a failed batch does (reference §7.1)."""

    NOOP = "NOOP"  # log and continue
    THROW = "THROW"  # fail the task
    RETRY = "RETRY"  # redeliver the batch after retry.interval, max.retries times


class PartitionExtractorType(Enum):
    """``source.partition.extractor.type``: how a restore finds a record's Kafka partition."""

    LAYOUT = "layout"  # lakesink default: envelope metadata, else the partition the key layout names
    NONE = "none"  # lakesink: no partition, the producer's partitioner (key hash) decides
    HIERARCHICAL = "hierarchical"  # the parent directory name of the object
    REGEX = "regex"  # group 1 of source.partition.extractor.regex
