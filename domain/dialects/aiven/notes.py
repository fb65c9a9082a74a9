"""What an Aiven S3 sink config means in words: how records are grouped, and what a replay may change.

``lakesink kcql explain`` prints these next to the resolved settings, so a user sees the
grouping Aiven's ``RecordGrouperFactory`` picks from the template (reference §A.3), which
settings make names depend on the wall clock (§A.8: Aiven names files from the first offset of
each flush, so a replay gives the same names only for the same boundaries), and the defaults of
Aiven's code that its README states otherwise (§A.4).
"""

from __future__ import annotations

from lakesink.domain.dialects.aiven.naming import AivenCompression, AivenFormat
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig


def grouping_notes(config: AivenSinkConfig) -> list[str]:
    """How records become files, as Aiven's grouper decides."""
    naming = config.naming
    lines = [naming.grouping.describe()]
    if not naming.grouping.by_key:
        limit = f"after {naming.max_records} records" if naming.max_records else "no record limit"
        lines.append(f"file.max.records: {limit}; a file also ends at every flush (offset commit)")
        if naming.schema_rotation:
            lines.append(f"{config.format.value}: a new key or value schema starts a new file")
    if naming.prefix is not None:
        lines.append(
            "aws.s3.prefix is set: Aiven names files <prefix><topic>-<partition>-<start offset, 20 digits>"
            f"{naming.prefix_suffix}; file.name.template only groups records"
        )
    return lines


def replay_differences(config: AivenSinkConfig) -> list[str]:
    """Settings that make names depend on when records are written."""
    notes = ["file names start at the first offset of each flush, so a replay may cut files elsewhere"]
    if config.naming.reads_clock:
        notes.append("names use the wall clock (timestamp source wallclock or a date prefix)")
    return notes


def content_notes(config: AivenSinkConfig) -> list[str]:
    """What the names do not show about the files' contents, and the error handling Kafka Connect applies."""
    notes = []
    naming = config.naming
    if config.format is AivenFormat.PARQUET:
        notes.append(f"Parquet column codec {config.parquet_codec.value} (file.compression.type, default none)")
        if naming.prefix is not None and naming.prefix_suffix:
            notes.append(f"Parquet files are not stream-compressed, yet prefix mode names them {naming.prefix_suffix}")
    elif config.compression is not AivenCompression.NONE and naming.prefix is None and not naming.template.endswith(
        config.compression.extension
    ):
        notes.append(
            f"contents are {config.compression.value}-compressed although the names do not end in "
            f"{config.compression.extension} (Aiven's S3 default compression is gzip)"
        )
    if config.error_handling:
        notes.append(
            f"error handling as Kafka Connect applies it (docs/dialects.md): {', '.join(sorted(config.error_handling))}"
        )
    return notes
