"""Which offsets of a partition hold a record, as the sink's consumer sees them (``lakesink verify``).

A transaction's marker, an aborted transaction's records (skipped by the default read_committed
isolation) and records the log cleaner removed take offsets no consumer receives; verify asks for
these only where its dense check found gaps (domain/verify/record_offsets.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from confluent_kafka import KafkaError, KafkaException, TopicPartition

from lakesink.adapters.kafka.client_config import SettingValue, consumer_config, create_consumer, error_text
from lakesink.domain.errors import KafkaUnavailableError


def record_offsets(
    client: Mapping[str, SettingValue], topic: str, partition: int, start: int, end: int, *, timeout_s: float
) -> tuple[int, ...]:
    """The offsets from ``start`` to ``end`` (inclusive) of ``topic``-``partition`` that hold a record.

    Reads with the sink's client settings (its ``isolation.level`` included), never joins or commits
    a group. Stops at ``end`` or at the partition's end (for read_committed, its last stable offset).

    Raises:
        KafkaUnavailableError: the partition could not be read.
    """
    consumer = create_consumer(
        {**consumer_config(client, group_id="lakesink-verify"), "enable.partition.eof": True}
    )
    found: list[int] = []
    try:
        consumer.assign([TopicPartition(topic, partition, start)])
        while True:
            message = consumer.poll(timeout_s)
            if message is None:
                raise KafkaUnavailableError(f"{topic}-{partition} sent nothing within {timeout_s:.0f} s")
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    break
                raise KafkaUnavailableError(f"{topic}-{partition}: {error.str()}")
            if message.offset() <= end:
                found.append(message.offset())
            if message.offset() >= end:
                break
    except KafkaException as error:
        raise KafkaUnavailableError(f"{topic}-{partition}: {error_text(error)}") from error
    finally:
        consumer.close()
    return tuple(found)
