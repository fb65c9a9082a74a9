"""Re-running a step for as long as it fails in a way that ends by itself (a store's transient failure).

What waits out what is the domain's rule (:mod:`lakesink.domain.transient`); this runs it: the
sink's start-up and batches, and the restore's downloads, each re-run after a growing wait, with
one WARNING line per wait so an operator sees the store struggling without the run stopping.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from lakesink.domain.transient import wait_before, waits_out

logger = logging.getLogger(__name__)

T = TypeVar("T")


def waiting_out(what: str, step: Callable[[], T], progress: Callable[[], object] = lambda: None) -> T:
    """``step()``, re-run after 1 s, 2 s, 4 s ... (at most 60 s) while it raises an error that ends by
    itself; any other error is raised at once.

    A failed attempt that still moved the work on (``progress()`` changed across it: a batch that
    committed some of its partitions) starts the waits again from 1 s: the store is serving, and
    a minute's wait would only hold back the part that is left.
    """
    attempt = 0
    while True:
        before = progress()
        try:
            return step()
        except Exception as exc:
            if not waits_out(exc):
                raise
            attempt = 1 if progress() != before else attempt + 1
            wait_s = wait_before(attempt)
            logger.warning("%s failed on the store (%s); running it again in %.0f s (attempt %d)",
                           what, first_line(exc), wait_s, attempt + 1)
            time.sleep(wait_s)


def first_line(exc: BaseException) -> str:
    """``ErrorClass: first line of its message``: an error in one log line."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__
