"""What a sink or restore run needs from its environment, checked before Spark starts: its buckets and its Kafka cluster.

A wrong endpoint, credential, bucket or broker address is then one ``lakesink: error:`` line within
seconds, naming the settings to fix as the config in hand spells them
(:mod:`lakesink.domain.config.store_keys`), instead of a traceback after the JVM started.
See docs/sink.md, "Start-up (the store is the source of truth)".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from lakesink.adapters.kafka.authorization import check_group, check_topics
from lakesink.adapters.kafka.client_config import admin_config, connector_client_settings
from lakesink.adapters.kafka.dead_letter_queue import dead_letter_id
from lakesink.adapters.kafka.group_offsets import connect_group_id
from lakesink.adapters.kafka.reachability import kafka_topics
from lakesink.adapters.storage import open_store
from lakesink.domain.config.backend_parsing import prefix_of
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.store_keys import StoreKeys, keys_of, store_keys
from lakesink.domain.dialects.aiven.source_config import is_aiven_source_config
from lakesink.domain.dialects.registry import sink_dialect
from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ConfigError,
    KafkaAccessDeniedError,
    LakesinkError,
    StorageError,
    StoreTlsError,
)
from lakesink.domain.restore.plan import RestorePlan
from lakesink.domain.statement_plan import plan_sink

logger = logging.getLogger(__name__)


def check_sink_environment(settings: ConnectorSettings) -> None:
    """Check that every target bucket answers and that the Kafka cluster does; warn about missing topics.

    Raises:
        ConfigError: a bucket does not exist or refuses the credentials; Kafka refuses the client.
        StorageError: the store does not answer.
        KafkaUnavailableError: no broker answers.

    Every message is scrubbed of the values config providers supplied (``${env:…}`` servers too).
    """
    check_sink_buckets(settings)
    config = admin_config(connector_client_settings(settings))
    with _scrubbed(settings.hidden):
        topics = kafka_topics(config)
        check_sink_access(settings, config)
    missing = [topic for topic in settings.topics if topic not in topics]
    if missing:
        logger.warning(
            settings.hidden.scrub(
                f"topics: {', '.join(missing)} not on the cluster at bootstrap.servers={settings.bootstrap_servers} "
                f"yet; the sink reads {'them' if len(missing) > 1 else 'it'} once created"
            )
        )


def check_sink_access(settings: ConnectorSettings, config: Mapping[str, Any]) -> None:
    """Check the ACLs a sink run needs (docs/kafka.md, "SASL/SCRAM and ACLs"), each in one request.

    READ on its topics (a topic it may not DESCRIBE is otherwise left out of the metadata, as if it
    did not exist), READ on group ``connect-<name>`` (at-least-once resumes from it; exactly-once only
    keeps it current for lag tools, so there a missing ACL is a warning), and with a dead-letter topic
    WRITE on it and READ on group ``lakesink-dlq-<name>`` (its transactional id is checked when the
    queue opens: only initialising it tells).

    Raises:
        KafkaAccessDeniedError: the first ACL missing (but the group's in exactly-once mode).
    """
    check_topics(config, dict.fromkeys(settings.topics, ("READ",)))
    group = connect_group_id(settings.name)
    try:
        check_group(config, group)
    except KafkaAccessDeniedError as error:
        if not settings.exactly_once:
            raise
        logger.warning(settings.hidden.scrub(
            f"{error} Exactly-once mode resumes from the store's index and runs without it, but lag tools "
            f"(kafka-consumer-groups, Burrow, exporters) read the sink's lag from group {group} (docs/kafka.md)."
        ))
    dlq_topic = settings.error_reporting.dlq_topic
    if dlq_topic is not None:
        check_topics(config, {dlq_topic: ("WRITE",)})
        check_group(config, dead_letter_id(settings.name))


def check_sink_buckets(settings: ConnectorSettings) -> None:
    """Check that every bucket a sink config writes to answers (``lakesink verify`` needs no more).

    Raises:
        ConfigError: a bucket does not exist or refuses the credentials.
        StorageError: the store does not answer.
    """
    with _scrubbed(settings.hidden):
        store = open_store(settings.backend, settings.storage)
        for bucket in sorted({statement.bucket for statement in plan_sink(settings).statements}):
            _checked(store_keys(settings), store.check_bucket, bucket)


def check_restore_environment(
    props: Mapping[str, str], plan: RestorePlan, provided: Collection[str] = ()
) -> None:
    """The same checks for a restore: every listed bucket answers, and so does the Kafka cluster.

    ``provided`` names the keys a config provider filled: their values never appear in an error.

    Raises:
        ConfigError, StorageError, KafkaUnavailableError: as :func:`check_sink_environment`.
    """
    keys = keys_of(_dialect(props), plan.backend, _lenses_prefix(props), role="source")
    with _scrubbed(HiddenValues.of(props, provided)):
        store = open_store(plan.backend, plan.storage)
        for bucket in sorted({root.bucket for root in plan.roots}):
            _checked(keys, store.check_bucket, bucket)
        config = admin_config(plan.producer)
        kafka_topics(config)
        check_restore_access(plan, config)


def check_restore_access(plan: RestorePlan, config: Mapping[str, Any]) -> None:
    """Check the ACLs a restore needs on the topics that exist: WRITE on its target topics, READ and
    WRITE on its progress topic (CREATE on a progress topic still to create, and WRITE on its
    transactional ids, are checked by the requests that need them).

    Raises:
        KafkaAccessDeniedError: the first ACL missing.
    """
    check_topics(config, {root.topic: ("WRITE",) for root in plan.roots if root.topic})
    check_topics(config, {plan.progress_topic: ("READ", "WRITE")})


@contextmanager
def _scrubbed(hidden: HiddenValues) -> Iterator[None]:
    """Re-raise a lakesink error with the provided values masked in its message."""
    try:
        yield
    except LakesinkError as error:
        message = str(error)
        scrubbed = hidden.scrub(message)
        if scrubbed == message:
            raise
        raise type(error)(scrubbed) from None


def _dialect(props: Mapping[str, str]) -> str:
    dialect = sink_dialect(props)
    if dialect is not None:
        return dialect.name
    return "aiven" if is_aiven_source_config(props) else "lenses"


def _lenses_prefix(props: Mapping[str, str]) -> str:
    return next((prefix for key in props if (prefix := prefix_of(key)) is not None), "connect.s3")


def _checked(keys: StoreKeys, check_bucket: Callable[[str], None], bucket: str) -> None:
    """``check_bucket(bucket)``, its failure extended with the settings to fix (``keys``).

    Raises:
        ConfigError: the bucket does not exist, access to it is denied, or TLS to the store failed.
        StorageError: the store cannot be reached (after the SDK's retries).
    """
    try:
        check_bucket(bucket)
    except BucketNotFoundError as error:
        elsewhere = (
            f" (and {keys.endpoint} / {keys.region}: it may be in another store or region)"
            if keys.region
            else ""
        )
        raise ConfigError(f"{error} Check {keys.bucket}{elsewhere}.") from None
    except AccessDeniedError as error:
        raise ConfigError(f"{error} Check {keys.credentials}.") from None
    except StoreTlsError as error:
        trust = f" and {keys.tls}, which must hold the CA that signed its certificate" if keys.tls else ""
        raise ConfigError(f"{error} Check {keys.endpoint}{trust}.") from None
    except StorageError as error:
        raise type(error)(f"{error} Check {keys.endpoint}.") from None
