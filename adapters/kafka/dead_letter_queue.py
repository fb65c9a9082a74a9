"""Kafka Connect's dead-letter topic, written by the sink's driver in Kafka transactions.

A batch's dead letters go in one transaction that also commits, for the group ``lakesink-dlq-<name>``,
the offsets the batch is about to commit: both land or neither. Opening the queue initialises the
transactional id ``lakesink-dlq-<name>`` (fencing an older driver, aborting its open transaction)
before the group's offsets are read. A record keeps its key, value, headers and timestamp and is
partitioned by its key with murmur2, as Connect's producer does. See docs/sink.md, "Dead-letter queue".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from confluent_kafka import KafkaError, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient

from lakesink.adapters.kafka.authorization import Acl, access_denied, denial, denied_as, principal
from lakesink.adapters.kafka.client_config import (
    SettingValue,
    consumer_config,
    create_consumer,
    create_producer,
    error_code,
    error_text,
    producer_config,
)
from lakesink.adapters.kafka.client_logs import client_logger
from lakesink.domain.config.error_reporting import ErrorReporting
from lakesink.domain.dead_letters import DeadLetter
from lakesink.domain.errors import (
    CommitConflictError,
    ConfigError,
    KafkaAccessDeniedError,
    KafkaUnavailableError,
    RecordError,
)

_TIMEOUT_S = 60.0
_TRANSACTION_TIMEOUT_MS = 60_000
_NO_TOPIC_OR_DENIED = frozenset(
    {KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC, KafkaError.TOPIC_AUTHORIZATION_FAILED}
)
"""A delivery the topic refused: it does not exist (and was not created), or the principal may not write."""
_FENCED = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})


def dead_letter_id(connector: str) -> str:
    """The transactional id and consumer group of a connector's dead-letter queue."""
    return f"lakesink-dlq-{connector}"


