from __future__ import annotations

import pytest

from lakesink.adapters.kafka.client_config import (
    admin_config,
    consumer_config,
    create_consumer,
    create_producer,
    ignored_settings,
    is_sensitive,
    producer_config,
)
from lakesink.domain.config.passthrough import parse_kafka_client
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError

BASE = {"bootstrap.servers": "b:9092"}


def test_pass_through_settings_reach_the_consumer_and_connector_settings_do_not() -> None:
    config = consumer_config(
        {
            **BASE,
            "kafka.security.protocol": "SASL_SSL",
            "ssl.ca.location": "/ca.pem",
            "client.id": "me",
            "fetch.max.wait.ms": "200",
            "connect.s3.kcql": "INSERT INTO b SELECT * FROM t",
            "topics": "t",
        },
        group_id="g",
    )

    assert config["security.protocol"] == "SASL_SSL"
    assert config["ssl.ca.location"] == "/ca.pem"
    assert config["client.id"] == "me"
    assert config["fetch.wait.max.ms"] == "200"
    assert "connect.s3.kcql" not in config and "topics" not in config
    assert config["group.id"] == "g" and config["enable.auto.commit"] is False


def test_secret_values_are_revealed_in_the_client_config() -> None:
    config = producer_config({**BASE, "sasl.password": Secret("hunter2"), "sasl.username": "u"})

    assert config["sasl.password"] == "hunter2"


def test_plain_jaas_config_is_translated_to_librdkafka_username_and_password() -> None:
    jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s\\"ecret";'

    config = admin_config({**BASE, "sasl.jaas.config": Secret(jaas), "sasl.mechanism": "PLAIN"})

    assert config["sasl.username"] == "alice"
    assert config["sasl.password"] == 's"ecret'
    assert "sasl.jaas.config" not in config


def test_unsupported_jaas_login_module_is_a_config_error_without_the_secret() -> None:
    jaas = 'com.example.Kerberos required password="hunter2";'

    with pytest.raises(ConfigError) as caught:
        consumer_config({**BASE, "sasl.jaas.config": jaas}, group_id="g")

    assert "hunter2" not in str(caught.value)


def test_java_trust_store_is_rejected_with_a_hint() -> None:
    with pytest.raises(ConfigError, match="ssl.ca.location"):
        consumer_config({**BASE, "ssl.truststore.location": "/ts.jks"}, group_id="g")


def test_missing_bootstrap_servers_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="bootstrap.servers"):
        producer_config({"client.id": "x"})


def test_librdkafka_rejection_becomes_a_config_error_that_hides_the_value() -> None:
    config = consumer_config({**BASE, "security.protocol": "hunter2"}, group_id="g")

    with pytest.raises(ConfigError) as caught:
        create_consumer(config)

    assert "security.protocol" in str(caught.value)
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("key", "sensitive"),
    [
        ("sasl.password", True),
        ("kafka.sasl.jaas.config", True),
        ("value.converter.basic.auth.user.info", True),
        ("ssl.key.password", True),
        ("sasl.username", False),
        ("ssl.ca.location", False),
    ],
)
def test_credential_keys_are_recognised_with_or_without_a_prefix(key: str, sensitive: bool) -> None:
    assert is_sensitive(key) is sensitive


def test_consumers_recheck_a_full_fetch_queue_after_10_ms_unless_told_otherwise() -> None:
    assert consumer_config(BASE, group_id="g")["fetch.queue.backoff.ms"] == 10
    configured = consumer_config({**BASE, "kafka.fetch.queue.backoff.ms": "250"}, group_id="g")
    assert configured["fetch.queue.backoff.ms"] == "250"
    create_consumer(configured).close()  # librdkafka knows the setting


def test_producer_batching_and_queue_settings_reach_the_restore_producer() -> None:
    batching = {
        "batch.num.messages": "20000",
        "queue.buffering.max.messages": "500000",
        "queue.buffering.max.kbytes": "262144",
        "queue.buffering.max.ms": "50",
    }
    settings = parse_kafka_client({f"producer.{key}": value for key, value in batching.items()}, "source")

    config = producer_config({**BASE, **settings})

    assert {key: config[key] for key in batching} == batching
    create_producer(config).flush(0)  # librdkafka accepts every one of them


def test_producers_connect_to_every_broker_at_once_unless_told_otherwise() -> None:
    assert producer_config(BASE)["enable.sparse.connections"] is False
    settings = parse_kafka_client({"producer.enable.sparse.connections": "true"}, "source")
    configured = producer_config({**BASE, **settings})
    assert configured["enable.sparse.connections"] == "true"
    create_producer(configured).flush(0)  # librdkafka knows the setting


def test_every_client_gets_the_same_tls_and_sasl_settings_unchanged() -> None:
    """The preflight probe (admin), the sink's driver and executors (consumers) and the restore's
    producers all connect with the config's security settings, exactly as written."""
    security = {
        "security.protocol": "SASL_SSL",
        "ssl.ca.location": "/etc/kafka/ca.pem",
        "ssl.certificate.location": "/etc/kafka/client.pem",
        "ssl.key.location": "/etc/kafka/client.key",
        "ssl.endpoint.identification.algorithm": "https",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "sink",
    }
    settings = {**BASE, **security, "ssl.key.password": Secret("k"), "sasl.password": Secret("p")}
    expected = {**security, "ssl.key.password": "k", "sasl.password": "p"}

    for config in (admin_config(settings), consumer_config(settings, group_id="g"), producer_config(settings)):
        assert {key: config[key] for key in expected} == expected


def test_settings_librdkafka_never_gets_are_named_so_the_source_can_warn_about_them() -> None:
    settings = {
        "bootstrap.servers": "b:1",
        "group.id": "g",
        "fetch.max.wait.ms": "5",
        "sasl.mechanism": "PLAIN",
        "max.poll.records": "5",
        "kafka.metadata.max.age.ms": "1000",
    }

    assert ignored_settings(settings) == ["kafka.metadata.max.age.ms", "max.poll.records"]
