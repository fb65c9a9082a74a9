"""Kafka's authorization failures as one line naming the ACL to grant.

A cluster answers a missing ACL with a bare code, or not at all; so the driver asks first
(:func:`check_topics`, :func:`check_group`), and every place that talks to Kafka turns those codes
into a :class:`~lakesink.domain.errors.KafkaAccessDeniedError` (:func:`access_denied`) naming the
operation, resource and principal, with the ``kafka-acls`` command that grants it.
See docs/kafka.md, "SASL/SCRAM and ACLs".
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient

from lakesink.adapters.kafka.client_config import error_code
from lakesink.adapters.kafka.client_logs import client_logger
from lakesink.domain.errors import KafkaAccessDeniedError

logger = logging.getLogger(__name__)

CHECK_TIMEOUT_S = 10.0

_DENIED = {
    KafkaError.TOPIC_AUTHORIZATION_FAILED: "topic",
    KafkaError.GROUP_AUTHORIZATION_FAILED: "group",
    KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "transactional id",
}
"""librdkafka's codes for a request the broker's authorizer refused, by the kind of resource refused."""

_OPTION = {"topic": "--topic", "group": "--group", "transactional id": "--transactional-id"}


@dataclass(frozen=True)
class Acl:
    """What a command needs: ``operations`` (Kafka's names, ``READ``) on one resource.

    ``prefixed``: ``name`` is a prefix (the restore's transactional ids, one per origin).
    """

    operations: tuple[str, ...]
    resource: str
    name: str
    prefixed: bool = False


def principal(config: Mapping[str, Any]) -> str:
    """The principal the cluster sees, as far as the client config tells: ``User:<sasl.username>``."""
    user = config.get("sasl.username")
    return f"User:{user}" if user else "the client's principal"


def access_denied(acl: Acl, config: Mapping[str, Any], denied: str | None = None) -> KafkaAccessDeniedError:
    """The one-line error for a missing ``acl``; ``denied`` is the operation the broker refused when
    it is not the one to grant (DESCRIBE, which READ and WRITE include)."""
    who = principal(config)
    name = f"{acl.name}*" if acl.prefixed else acl.name
    ops = acl.operations
    wanted = " and ".join(ops) if len(ops) < 3 else ", ".join(ops[:-1]) + " and " + ops[-1]
    refused = denied or wanted
    grant = "grant it" if refused == wanted else f"grant {wanted}, which {'include' if len(ops) > 1 else 'includes'} {refused}"
    command = " ".join(
        [
            "kafka-acls --bootstrap-server <brokers> --add --allow-principal",
            who if who.startswith("User:") else "User:<principal>",
            *(f"--operation {op.capitalize()}" for op in ops),
            _OPTION[acl.resource],
            acl.name,
            *(["--resource-pattern-type prefixed"] if acl.prefixed else []),
        ]
    )
    return KafkaAccessDeniedError(f"Kafka denied {refused} on {acl.resource} '{name}' to {who}: {grant} ({command}).")


def is_denied(error: BaseException | KafkaError | None) -> bool:
    """Whether ``error`` is the broker's authorizer refusing a request."""
    return error_code(error) in _DENIED


@contextmanager
def denied_as(config: Mapping[str, Any], *acls: Acl) -> Iterator[None]:
    """Run the block; the broker refusing it access to a resource of one of ``acls``' kinds becomes
    that ACL's :func:`access_denied` error (any other failure passes unchanged)."""
    try:
        yield
    except KafkaException as error:
        denied = denial(error, config, *acls)
        if denied is None:
            raise
        raise denied from None


def denial(error: KafkaException, config: Mapping[str, Any], *acls: Acl) -> KafkaAccessDeniedError | None:
    """The :func:`access_denied` error of the one of ``acls`` whose kind of resource the broker refused
    in ``error``; None when it refused none of them (or ``error`` is no refusal)."""
    refused = _DENIED.get(error_code(error))  # type: ignore[arg-type]
    acl = next((acl for acl in acls if acl.resource == refused), None)
    return None if acl is None else access_denied(acl, config)


def check_topics(config: Mapping[str, Any], needs: Mapping[str, Sequence[str]]) -> None:
    """Check that the principal may do ``needs[topic]`` on each existing topic (a missing one is
    left to auto-creation).

    A topic the principal may not DESCRIBE is left out of the metadata (the sink would wait for it
    "to be created"), so the driver asks first: the principal's authorized operations, in one request.
    A cluster that cannot say (no ACLs, no authorized operations in its answers) is not checked.

    Raises:
        KafkaAccessDeniedError: for the first topic lacking an operation.
    """
    if not needs:
        return
    admin = AdminClient(dict(config), logger=client_logger())
    futures = admin.describe_topics(
        TopicCollection(sorted(needs)), include_authorized_operations=True, request_timeout=CHECK_TIMEOUT_S
    )
    for topic, future in sorted(futures.items()):
        acl = Acl(tuple(needs[topic]), "topic", topic)
        try:
            allowed = future.result().authorized_operations
        except KafkaException as error:
            if error_code(error) == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                raise access_denied(acl, config, _described(acl)) from None
            logger.debug("Topic %s not checked for %s: %s", topic, acl.operations, error)
            continue
        _require(acl, allowed, config)


def check_group(config: Mapping[str, Any], group: str, operation: str = "READ") -> None:
    """Check that the principal may do ``operation`` on consumer group ``group`` (READ: commit and
    fetch its offsets, which librdkafka otherwise retries until its timeout).

    A group the principal may not DESCRIBE makes librdkafka's coordinator lookup retry until the call
    times out, so the driver asks first.

    Raises:
        KafkaAccessDeniedError: it may not.
    """
    acl = Acl((operation,), "group", group)
    admin = AdminClient(dict(config), logger=client_logger())
    future = admin.describe_consumer_groups(
        [group], include_authorized_operations=True, request_timeout=CHECK_TIMEOUT_S
    )[group]
    try:
        allowed = future.result().authorized_operations
    except KafkaException as error:
        if error_code(error) == KafkaError.GROUP_AUTHORIZATION_FAILED:
            raise access_denied(acl, config, _described(acl)) from None
        logger.debug("Group %s not checked for %s: %s", group, operation, error)
        return
    _require(acl, allowed, config)


def _require(acl: Acl, allowed: Sequence[Any] | None, config: Mapping[str, Any]) -> None:
    if allowed is None:  # the broker did not say (no authorizer, or too old to tell)
        return
    names = {operation.name for operation in allowed}
    missing = tuple(operation for operation in acl.operations if operation not in names)
    if missing:
        raise access_denied(Acl(missing, acl.resource, acl.name, acl.prefixed), config)


def _described(acl: Acl) -> str | None:
    """DESCRIBE was refused: name it when it is not among the operations to grant (it is included)."""
    return None if "DESCRIBE" in acl.operations else "DESCRIBE"
