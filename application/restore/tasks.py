"""What one task does with its origins: each delivered in turn, the next ones opened meanwhile.

Each origin is replayed by exactly one task, in order, through its own :class:`~.origin.OriginReplay`
(and transactional producer). Opening an origin is broker waits (librdkafka releases the GIL), so
the next :data:`OPEN_AHEAD` are opened on other threads; delivering several at once was measured
and rejected (more CPU per record, no gain in wall time).
See docs/restore.md, "Parallelism on Spark" and "Throughput".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from lakesink.domain.restore.results import OriginResult

OPEN_AHEAD = 4
"""Origins opened ahead of the one being delivered; each holds an initialised producer."""


class Delivery(Protocol):
    """What :func:`deliver_in_order` needs of an origin's delivery (:class:`~.origin.OriginReplay`)."""

    def open(self) -> None: ...

    def prefetch(self) -> None: ...

    def run(self) -> OriginResult: ...

    def close(self) -> None: ...


def deliver_in_order(deliveries: Sequence[Delivery], ahead: int) -> Iterator[OriginResult]:
    """Run the deliveries one after another, each opened on a helper thread up to ``ahead`` earlier.

    While one origin is delivered, the next one also fetches its first object once opened
    (:meth:`~.origin.OriginReplay.prefetch`), so its delivery starts without waiting for S3 and
    the decoder. A failed open is raised when its origin's turn comes (origins before it are
    delivered); opens still running then finish before the error leaves, no later origin is
    delivered, and fetching ahead stops.
    """
    if ahead < 1 or len(deliveries) <= 1:
        for delivery in deliveries:
            yield delivery.run()
        return
    with ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="lakesink-open") as pool:
        opening: list[Future[None]] = [pool.submit(d.open) for d in deliveries[:ahead]]
        try:
            for index, delivery in enumerate(deliveries):
                opening[index].result()
                if index + ahead < len(deliveries):
                    opening.append(pool.submit(deliveries[index + ahead].open))
                if index + 1 < len(deliveries):
                    opening[index + 1].add_done_callback(_prefetch_when_opened(deliveries[index + 1]))
                yield delivery.run()
        finally:
            pool.shutdown(wait=True)  # no open (nor its prefetch callback) runs after this
            for delivery in deliveries:
                delivery.close()


def _prefetch_when_opened(delivery: Delivery) -> Callable[[Future[None]], None]:
    def prefetch(opened: Future[None]) -> None:
        if opened.exception() is None:
            delivery.prefetch()

    return prefetch
