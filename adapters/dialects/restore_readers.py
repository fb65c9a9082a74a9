"""Which reader turns a restore root's objects into message batches: Lenses' readers by format, or
the reader of the dialect whose layout the root carries (:mod:`lakesink.domain.dialects.stored_layout`).

The restore reads a Confluent value object with its stored keys and headers siblings; the verifier
counts records of the value object alone (its siblings hold the same count).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from lakesink.adapters.dialects.aiven.restore_batches import aiven_batches
from lakesink.adapters.dialects.confluent.restore_batches import confluent_batches
from lakesink.adapters.dialects.quix.restore_batches import quix_batches
from lakesink.adapters.restore.batches import read_batches
from lakesink.domain.restore.batch import MessageBatch
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot
from lakesink.domain.restore.ports import BatchReader

_RESTORE: dict[str, BatchReader] = {"confluent": confluent_batches, "aiven": aiven_batches, "quix": quix_batches}


def _value_batches(root: RestoreRoot, entry: IndexEntry, path: Path) -> Iterator[MessageBatch]:
    """A Confluent value object's records, without its siblings."""
    return read_batches(dataclasses.replace(root, layout=None), entry, path)


_COUNT: dict[str, BatchReader] = {**_RESTORE, "confluent": _value_batches}


def restore_reader(root: RestoreRoot) -> BatchReader:
    """The restore's batch reader of the root's objects."""
    return read_batches if root.layout is None else _RESTORE[root.layout.dialect]


def count_reader(root: RestoreRoot) -> BatchReader:
    """The verifier's batch reader of the root's objects (a Confluent value object read alone)."""
    return read_batches if root.layout is None else _COUNT[root.layout.dialect]
