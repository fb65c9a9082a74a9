"""What a Confluent S3 sink config means in words: where files end, and what a replay may change.

``lakesink kcql explain`` prints these next to the resolved settings, so a user sees the
rotation rules Confluent's ``TopicPartitionWriter`` applies (reference §C.3) and which settings
make keys depend on the wall clock (§C.4: Confluent's exactly-once does not hold for them).
"""

from __future__ import annotations

from lakesink.domain.dialects.confluent.naming import ConfluentFormat
from lakesink.domain.dialects.confluent.partitioners import TimeBasedPartitioner
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.dialects.confluent.timestamps import ExtractorKind

_PROJECTED = {
    "BACKWARD": "a newer schema version rolls the file; older compatible records are projected to the file's schema",
    "FULL": "a newer schema version rolls the file; older compatible records are projected to the file's schema",
    "FORWARD": "an older schema version rolls the file; newer compatible records are projected to the file's schema",
}


def _extractor(config: ConfluentSinkConfig) -> ExtractorKind | None:
    partitioner = config.layout.partitioner
    return partitioner.extractor.kind if isinstance(partitioner, TimeBasedPartitioner) else None


def file_boundaries(config: ConfluentSinkConfig) -> list[str]:
    """When a file of a topic-partition is committed and the next one starts, as Confluent decides."""
    lines = [
        f"flush.size: after {config.flush_size} records of the topic-partition (all its open files together)"
    ]
    extractor = _extractor(config)
    if config.rotate_interval_ms > 0:
        if extractor is None:
            lines.append("rotate.interval.ms: ignored (Confluent warns): it needs a time-based partitioner")
        else:
            clock = "the batch's wall-clock time" if extractor is ExtractorKind.WALLCLOCK else "record time"
            lines.append(
                f"rotate.interval.ms: when {clock} is {config.rotate_interval_ms} ms past the file's first "
                "record (checked when a record arrives)"
            )
            if config.rotate_on_partition_change:
                lines.append(
                    "rotate.file.on.partition.change: when a record's encoded partition differs from the last one's"
                )
    if config.rotate_schedule_interval_ms > 0:
        lines.append(
            f"rotate.schedule.interval.ms: every {config.rotate_schedule_interval_ms} ms of wall-clock time, "
            "aligned to midnight in timezone"
        )
    if config.schema_compatibility == "NONE":
        lines.append("schema.compatibility NONE: any change of the value schema rolls the file")
    else:
        lines.append(
            f"schema.compatibility {config.schema_compatibility}: {_PROJECTED[config.schema_compatibility]}"
        )
    return lines


def replay_differences(config: ConfluentSinkConfig) -> list[str]:
    """Settings that make keys or file boundaries depend on when records are written."""
    notes = []
    if _extractor(config) is ExtractorKind.WALLCLOCK:
        notes.append(
            "timestamp.extractor Wallclock: the time partition is the time of writing, not of the record"
        )
    if config.rotate_schedule_interval_ms > 0:
        notes.append("rotate.schedule.interval.ms: file boundaries follow the wall clock")
    return notes


def content_notes(config: ConfluentSinkConfig) -> list[str]:
    """What the keys do not show about the files' contents, and the error handling Kafka Connect applies."""
    notes = []
    views = [view.format for view in (config.keys, config.headers) if view is not None]
    if ConfluentFormat.AVRO in (config.format, *views) and config.avro_codec != "null":
        notes.append(
            f"avro.codec {config.avro_codec}: Avro blocks are compressed (the extension stays .avro)"
        )
    if config.error_handling:
        held = ", ".join(sorted(config.error_handling))
        notes.append(f"error handling as Kafka Connect applies it (docs/dialects.md): {held}")
    return notes
