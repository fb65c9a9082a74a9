"""The source's options: Spark's Kafka source names, lakesink's extensions, and nothing else."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from lakesink.adapters.kafka.offsets import EARLIEST, LATEST, OffsetSpec
from lakesink.adapters.kafka.source_options import SourceOptions, decode_options, encode_options
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.flush.admission import AdmissionPolicy

BASE = {"kafka.bootstrap.servers": "b:1", "subscribe": "t"}


def _parse(**options: str) -> SourceOptions:
    return SourceOptions.parse({**BASE, **options})


def test_credentials_travel_under_redactable_secret_keys_and_come_back_as_secrets() -> None:
    settings = {
        "kafka.bootstrap.servers": "b:1",
        "kafka.sasl.jaas.config": "x required password=\"p\";",
        "kafka.ssl.key.password": Secret("k"),
        "kafka.custom.token.thing": Secret("t"),
    }

    options = encode_options(settings)

    assert options == {
        "kafka.bootstrap.servers": "b:1",
        "secret.kafka.sasl.jaas.config": 'x required password="p";',
        "secret.kafka.ssl.key.password": "k",
        "secret.kafka.custom.token.thing": "t",
    }
    decoded = decode_options(options)
    assert decoded["kafka.bootstrap.servers"] == "b:1"
    assert decoded["kafka.ssl.key.password"] == Secret("k")
    assert isinstance(decoded["kafka.sasl.jaas.config"], Secret)
    parsed = SourceOptions.parse({**options, "subscribe": "t"})
    assert parsed.client_settings["ssl.key.password"] == Secret("k")


def test_kafka_settings_go_to_the_client_without_their_prefix() -> None:
    options = _parse(**{"kafka.security.protocol": "SASL_SSL", "kafka.client.id": "me"})

    assert options.client_settings == {"bootstrap.servers": "b:1", "security.protocol": "SASL_SSL", "client.id": "me"}


def test_options_parse_flush_rules_with_interval_in_seconds_and_the_spark_caps() -> None:
    options = _parse(
        **{
            "flush.count": "100",
            "flush.interval": "1.5",
            "maxRecordsPerPartition": "1000",
            "maxOffsetsPerTrigger": "5000",
            "startingOffsets": "latest",
        }
    )

    assert options.policy == AdmissionPolicy(
        flush_count=100, flush_interval_ms=1500, max_records_per_partition=1000, max_offsets_per_trigger=5000
    )
    assert options.starting == OffsetSpec(default=LATEST)
    assert options.ending is None


def test_option_names_match_in_any_case_as_in_spark() -> None:
    options = SourceOptions.parse(
        {"KAFKA.BOOTSTRAP.SERVERS": "b:1", "SubScribe": "t", "startingoffsets": "earliest", "INCLUDEHEADERS": "TRUE"}
    )

    assert (options.subscribe, options.starting, options.include_headers) == ("t", OffsetSpec(EARLIEST), True)


def test_starting_offsets_json_uses_minus_two_for_earliest_and_minus_one_for_latest() -> None:
    options = _parse(startingOffsets='{"t": {"0": -2, "1": -1, "2": 42}}')

    assert options.starting == OffsetSpec(EARLIEST, ((("t", 0), EARLIEST), (("t", 1), LATEST), (("t", 2), 42)))
    assert options.starting.resolve(("t", 0), 5, 9) == 5
    assert options.starting.resolve(("t", 1), 5, 9) == 9
    assert options.starting.resolve(("t", 3), 5, 9) == 5  # not named: earliest


def test_a_stream_starts_at_latest_and_a_batch_read_at_earliest_unless_told() -> None:
    assert _parse().for_stream().starting == OffsetSpec(default=LATEST)
    batch = _parse().for_batch()
    assert (batch.starting, batch.ending) == (OffsetSpec(default=EARLIEST), OffsetSpec(default=LATEST))
    assert _parse(startingOffsets="earliest").for_stream().starting == OffsetSpec(default=EARLIEST)


def test_a_stream_refuses_ending_offsets() -> None:
    with pytest.raises(ConfigError, match="endingOffsets is not valid in streaming queries"):
        _parse(endingOffsets="latest").for_stream()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"startingOffsets": "latest"}, "startingOffsets can't be latest for batch queries"),
        ({"startingOffsets": '{"t": {"0": -1}}'}, "startingOffsets for t-0 can't be latest"),
        ({"endingOffsets": "earliest"}, "endingOffsets can't be earliest for batch queries"),
        ({"endingOffsets": '{"t": {"0": -2}}'}, "endingOffsets for t-0 can't be earliest"),
        ({"startingOffsets": '{"t": {"0": 1}}', "endingOffsets": '{"t": {"1": 5}}'}, "must name the same partitions"),
        ({"startingOffsets": '{"t": {"0": 9}}', "endingOffsets": '{"t": {"0": 5}}'}, r"t-0 \(9\) is after"),
    ],
)
def test_a_batch_read_refuses_what_spark_refuses(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _parse(**options).for_batch()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"subscribe": "t", "subscribePattern": "t.*"}, "Only one of the options subscribe, subscribePattern, assign"),
        ({"subscribe": " , "}, "No topics to subscribe to"),
        ({"subscribePattern": " "}, "Pattern to subscribe is empty"),
        ({"subscribePattern": "("}, "Invalid subscribePattern"),
        ({"assign": "t"}, "No topic-partitions to assign"),
        ({"assign": '{"t": ["a"]}'}, "Invalid assign"),
    ],
)
def test_topic_selection_errors_name_the_option(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SourceOptions.parse({"kafka.bootstrap.servers": "b:1", **options})


def test_one_of_subscribe_subscribe_pattern_and_assign_is_required() -> None:
    with pytest.raises(ConfigError, match="One of the options subscribe, subscribePattern, assign must be set"):
        SourceOptions.parse({"kafka.bootstrap.servers": "b:1"})


def test_kafka_bootstrap_servers_is_required() -> None:
    with pytest.raises(ConfigError, match="kafka.bootstrap.servers must be set"):
        SourceOptions.parse({"subscribe": "t"})


def test_subscribe_pattern_must_match_the_whole_name_and_never_internal_topics() -> None:
    selection = SourceOptions.parse({"kafka.bootstrap.servers": "b:1", "subscribePattern": "orders.*"}).selection()

    assert selection.matches("orders-eu")
    assert not selection.matches("old-orders")
    assert not selection.matches("__orders")


def test_assign_selects_the_named_partitions_only() -> None:
    selection = SourceOptions.parse({"kafka.bootstrap.servers": "b:1", "assign": '{"a": [0, 2], "b": [1]}'}).selection()

    assert [selection.selects(key) for key in (("a", 0), ("a", 1), ("a", 2), ("b", 1), ("c", 0))] == [
        True, False, True, True, False
    ]


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("kafka.auto.offset.reset", "startingOffsets"),
        ("kafka.key.deserializer", "DataFrame operations"),
        ("kafka.value.deserializer", "DataFrame operations"),
        ("kafka.enable.auto.commit", "never commits"),
        ("kafka.interceptor.classes", "interceptors"),
    ],
)
def test_kafka_settings_spark_refuses_are_refused_naming_what_to_do(key: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"Kafka option {key} is not supported: .*{message}"):
        _parse(**{key: "x"})


@pytest.mark.parametrize(
    "name",
    [
        "startingOffsetsByTimestamp",
        "startingTimestamp",
        "endingOffsetsByTimestamp",
        "endingTimestamp",
        "startingOffsetsByTimestampStrategy",
        "minOffsetsPerTrigger",
        "maxTriggerDelay",
        "fetchOffset.numRetries",
        "fetchOffset.retryIntervalMs",
    ],
)
def test_spark_options_lakesink_does_not_implement_are_refused_by_name(name: str) -> None:
    with pytest.raises(ConfigError, match=f"Option {name} of Spark's Kafka source is not supported"):
        _parse(**{name.lower(): "1"})


@pytest.mark.parametrize("name", ["subscibe", "topics", "topics.regex", "bootstrap.servers", "group.id", "topic"])
def test_an_unknown_option_is_an_error_listing_the_valid_names(name: str) -> None:
    with pytest.raises(ConfigError, match=f"Unknown option '{name}' for lakesink-kafka. Valid options: kafka.<"):
        _parse(**{name: "x"})


def test_group_id_comes_from_kafka_group_id_else_group_id_prefix_else_lakesink() -> None:
    assert _parse().group_id == "lakesink-source"
    assert _parse(groupIdPrefix="jobs").group_id == "jobs"
    assert _parse(groupIdPrefix="jobs", **{"kafka.group.id": "mine"}).group_id == "mine"


def test_isolation_level_is_a_kafka_setting_read_committed_by_default() -> None:
    assert _parse().read_committed
    assert not _parse(**{"kafka.isolation.level": "read_uncommitted"}).read_committed


def test_fail_on_data_loss_and_include_headers_are_booleans_with_spark_defaults() -> None:
    assert (_parse().fail_on_data_loss, _parse().include_headers) == (True, False)
    assert (_parse(failOnDataLoss="false").fail_on_data_loss, _parse(includeHeaders="true").include_headers) == (
        False, True
    )
    with pytest.raises(ConfigError, match="failOnDataLoss"):
        _parse(failOnDataLoss="sometimes")


def test_the_poll_timeout_is_the_stall_timeout_and_only_one_may_be_set() -> None:
    assert _parse().stall_timeout_s == 60.0
    assert _parse(**{"kafkaConsumer.pollTimeoutMs": "2500"}).stall_timeout_s == 2.5
    with pytest.raises(ConfigError, match="Set one of readStallTimeoutSeconds and kafkaConsumer.pollTimeoutMs"):
        _parse(**{"kafkaConsumer.pollTimeoutMs": "2500", "readStallTimeoutSeconds": "3"})


def test_the_split_size_is_the_smaller_of_max_range_offsets_and_max_records_per_partition() -> None:
    assert _parse().split_offsets is None
    assert _parse(maxRecordsPerPartition="50").split_offsets == 50
    assert _parse(maxRecordsPerPartition="50", maxRangeOffsets="20").split_offsets == 20


@pytest.mark.parametrize(
    "name", ["flush.count", "maxOffsetsPerTrigger", "maxRecordsPerPartition", "minPartitions", "arrowBatchRecords"]
)
@pytest.mark.parametrize("value", ["many", "0"])
def test_invalid_numbers_name_the_option(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        _parse(**{name: value})


def test_options_built_directly_default_to_what_unset_options_parse_to() -> None:
    client = {"bootstrap.servers": "b:1"}

    built = SourceOptions(subscribe="t", policy=AdmissionPolicy(flush_count=5), client_settings=client)
    parsed = _parse(**{"flush.count": "5"})

    assert built == dataclasses.replace(parsed, client_settings=client)


def test_a_batch_read_warns_about_the_stream_only_options_it_ignores(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        _parse(**{"maxOffsetsPerTrigger": "10", "flush.count": "5"}).for_batch()

    assert "flush.count, maxOffsetsPerTrigger ignored in batch reads" in caplog.text
