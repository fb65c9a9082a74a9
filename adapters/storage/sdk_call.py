"""One SDK call, its final failure raised as the port's error.

The SDKs retry transient failures themselves: each network adapter hands its SDK a retry policy
built from ``http_max_retries`` and ``http_retry_interval_ms`` (docs/storage.md, "Retries"). What
reaches :func:`sdk_call` is therefore final, and a transient failure here means the SDK's retries
are used up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lakesink.domain.errors import TransientStorageError

T = TypeVar("T")


def sdk_call(
    operation: str, attempt: Callable[[], T], translate: Callable[[Exception], Exception], max_retries: int
) -> T:
    """Run ``attempt`` (one SDK call, retries included) and raise its failure as a lakesink error.

    Args:
        operation: what the call does ("S3 PutObject"), for the message of a transient failure.
        attempt: the SDK call.
        translate: maps an SDK exception to a lakesink error naming bucket and key (never a
            secret), or returns the exception itself when it is not a storage failure.
        max_retries: the retry budget the SDK was given, quoted when it ran out.

    Raises:
        The translated error, chained to the SDK's; a :class:`TransientStorageError` also says that
        the SDK's retries were used up.
    """
    try:
        return attempt()
    except Exception as exc:
        error = translate(exc)
        if error is exc:
            raise
        if isinstance(error, TransientStorageError):
            error = TransientStorageError(f"{operation}: {error} Still failing after the SDK's retries "
                                          f"(http.max.retries={max_retries}).")
        raise error from exc
