"""librdkafka's words turned into what a person acts on: the probe's verdicts and the client log's repeats."""

from __future__ import annotations

import logging

import pytest
from confluent_kafka import KafkaError, KafkaException

from lakesink.adapters.kafka import client_logs
from lakesink.adapters.kafka.reachability import _problem, kafka_topics
from lakesink.domain.errors import ConfigError, KafkaUnavailableError

CONFIG = {"bootstrap.servers": "broker-1:9092"}
TIMEOUT = KafkaException(
    KafkaError(KafkaError._TRANSPORT, "Failed to get metadata: Local: Broker transport failure")
)


def line(text: str) -> str:
    return f"FAIL [rdkafka#producer-1] [thrd:broker-1:9092/bootstrap]: broker-1:9092/bootstrap: {text}"


def test_a_refused_connection_is_the_environments_problem_quoting_what_the_client_saw() -> None:
    error = _problem(CONFIG, TIMEOUT, [line("Connect to ipv4#10.0.0.1:9092 failed: Connection refused")], 10)
    assert isinstance(error, KafkaUnavailableError)
    assert str(error).startswith(
        "No Kafka broker at bootstrap.servers=broker-1:9092 answered within 10 s (Connect to"
    )
    assert "Connection refused" in str(error) and "check bootstrap.servers" in str(error)


def test_rejected_credentials_name_the_sasl_settings() -> None:
    said = [line("SASL authentication error: Authentication failed: Invalid username or password")]
    error = _problem(CONFIG, TIMEOUT, said, 10)
    assert isinstance(error, ConfigError)
    assert "sasl.username / sasl.password" in str(error) and "Invalid username or password" in str(error)


def test_a_failed_tls_handshake_names_the_ssl_settings() -> None:
    said = [line("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed")]
    error = _problem(CONFIG, TIMEOUT, said, 10)
    assert isinstance(error, ConfigError) and "ssl.ca.location" in str(error)


def test_the_probe_against_a_closed_port_answers_within_its_timeout() -> None:
    with pytest.raises(
        KafkaUnavailableError, match=r"127\.0\.0\.1:9 answered within 1 s .*Connection refused"
    ):
        kafka_topics({"bootstrap.servers": "127.0.0.1:9"}, timeout_s=1)


def test_a_client_line_repeated_within_a_minute_is_shown_once_then_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = client_logs.client_logger()
    text = f"broker unique-{id(caplog)}: Connection refused"
    with caplog.at_level(logging.WARNING, logger=client_logs.LOGGER_NAME):
        for _ in range(5):
            logger.error(text)
    assert [record.getMessage() for record in caplog.records] == [text]
    assert client_logs.last_client_line() == text


def test_a_host_name_that_reads_like_tls_or_sasl_is_no_verdict() -> None:
    said = [line("Failed to resolve 'kafka-ssl-sasl-auth.corp:9093': Name or service not known")]
    assert isinstance(_problem(CONFIG, TIMEOUT, said, 10), KafkaUnavailableError)
