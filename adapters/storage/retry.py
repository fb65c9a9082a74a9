"""One retry loop shared by every network adapter, so ``http_max_retries`` means the same everywhere.

The SDKs each retry differently (botocore: exponential with jitter and a 20 s cap; google-api-core:
deadline-based; azure-core: its own policy), which would make the connector's retry settings mean
three different things. The adapters therefore switch SDK retries off and run every call through
:func:`call_with_retries`: the first attempt plus up to ``max_retries`` more, waiting
``interval_s`` (growing by ``multiplier``) in between, and only for errors the adapter classified as
transient.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from lakesink.domain.errors import TransientStorageError

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to retry a transient failure."""

    max_retries: int
    interval_s: float
    multiplier: float = 1.0
    max_interval_s: float = 20.0

    def delay(self, retry_number: int) -> float:
        """Seconds to wait before the ``retry_number``-th retry (1-based)."""
        return min(self.interval_s * self.multiplier ** (retry_number - 1), self.max_interval_s)


def call_with_retries(
    policy: RetryPolicy,
    attempt: Callable[[], T],
    translate: Callable[[Exception], Exception],
    what: str,
) -> T:
    """Run ``attempt`` until it succeeds, fails permanently, or the retries are used up.

    Args:
        policy: retry budget and pacing.
        attempt: one try of the operation (must be safe to repeat).
        translate: maps an SDK exception to a lakesink error; a
            :class:`TransientStorageError` result means "worth retrying".
        what: human description naming bucket and key, for the final error message.

    Raises:
        The translated error; for transient failures a :class:`TransientStorageError` saying how
        many attempts were made.
    """
    retry_number = 0
    while True:
        try:
            return attempt()
        except Exception as exc:
            error = translate(exc)
            if not isinstance(error, TransientStorageError):
                if error is exc:
                    raise
                raise error from exc
            if retry_number >= policy.max_retries:
                raise TransientStorageError(
                    f"{what} failed after {retry_number + 1} attempt(s): {error}"
                ) from exc
            retry_number += 1
            wait = policy.delay(retry_number)
            logger.debug("Retrying %s in %.3fs (retry %d of %d): %s", what, wait, retry_number,
                         policy.max_retries, error)
            time.sleep(wait)
