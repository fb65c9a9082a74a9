"""Kafka Connect's error reporting keys, read the same way for every sink dialect.

``errors.deadletterqueue.topic.name`` sends each record the sink skips as poison to a dead-letter
topic (with Connect's error context headers under
``errors.deadletterqueue.context.headers.enable=true``); ``errors.log.enable`` logs each one in
Connect's words, with its coordinates under ``errors.log.include.messages=true``. Connect's error
reporting is framework-level, so a Lenses config takes the same keys as a Confluent or Aiven one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lakesink.domain.errors import ConfigError

DLQ_TOPIC = "errors.deadletterqueue.topic.name"
DLQ_REPLICATION = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS = "errors.deadletterqueue.context.headers.enable"
LOG_ENABLE = "errors.log.enable"
LOG_MESSAGES = "errors.log.include.messages"

_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")


@dataclass(frozen=True, slots=True)
class ErrorReporting:
    """Where the records a sink skips are reported.

    Attributes:
        dlq_topic: the dead-letter topic; None: no dead-letter queue (Connect's default, blank).
        context_headers: add Connect's ``__connect.errors.*`` headers to each dead letter.
        log: log each skipped record in Connect's words (``LogReporter``).
        log_record: include the record's topic, partition, offset and timestamp in that line.
    """

    dlq_topic: str | None = None
    context_headers: bool = False
    log: bool = False
    log_record: bool = False


def parse_error_reporting(
    props: Mapping[str, str],
    *,
    skips_poison: bool,
    skip_setting: str,
    topics: tuple[str, ...],
    topics_regex: str | None,
) -> ErrorReporting:
    """The error reporting of a sink config, validated as Kafka Connect does, plus one rule of lakesink's.

    ``skips_poison`` says whether the config skips records that cannot be written (``skip_setting``
    names the key that would). A dead-letter topic needs it: Kafka Connect, under
    ``errors.tolerance=none``, sends the failing record and then stops the task, and sends it again
    on every restart; lakesink refuses that combination rather than send duplicates.

    Raises:
        ConfigError: a bad boolean or replication factor, a topic name Kafka refuses, the
            dead-letter topic among the topics read, or a dead-letter topic without skipping.
    """
    topic = props.get(DLQ_TOPIC, "").strip() or None
    _replication(props)
    reporting = ErrorReporting(
        dlq_topic=topic,
        context_headers=_flag(props, DLQ_CONTEXT_HEADERS),
        log=_flag(props, LOG_ENABLE),
        log_record=_flag(props, LOG_MESSAGES),
    )
    if topic is None:
        return reporting
    if not _TOPIC.fullmatch(topic) or topic in (".", ".."):
        raise ConfigError(
            f"Invalid value {topic} for configuration {DLQ_TOPIC}: a topic name is 1 to 249 of a-z, A-Z, 0-9, '.', "
            "'_' and '-'."
        )
    if topic in topics:
        raise ConfigError(
            f"The DLQ topic '{topic}' may not be included in the list of topics ('topics={','.join(topics)}') "
            "consumed by the connector"
        )
    if topics_regex is not None and _matches(topics_regex, topic):
        raise ConfigError(
            f"The DLQ topic '{topic}' may not be matched by the regex for the topics ('topics.regex={topics_regex}') "
            "consumed by the connector"
        )
    if not skips_poison:
        raise ConfigError(
            f"{DLQ_TOPIC} needs {skip_setting}: only a record the sink skips goes to the dead-letter queue (Kafka "
            "Connect would send the record and still stop the task, then send it again on each restart)."
        )
    return reporting


def _matches(regex: str, topic: str) -> bool:
    """Whether ``regex`` selects ``topic``; an invalid regex is reported where the topics are read."""
    try:
        return re.fullmatch(regex, topic) is not None
    except re.error:
        return False


def _flag(props: Mapping[str, str], key: str) -> bool:
    value = props.get(key, "false").strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(
            f"Invalid value {props[key]} for configuration {key}: Expected value to be either true or false"
        )
    return value == "true"


def _replication(props: Mapping[str, str]) -> None:
    """Connect's replication factor of a dead-letter topic it creates: a short, -1 for the broker's
    default. lakesink does not create the topic (as for every topic), so the value is only checked."""
    raw = props.get(DLQ_REPLICATION, "3").strip()
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value == 0 or not -1 <= value <= 32767:
        raise ConfigError(
            f"Invalid value {raw} for configuration {DLQ_REPLICATION}: must be -1 (broker default) or 1 to 32767"
        )
