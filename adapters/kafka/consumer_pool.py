"""Range readers' consumers, kept per process from one range (and one Spark task) to the next.

A consumer's start (connections, version handshake, metadata) and close cost a range of 500
records 2-3 ms of CPU and most of its wall time; a reused consumer is re-assigned instead, as
Spark's own Kafka source keeps its consumers in a cache. A consumer whose read failed is closed,
never kept. See docs/kafka.md, "Reading a range (executors)".
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from confluent_kafka import Consumer

from lakesink.adapters.kafka.client_config import create_consumer

IDLE_CLOSE_S = 60.0
"""A kept consumer idle this long is closed when next taken, and a new one started: a sink
stopped between batches for minutes (brokers close connections idle for ``connections.max.idle.ms``,
10 minutes by default) starts its next range on fresh connections."""

_lock = threading.Lock()
_idle: dict[Hashable, tuple[Consumer, float]] = {}
_owner_pid = os.getpid()


@contextmanager
def kept_consumer(config: Mapping[str, Any]) -> Iterator[Consumer]:
    """A consumer of ``config``: the one this process kept, else a new one. It is unassigned and
    kept when the block ends normally, closed when the block raises (or is abandoned)."""
    key = _key(config)
    consumer = _take(key) if key is not None else None
    if consumer is None:
        consumer = create_consumer(config)
    try:
        yield consumer
        consumer.unassign()
    except BaseException:
        consumer.close()
        raise
    if key is None or not _keep(key, consumer):
        consumer.close()


def close_kept() -> None:
    """Close every kept consumer (at exit, and before a test's broker stops)."""
    with _lock:
        kept = [consumer for consumer, _ in _idle.values()] if os.getpid() == _owner_pid else []
        _idle.clear()
    for consumer in kept:
        consumer.close()


atexit.register(close_kept)


def _key(config: Mapping[str, Any]) -> Hashable | None:
    """The pool's key: the whole config (credentials included, never printed); None when a value
    (a callback) cannot be compared, and such a consumer is not kept."""
    key = tuple(sorted(config.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _take(key: Hashable) -> Consumer | None:
    global _owner_pid
    with _lock:
        if os.getpid() != _owner_pid:  # a forked child: the parent's consumers have no threads here
            _idle.clear()
            _owner_pid = os.getpid()
        kept = _idle.pop(key, None)
    if kept is None:
        return None
    consumer, since = kept
    if time.monotonic() - since > IDLE_CLOSE_S:
        consumer.close()
        return None
    return consumer


def _keep(key: Hashable, consumer: Consumer) -> bool:
    """Keep ``consumer`` for the next range; False when one of its config is already kept."""
    with _lock:
        if key in _idle or os.getpid() != _owner_pid:
            return False
        _idle[key] = (consumer, time.monotonic())
        return True
