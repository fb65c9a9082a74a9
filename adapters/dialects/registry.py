"""Each dialect's executor pieces, by the dialect's name: the one adapters table a new dialect adds a line to.

The domain finds a dialect by ``connector.class`` and carries its writing or stored layout, each
naming its dialect; this table gives what runs on the executors: the file set a sink range writes
through, the reader a restore replays with, and the reader verify counts with (a Confluent value
object alone: its siblings hold the same count). See docs/architecture.md, "Adding a dialect".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakesink.adapters.dialects.aiven.files import AivenFiles
from lakesink.adapters.dialects.aiven.restore_batches import aiven_batches
from lakesink.adapters.dialects.confluent.cycle_writer import CycleWriter
from lakesink.adapters.dialects.confluent.restore_batches import confluent_batches
from lakesink.adapters.dialects.file_set import FileSet
from lakesink.adapters.dialects.quix.restore_batches import quix_batches
from lakesink.adapters.restore.batches import read_batches
from lakesink.domain.dialects.writing import DialectWriting
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.restore.ports import BatchReader


@dataclass(frozen=True, slots=True)
class DialectParts:
    """What runs on the executors for one dialect."""

    restore: BatchReader
    """The restore's reader of its objects."""
    count: BatchReader
    """The verifier's reader of its objects."""
    files: Callable[[Any, str, int, Path, int | None], FileSet] | None = None
    """(writing, bucket, partition, staging root, batch clock) → the file set of a sink range; None for a
    layout written through a KCQL statement's own files (Quix)."""


def _aiven_files(writing: Any, bucket: str, _partition: int, root: Path, clock_ms: int | None) -> FileSet:
    return AivenFiles(writing, bucket, root, clock_ms)


def _value_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """A Confluent value object's records, without its siblings."""
    return read_batches(dataclasses.replace(root, layout=None), entry, path)


PARTS: dict[str, DialectParts] = {
    "confluent": DialectParts(confluent_batches, _value_batches, CycleWriter),
    "aiven": DialectParts(aiven_batches, aiven_batches, _aiven_files),
    "quix": DialectParts(quix_batches, quix_batches),
}


def dialect_files(writing: DialectWriting, bucket: str, partition: int, root: Path, clock_ms: int | None) -> FileSet:
    """The file set of a dialect's sink range: one per topic-partition range, whatever topic a router
    transform picks (Confluent's cycles and Aiven's groups span the range)."""
    files = PARTS[writing.dialect].files
    assert files is not None, f"{writing.dialect} writes no files of its own"
    return files(writing, bucket, partition, root, clock_ms)


def restore_reader(root: RestoreRoot) -> BatchReader:
    """The restore's batch reader of the root's objects."""
    return read_batches if root.layout is None else PARTS[root.layout.dialect].restore


def count_reader(root: RestoreRoot) -> BatchReader:
    """The verifier's batch reader of the root's objects (a Confluent value object read alone)."""
    return read_batches if root.layout is None else PARTS[root.layout.dialect].count
