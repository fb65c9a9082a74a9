from __future__ import annotations

import dataclasses

import pytest

from lakesink.adapters.kafka.offsets import EARLIEST, LATEST
from lakesink.adapters.kafka.source_options import SourceOptions, decode_options, encode_options
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy


def test_credentials_travel_under_redactable_secret_keys_and_come_back_as_secrets() -> None:
    settings = {
        "bootstrap.servers": "b:1",
        "sasl.jaas.config": "x required password=\"p\";",
        "ssl.key.password": Secret("k"),
        "custom.token.thing": Secret("t"),
    }

    options = encode_options(settings)

    assert options == {
        "bootstrap.servers": "b:1",
        "secret.sasl.jaas.config": 'x required password="p";',
        "secret.ssl.key.password": "k",
        "secret.custom.token.thing": "t",
    }
    decoded = decode_options(options)
    assert decoded["bootstrap.servers"] == "b:1"
    assert decoded["ssl.key.password"] == Secret("k")
    assert isinstance(decoded["sasl.jaas.config"], Secret)


def test_options_parse_flush_rules_with_interval_in_seconds() -> None:
    options = SourceOptions.parse(
        {
            "bootstrap.servers": "b:1",
            "topics": "a,b",
            "flush.count": "100",
            "flush.interval": "1.5",
            "maxRecordsPerPartition": "1000",
            "startingOffsets": "latest",
        }
    )

    assert options.policy.flush_count == 100
    assert options.policy.flush_interval_ms == 1500
    assert options.policy.max_records_per_partition == 1000
    assert options.starting.default == LATEST
    assert options.ending.default == LATEST


def test_options_are_case_insensitive_as_spark_lowercases_them() -> None:
    options = SourceOptions.parse({"bootstrap.servers": "b:1", "topics": "t", "startingoffsets": "earliest"})

    assert options.starting.default == EARLIEST


def test_invalid_flush_count_names_the_option() -> None:
    with pytest.raises(ConfigError, match="flush.count"):
        SourceOptions.parse({"bootstrap.servers": "b:1", "topics": "t", "flush.count": "many"})


@pytest.mark.parametrize("options", [{}, {"topics": "t", "topics.regex": "t.*"}])
def test_exactly_one_of_topics_and_topics_regex_is_required(options: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="topics.regex"):
        SourceOptions.parse({"bootstrap.servers": "b:1", **options}).selection()


def test_topics_regex_must_match_the_whole_name_and_never_internal_topics() -> None:
    selection = SourceOptions.parse({"bootstrap.servers": "b:1", "topics.regex": "orders.*"}).selection()

    assert selection.matches("orders-eu")
    assert not selection.matches("old-orders")
    assert not selection.matches("__orders")


def test_options_built_directly_default_to_what_unset_options_parse_to() -> None:
    client = {"bootstrap.servers": "b:1"}

    built = SourceOptions(topics="t", policy=AdmissionPolicy(flush_count=5), client_settings=client)
    parsed = SourceOptions.parse({**client, "topics": "t", "flush.count": "5"})

    assert built == dataclasses.replace(parsed, client_settings=client)
