"""The cyclic garbage collector paused over a stretch of the data path.

Reading, converting and writing records allocates several containers per record (dicts, tuples,
lists), all acyclic and freed by reference counting; left on, the collector keeps rescanning the
survivors of each stretch (measured: ~20 % of fastavro's decode in a restore, ~8 % of a sink
task's CPU for Avro envelopes). It runs again when the stretch ends, for whatever cycles it left.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off inside the block, back as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
