"""The files one range's records go to on an executor, whichever rules cut them.

A statement's :class:`~lakesink.adapters.formats.range_writer.RangeWriter`, a Confluent config's
:class:`~lakesink.adapters.dialects.confluent.cycle_writer.CycleWriter` and an Aiven config's
:class:`~lakesink.adapters.dialects.aiven.files.AivenFiles` are each a :class:`FileSet`: the task writes
to it, rolls it at the range's end and asks where the plan starts and how far the range is durable,
never which connector wrote the config (opened by :func:`lakesink.adapters.dialects.registry.dialect_files`).
"""

from __future__ import annotations

from typing import Protocol

from lakesink.adapters.formats.range_writer import RolledFile
from lakesink.domain.layout.partitioning import PartitionValues
from lakesink.domain.records import Record


class FileSet(Protocol):
    """The staging files of one range (see the module)."""

    @property
    def held(self) -> int:
        """Records written to no rolled file (an open cycle): the next range reads them again."""
        ...

    def write(self, record: Record, values: PartitionValues) -> None:
        """Place one record, in offset order, in the file its partition values (or the dialect's rules) pick."""
        ...

    def finish(self) -> list[RolledFile]:
        """Roll the files to upload (open ones that are held back are dropped)."""
        ...

    def abort(self) -> None:
        """Delete every staging file (the task failed; the range is read again)."""
        ...

    def replay_start(self, range_first: int) -> int:
        """Where the range's plan starts, given the range's first record: a replay must place the same
        records in the same files from there."""
        ...

    def durable_end(self, range_last: int) -> int:
        """The last offset the rolled files make durable, given the range's last record."""
        ...
