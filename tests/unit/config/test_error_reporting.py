"""Kafka Connect's error reporting keys in every sink dialect: accepted, validated, carried to the run."""

from __future__ import annotations

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.error_reporting import ErrorReporting
from lakesink.domain.dialects.aiven.connector import connector_settings as aiven_settings
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.dialects.confluent.connector import connector_settings as confluent_settings
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from lakesink.domain.errors import ConfigError
from tests.support.aiven_configs import CONSOLE_WITH_AWS

KCQL = "INSERT INTO bucket SELECT * FROM orders STOREAS `JSON`"
CONFLUENT = {
    "name": "s3-sink",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "topics": "orders",
    "s3.bucket.name": "bucket",
    "s3.region": "us-east-1",
    "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
    "flush.size": "100",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
}
FULL = {
    "errors.deadletterqueue.topic.name": "dlq",
    "errors.deadletterqueue.context.headers.enable": "true",
    "errors.deadletterqueue.topic.replication.factor": "1",
    "errors.log.enable": "true",
    "errors.log.include.messages": "true",
}
REPORTING = ErrorReporting(dlq_topic="dlq", context_headers=True, log=True, log_record=True)


def lenses(**extra: str) -> ConnectorSettings:
    props = {"name": "demo", "topics": "orders", "connect.s3.kcql": KCQL, **extra}
    return ConnectorSettings.from_properties(props)


def test_a_lenses_config_takes_the_dead_letter_queue_with_the_noop_error_policy() -> None:
    assert lenses(**FULL, **{"connect.s3.error.policy": "NOOP"}).error_reporting == REPORTING
    assert lenses().error_reporting == ErrorReporting()


def test_confluent_and_aiven_configs_carry_their_errors_keys_to_the_run() -> None:
    confluent = ConfluentSinkConfig.from_properties({**CONFLUENT, **FULL, "errors.tolerance": "all"})
    assert confluent_settings(confluent).error_reporting == REPORTING
    aiven = AivenSinkConfig.from_properties({**CONSOLE_WITH_AWS, **FULL, "errors.tolerance": "all"})
    assert aiven_settings(aiven).error_reporting == REPORTING


def test_the_log_keys_need_no_dead_letter_topic() -> None:
    assert lenses(**{"errors.log.enable": "true"}).error_reporting == ErrorReporting(log=True)


@pytest.mark.parametrize(
    ("load", "needs"),
    [
        (lambda: lenses(**{"errors.deadletterqueue.topic.name": "dlq"}), "errors.tolerance=all or connect.s3.error.policy=NOOP"),
        (
            lambda: ConfluentSinkConfig.from_properties(
                {**CONFLUENT, "errors.deadletterqueue.topic.name": "dlq"}
            ),
            "errors.tolerance=all",
        ),
        (
            lambda: AivenSinkConfig.from_properties(
                {**CONSOLE_WITH_AWS, "errors.deadletterqueue.topic.name": "dlq"}
            ),
            "errors.tolerance=all",
        ),
    ],
    ids=["lenses", "confluent", "aiven"],
)
def test_a_dead_letter_topic_without_skipping_is_refused_naming_the_setting(load, needs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=f"errors.deadletterqueue.topic.name needs {needs}"):
        load()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"errors.deadletterqueue.topic.name": "orders"}, "may not be included in the list of topics"),
        ({"errors.deadletterqueue.topic.name": "bad topic"}, "a topic name is"),
        ({"errors.deadletterqueue.topic.replication.factor": "0"}, "replication.factor"),
        ({"errors.log.enable": "yes"}, "errors.log.enable: Expected value to be either true or false"),
    ],
)
def test_kafka_connects_rules_are_kept(extra: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        lenses(**extra, **{"connect.s3.error.policy": "NOOP"})


def test_a_dead_letter_topic_the_regex_selects_is_refused() -> None:
    props = {"name": "demo", "topics.regex": "ord.*", "connect.s3.kcql": KCQL.replace("orders", "`*`")}
    with pytest.raises(ConfigError, match="may not be matched by the regex"):
        ConnectorSettings.from_properties(
            {**props, "errors.deadletterqueue.topic.name": "ord-dlq", "connect.s3.error.policy": "NOOP"}
        )
