"""Range readers' consumers, kept per process from one range (and one Spark task) to the next.

A consumer's start (connections, version handshake, metadata) and close cost a range of 500
records 2-3 ms of CPU and most of its wall time; a reused consumer is re-assigned instead, as
Spark's own Kafka source keeps its consumers in a cache. A consumer whose read failed is closed,
never kept. See docs/kafka.md, "Reading a range (executors)".
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from confluent_kafka import Consumer, KafkaException

from lakesink.adapters.kafka.client_config import create_consumer

logger = logging.getLogger(__name__)

IDLE_CLOSE_S = 60.0
"""A kept consumer idle this long is closed when next taken, and a new one started: a sink
stopped between batches for minutes (brokers close connections idle for ``connections.max.idle.ms``,
10 minutes by default) starts its next range on fresh connections."""

METADATA_TIMEOUT_S = 10.0
"""How long a kept consumer waits for a topic's metadata before its first range of that topic (then
the range is read as by a new consumer)."""

_lock = threading.Lock()
_kept: tuple[Hashable, Consumer, float, set[str]] | None = None
"""The one consumer a process keeps, its config's key, since when and the topics it has metadata of.
One, not one per config: a worker serving many sinks one after the other (a test session, a library
user's streams) would otherwise hold every one's threads and connections for good."""
_owner_pid = os.getpid()


@contextmanager
def kept_consumer(config: Mapping[str, Any], topic: str) -> Iterator[Consumer]:
    """A consumer of ``config`` to read ``topic``: the one this process kept, else a new one. It is
    unassigned and kept when the block ends normally, closed when the block raises (or is abandoned).

    A kept consumer asks for the metadata of a topic it has not read yet before it is assigned one
    of its partitions: assigned a topic it knows nothing of, librdkafka waits for its one-second
    timer to look the topic up, and each first range of a topic took a second instead of
    milliseconds (a new consumer learns its first topic with its first metadata request).
    """
    key = _key(config)
    kept = _take(key) if key is not None else None
    consumer, topics = kept if kept is not None else (create_consumer(config), {topic})
    try:
        if topic not in topics:
            _learn(consumer, topic)
            topics.add(topic)
        yield consumer
        consumer.unassign()
    except BaseException:
        consumer.close()
        raise
    if key is None or not _keep(key, consumer, topics):
        consumer.close()


def close_kept() -> None:
    """Close the kept consumer (at exit, and before a test's broker stops)."""
    global _kept
    with _lock:
        kept, _kept = (_kept if os.getpid() == _owner_pid else None), None
    if kept is not None:
        kept[1].close()


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


def _take(key: Hashable) -> tuple[Consumer, set[str]] | None:
    """The kept consumer and the topics it knows, when it is of ``key`` and not idle too long; any
    other kept one is closed."""
    global _kept, _owner_pid
    with _lock:
        if os.getpid() != _owner_pid:  # a forked child: the parent's consumer has no threads here
            _kept, _owner_pid = None, os.getpid()
        kept, _kept = _kept, None
    if kept is None:
        return None
    kept_key, consumer, since, topics = kept
    if kept_key != key or time.monotonic() - since > IDLE_CLOSE_S:
        consumer.close()
        return None
    return consumer, topics


def _learn(consumer: Consumer, topic: str) -> None:
    """Fetch ``topic``'s metadata into ``consumer``'s cache; a failure is left to the read that follows
    (it waits for the broker, or reports the error, as a new consumer's would)."""
    try:
        consumer.list_topics(topic, timeout=METADATA_TIMEOUT_S)
    except KafkaException as error:
        logger.debug("metadata of %s not fetched before its range: %s", topic, error)


def _keep(key: Hashable, consumer: Consumer, topics: set[str]) -> bool:
    """Keep ``consumer`` for the next range; False when another is kept already (two used at once)."""
    global _kept
    with _lock:
        if _kept is not None or os.getpid() != _owner_pid:
            return False
        _kept = (key, consumer, time.monotonic(), topics)
        return True
