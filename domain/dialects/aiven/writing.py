"""How a sink run of an Aiven S3 sink config writes: its names and grouping, and its file contents.

The pieces are :class:`~lakesink.domain.dialects.aiven.naming.AivenNaming` (the template, the
``aws.s3.prefix`` mode, the grouping, ``file.max.records``) and
:class:`~lakesink.domain.dialects.aiven.output.AivenOutput` (format, fields, encodings, compression);
:class:`AivenWriting` joins them for the executors, which group each range's records with
:class:`~lakesink.domain.dialects.aiven.grouping.AivenGrouper`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.dialects.aiven.naming import AivenGrouping, AivenNaming
from lakesink.domain.dialects.aiven.output import AivenOutput


@dataclass(frozen=True, slots=True)
class AivenWriting:
    """An Aiven config's object keys, grouping and file contents."""

    naming: AivenNaming
    output: AivenOutput

    @property
    def dialect(self) -> str:
        return "aiven"

    @property
    def holds_records(self) -> bool:
        """Never: a range's groups are all written when it ends (Aiven's flush)."""
        return False

    @property
    def skips_converted_nulls(self) -> bool:
        return False

    @property
    def consecutive_files(self) -> bool:
        """Under the topic-partition grouping only: other groupings share a partition's records out."""
        return self.naming.grouping is AivenGrouping.TOPIC_PARTITION

    @property
    def reads_clock(self) -> bool:
        """Whether keys read the wall clock (a ``wallclock`` ``{{timestamp}}``, ``{{utc_date}}``...):
        the batch clock then stands in for it, recorded in the range plans."""
        return self.naming.reads_clock

    @property
    def decodes_key(self) -> bool:
        """Whether records need their converted key: written, named by, or (avro/parquet) rotated on."""
        grouping = self.naming.grouping
        return (
            any(item.name == "key" for item in self.output.fields)
            or grouping is AivenGrouping.TOPIC_PARTITION_KEY
            or grouping.by_key
            or self.naming.schema_rotation
        )

    @property
    def decodes_headers(self) -> bool:
        """Whether records need their converted headers (``headers`` is an output field)."""
        return any(item.name == "headers" for item in self.output.fields)

    def wall_clock_note(self) -> str | None:
        """The WARN line a run starts with when Aiven's keys would read the wall clock, else None.

        Aiven renders those names when it files a record (``{{timestamp}}``) or flushes
        (``aws.s3.prefix`` dates); lakesink renders them from the clock of the micro-batch that
        reads the record, recorded in its range plans so that a replay writes the same keys.
        """
        if not self.reads_clock:
            return None
        return (
            "Object keys read the wall clock (file.name.timestamp.source=wallclock, or {{utc_date}}/{{local_date}}"
            " in aws.s3.prefix): lakesink uses the clock of the micro-batch that reads each record, so a "
            "record's key may name a slightly later time than Aiven's would."
        )