class KafkaDeadLetterQueue:
    """The :class:`~lakesink.domain.ports.DeadLetterQueue` of one sink run, on the sink's Kafka cluster.

    ``client`` are the sink's Kafka client settings (SASL and TLS included); ``connector`` names the
    transactional id and the group; the context headers are added under ``reporting.context_headers``.
    """

    def __init__(
        self, client: Mapping[str, SettingValue], *, connector: str, reporting: ErrorReporting
    ) -> None:
        assert reporting.dlq_topic is not None, "built only for a dead-letter topic"
        self._topic = reporting.dlq_topic
        self._connector = connector
        self._context = reporting.context_headers
        name = dead_letter_id(connector)
        # read_committed whatever the sink's consumers use: offsets of an open transaction are waited for
        self._consumer = create_consumer(
            {**consumer_config(client, group_id=name), "isolation.level": "read_committed"}
        )
        self._config = producer_config(client)
        self._undelivered: KafkaError | None = None
        """The first failed delivery of the open transaction (its commit fails with a generic error)."""
        self._acls = (
            Acl(("WRITE",), "topic", self._topic),
            Acl(("READ",), "group", name),  # the offsets sent in the transaction, and read back
            Acl(("WRITE",), "transactional id", name),
        )
        self._producer = create_producer(
            {
                **self._config,
                "transactional.id": name,
                "transaction.timeout.ms": _TRANSACTION_TIMEOUT_MS,
                "partitioner": "murmur2_random",  # the Java client's: the same key, the same partition
            }
        )
        try:
            with denied_as(self._config, *self._acls):
                self._producer.init_transactions(_TIMEOUT_S)
        except KafkaException as error:
            self._consumer.close()
            raise KafkaUnavailableError(f"Dead-letter queue {self._topic}: {error_text(error)}") from error
        except KafkaAccessDeniedError:
            self._consumer.close()
            raise

    def sent(self, partitions: Iterable[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """The group's committed next offset per source partition (read committed: a transaction
        still open is waited for)."""
        wanted = [TopicPartition(topic, partition) for topic, partition in partitions]
        if not wanted:
            return {}
        try:
            with denied_as(self._config, *self._acls):
                found = self._consumer.committed(wanted, timeout=_TIMEOUT_S)
        except KafkaException as error:
            raise KafkaUnavailableError(f"Dead-letter queue {self._topic}: {error_text(error)}") from error
        failed = [tp for tp in found if tp.error is not None]
        if failed:  # a partition read as "nothing sent" would have its letters sent again
            raise KafkaUnavailableError(
                f"Dead-letter queue {self._topic}: the offsets of group {dead_letter_id(self._connector)} could not "
                f"be read for {failed[0].topic}-{failed[0].partition} ({failed[0].error.str()})."
            )
        return {(tp.topic, tp.partition): tp.offset for tp in found if tp.offset >= 0}

    def send(self, letters: Sequence[DeadLetter], marks: Mapping[tuple[str, int], int]) -> None:
        """Produce ``letters`` and commit ``marks`` for the group, in one transaction.

        Raises:
            CommitConflictError: a newer run of the connector fenced this one.
            RecordError: a letter is larger than the producer or the topic accepts; the transaction was aborted.
            KafkaUnavailableError: the transaction failed; it was aborted (or, when even the abort
                failed, it is aborted by the broker at its timeout or by the next run's start).
        """
        producer = self._producer
        offsets = [
            TopicPartition(topic, partition, offset) for (topic, partition), offset in sorted(marks.items())
        ]
        self._undelivered = None
        try:
            producer.begin_transaction()
            for letter in letters:
                self._produce(letter)
            producer.send_offsets_to_transaction(
                offsets, self._consumer.consumer_group_metadata(), _TIMEOUT_S
            )
            producer.commit_transaction(_TIMEOUT_S)
        except _TooLarge as error:
            self._abort()
            raise RecordError(str(error)) from error.__cause__
        except KafkaException as error:
            if error_code(error) in _FENCED:
                raise CommitConflictError(
                    f"Dead-letter queue {self._topic}: another run of connector {self._connector} took over "
                    f"({error_text(error)})."
                ) from error
            aborted = self._abort()
            if error_code(error) == KafkaError.TOPIC_AUTHORIZATION_FAILED or (
                self._undelivered is not None and self._undelivered.code() in _NO_TOPIC_OR_DENIED
            ):  # the topic refused the letters, in the commit's error or a delivery's: missing, or no WRITE
                raise self._undeliverable() from None
            denied = denial(error, self._config, *self._acls)
            if denied is not None:
                raise denied from None
            cause = error_text(error) if self._undelivered is None else self._undelivered.str()
            raise KafkaUnavailableError(
                f"Dead-letter queue {self._topic}: {cause}"
                + ("" if aborted else "; the transaction could not be aborted either (the broker aborts it at its "
                   "timeout, or the next run does at its start)")
            ) from error

    def _abort(self) -> bool:
        """Abort the open transaction, whatever failed in it; False when the abort failed too."""
        try:
            self._producer.abort_transaction(_TIMEOUT_S)
        except KafkaException:
            return False
        return True

    def _produce(self, letter: DeadLetter) -> None:
        headers = list(letter.headers)
        if self._context:
            headers.extend(letter.context_headers(self._connector, 0))
        extra = {} if letter.timestamp is None else {"timestamp": letter.timestamp}
        while True:
            try:
                self._producer.produce(
                    self._topic, value=letter.value, key=letter.key, headers=headers, on_delivery=self._delivered,
                    **extra,
                )
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                self._producer.poll(0.1)
            except KafkaException as error:
                if error_code(error) != KafkaError.MSG_SIZE_TOO_LARGE:
                    raise
                size = len(letter.key or b"") + len(letter.value or b"") + sum(
                    len(name) + len(value or b"") for name, value in headers)
                raise _TooLarge(
                    f"The dead letter of {letter.topic}-{letter.partition}@{letter.offset} ({size} bytes with its "
                    "headers) is larger than a Kafka producer sends by default (message.max.bytes, 1,000,000 bytes): "
                    "turn errors.deadletterqueue.context.headers.enable off if the headers make the difference (the "
                    "stack trace is the largest), or skip such records without a dead-letter topic."
                ) from error

    def _undeliverable(self) -> ConfigError:
        """Why the topic refused the letters: it does not exist and was not created for the producer (a
        broker answers that as an authorization failure when the principal may not create topics), or
        the principal may not write to it."""
        admin = AdminClient(dict(self._config), logger=client_logger())
        try:
            admin.describe_topics(TopicCollection([self._topic]), request_timeout=_TIMEOUT_S)[self._topic].result()
        except KafkaException as error:
            if error_code(error) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                return ConfigError(
                    f"Dead-letter queue {self._topic}: the topic does not exist and the brokers did not create it "
                    f"for {principal(self._config)} ({self._undelivered_text()}). Create it (kafka-topics "
                    f"--bootstrap-server <brokers> --create --topic {self._topic}), or let the brokers create it: "
                    "auto.create.topics.enable=true and CREATE on the cluster for that principal (kafka-acls "
                    "--bootstrap-server <brokers> --add --allow-principal User:<principal> --operation Create "
                    "--cluster)."
                )
        return access_denied(self._acls[0], self._config)

    def _undelivered_text(self) -> str:
        return "" if self._undelivered is None else self._undelivered.str()

    def _delivered(self, error: KafkaError | None, _message: object) -> None:
        if error is not None and self._undelivered is None:
            self._undelivered = error

    def close(self) -> None:
        """Release the producer and the group's client."""
        self._producer.flush(_TIMEOUT_S)
        self._consumer.close()


class _TooLarge(Exception):
    """A letter the producer refused for its size (raised inside :meth:`KafkaDeadLetterQueue.send`)."""
