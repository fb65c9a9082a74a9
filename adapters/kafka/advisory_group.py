"""The group ``connect-<name>`` kept current in exactly-once mode, for the tools that read lag from it.

An exactly-once sink resumes from the store's index, but lag tools read a consumer group; so after
each index commit the sink commits the same positions to ``connect-<name>``, without waiting.
Nothing reads it back (:class:`AdvisoryGroup`). See docs/operations.md, "Lag in Kafka's tools,
and ``lakesink status``".
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from lakesink.adapters.kafka.authorization import Acl, access_denied, is_denied
from lakesink.adapters.kafka.client_config import admin_config, error_text
from lakesink.adapters.kafka.client_logs import client_logger
from lakesink.adapters.kafka.offsets import TopicPartitionKey
from lakesink.domain.config.secret import Secret

logger = logging.getLogger(__name__)

REQUEST_TIMEOUT_S = 30.0
"""How long one commit may take before it counts as failed (it never holds up a batch)."""
CLOSE_WAIT_S = 5.0
"""How long :meth:`AdvisoryGroup.close` waits for the last commits (the last batch's)."""


class AdvisoryGroup:
    """Commits a sink's durable positions to its consumer group without waiting, and never raises.

    An empty group with committed offsets (the admin API's OffsetCommit, no member joins). The commit
    is sent without waiting (the admin client's future), so a broker that does not answer never
    stalls a batch; one commit is in flight at a time, so they land in order (positions advised
    meanwhile are merged into the next). A failed commit (the group's READ ACL missing, a broker
    blip) is one WARNING per run, then DEBUG lines. A consumer's own commit was not used: closing a
    consumer whose commit is unanswered blocks for ~45 s.
    """

    def __init__(
        self, settings: Mapping[str, str | Secret], group_id: str, *, close_wait_s: float = CLOSE_WAIT_S
    ) -> None:
        self._config = admin_config(settings)
        self._group = group_id
        self._acl = Acl(("READ",), "group", group_id)
        self._close_wait_s = close_wait_s
        self._admin: AdminClient | None = None
        self._in_flight: Future[Any] | None = None
        self._unsent: dict[TopicPartitionKey, int] = {}
        self._warned = False
        self._failing = False

    def advise(self, positions: Mapping[TopicPartitionKey, int]) -> None:
        """Send a commit of ``positions`` (next offsets to read), or merge them into the next when one is
        in flight; a failure is logged, not raised."""
        self._unsent.update(positions)
        if self._in_flight is not None:
            if not self._in_flight.done():
                return
            self._settle(self._in_flight)
        self._send()

    def close(self) -> None:
        """Wait up to ``close_wait_s`` for the commit in flight and send what is left, then drop the client."""
        if self._in_flight is not None and self._wait(self._in_flight) and self._unsent:
            self._send()
            if self._in_flight is not None:
                self._wait(self._in_flight)
        self._admin = None  # librdkafka drops an unanswered request at once

    def _send(self) -> None:
        self._in_flight = None
        if not self._unsent:
            return
        offsets = [TopicPartition(topic, partition, offset) for (topic, partition), offset in sorted(self._unsent.items())]
        try:
            if self._admin is None:
                self._admin = AdminClient(self._config, logger=client_logger())
            futures = self._admin.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(self._group, offsets)], request_timeout=REQUEST_TIMEOUT_S
            )
        except (KafkaException, ValueError, TypeError) as error:  # the request could not even be made
            self._failed(error_text(error) if isinstance(error, KafkaException) else str(error))
            return
        self._unsent = {}
        self._in_flight = futures[self._group]

    def _wait(self, future: Future[Any]) -> bool:
        """Wait for ``future`` up to ``close_wait_s`` and log its outcome; whether it was answered."""
        try:
            future.exception(timeout=self._close_wait_s)
        except FutureTimeout:
            self._failed(f"no answer within {self._close_wait_s:g} s")
            return False
        self._settle(future)
        return True

    def _settle(self, future: Future[Any]) -> None:
        """Log the outcome of an answered commit."""
        self._in_flight = None
        error = future.exception()
        refused = (
            (error.args[0] if error.args else None)
            if isinstance(error, KafkaException)
            else next((tp.error for tp in future.result().topic_partitions if tp.error is not None), None)
        )
        if error is None and refused is None:
            if self._failing:
                logger.info("Consumer group %s is committed again", self._group)
            self._failing = False
            return
        if is_denied(refused):
            self._failed(str(access_denied(self._acl, self._config)))
        else:
            self._failed(refused.str() if hasattr(refused, "str") else str(error))

    def _failed(self, reason: str) -> None:
        self._failing = True
        if self._warned:
            logger.debug("Consumer group %s not committed: %s", self._group, reason)
            return
        self._warned = True
        logger.warning(
            "Consumer group %s not committed (%s). Lag tools (kafka-consumer-groups, Burrow, exporters) show the "
            "sink behind until it is; the sink goes on: it resumes from the store's index, not from the group. "
            "Further failures are logged at DEBUG.",
            self._group,
            reason,
        )
