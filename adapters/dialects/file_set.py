"""The files one range's records go to on an executor, whichever rules cut them.

:class:`~.range_writer.RangeWriter` (a KCQL statement's files), :class:`~.cycle_writer.CycleWriter`
(a Confluent config's rotation cycles) and :class:`~.aiven_files.AivenFiles` (an Aiven config's
groups) are all a :class:`FileSet`: the sink task writes records to it, seals it when the range ends
and asks it where the range's plan starts and how far the range is durable, never which connector
wrote the config. :func:`dialect_files` opens a dialect's file set from its writing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from lakesink.adapters.dialects.aiven.files import AivenFiles
from lakesink.adapters.dialects.confluent.cycle_writer import CycleWriter
from lakesink.adapters.formats.range_writer import SealedFile
from lakesink.domain.dialects.aiven.writing import AivenWriting
from lakesink.domain.dialects.confluent.writing import ConfluentWriting
from lakesink.domain.dialects.writing import DialectWriting
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.records import Record


class FileSet(Protocol):
    """The staging files of one range (see the module)."""

    @property
    def held(self) -> int:
        """Records written to no sealed file (an open cycle): the next range reads them again."""
        ...

    def write(self, record: Record, values: PartitionValues) -> None:
        """Place one record, in offset order, in the file its partition values (or the dialect's rules) pick."""
        ...

    def finish(self) -> list[SealedFile]:
        """Seal the files to upload (open ones that are held back are dropped)."""
        ...

    def abort(self) -> None:
        """Delete every staging file (the task failed; the range is read again)."""
        ...

    def replay_start(self, range_first: int) -> int:
        """Where the range's plan starts, given the range's first record: a replay must place the same
        records in the same files from there."""
        ...

    def durable_end(self, range_last: int) -> int:
        """The last offset the sealed files make durable, given the range's last record."""
        ...


_DIALECT_FILES: dict[type[Any], Callable[[Any, str, int, Path, int | None], FileSet]] = {
    ConfluentWriting: CycleWriter,
    AivenWriting: lambda writing, bucket, _partition, root, clock_ms: AivenFiles(writing, bucket, root, clock_ms),
}


def dialect_files(writing: DialectWriting, bucket: str, partition: int, root: Path, clock_ms: int | None) -> FileSet:
    """The file set of a Kafka Connect dialect's range: one per topic-partition range, whatever topic a
    router transform picks (Confluent's cycles and Aiven's groups span the range)."""
    return _DIALECT_FILES[type(writing)](writing, bucket, partition, root, clock_ms)
