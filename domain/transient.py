"""Which failures a running sink waits out instead of stopping, and how long it waits.

A store answering 503 SlowDown or dropping connections, or a lock write whose outcome could not be
read back, ends by itself: a failure that outlasts the SDK's retries re-runs the whole step, which
writes the same objects and commits once. ``error.policy`` decides only what waiting cannot cure
(Kafka Connect's rule for retriable exceptions). See docs/sink.md, "What each failure does".
"""

from __future__ import annotations

from lakesink.domain.errors import CommitOutcomeUnknownError, TransientStorageError

FIRST_WAIT_S = 1.0
LONGEST_WAIT_S = 60.0
_NEVER_SERVED = (501, 505)
"""Not Implemented and HTTP Version Not Supported: 5xx, but the store's final word on that request."""


def waits_out(error: BaseException) -> bool:
    """Whether ``error`` ends by itself, so the step that raised it is re-run after a wait."""
    return isinstance(error, TransientStorageError | CommitOutcomeUnknownError)


def transient_status(status: int) -> bool:
    """Whether an HTTP answer with ``status`` may succeed when asked again: timeouts (408),
    throttling (429) and server errors, except those a store gives a request it will never serve."""
    return status in (408, 429) or (status >= 500 and status not in _NEVER_SERVED)


def wait_before(attempt: int) -> float:
    """Seconds to wait before re-run number ``attempt`` (1, 2, ...): 1 s doubling to at most 60 s."""
    return min(LONGEST_WAIT_S, FIRST_WAIT_S * 2 ** min(attempt - 1, 6))
