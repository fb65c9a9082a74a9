"""ConnectorSettings.from_properties: key checks, topics, typed common settings, describe."""

from __future__ import annotations

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy, PartitionExtractorType, SchemaChangeDetector
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.formats import CompressionCodec

KCQL = "INSERT INTO bucket:prefix SELECT * FROM orders"
SOURCE_KCQL = "INSERT INTO t SELECT * FROM b:p"


def sink(**extra: str) -> dict[str, str]:
    return {"name": "demo", "topics": "orders", "connect.s3.kcql": KCQL, **extra}


def load(props: dict[str, str], role: str = "sink") -> ConnectorSettings:
    return ConnectorSettings.from_properties(props, role=role)


def test_minimal_sink_config_resolves_with_lenses_defaults() -> None:
    settings = load(sink())
    assert (settings.name, settings.backend, settings.prefix) == ("demo", "s3", "connect.s3")
    assert settings.statements[0].topic == "orders" and settings.topics == ("orders",)
    assert settings.error_policy is ErrorPolicy.THROW
    assert settings.compression_codec is CompressionCodec.UNCOMPRESSED
    assert settings.schema_change_detector is SchemaChangeDetector.DEFAULT
    assert settings.source is None


def test_common_settings_are_typed() -> None:
    settings = load(sink(**{
        "connect.s3.error.policy": "retry", "connect.s3.max.retries": "3", "connect.s3.retry.interval": "10",
        "connect.s3.compression.codec": "zstd", "connect.s3.compression.level": "9",
        "connect.s3.disable.flush.count": "true", "connect.s3.local.tmp.directory": "/tmp/x",
        "connect.s3.exactly.once.enable": "false", "connect.s3.indexes.name": "logs/indexes/",
        "connect.s3.schema.change.detector": "Compatibility",
        "connect.s3.skip.null.values": "true", "connect.s3.latest.schema.optimization.enabled": "true",
        "bootstrap.servers": "127.0.0.1:9092",
    }))
    assert settings.error_policy is ErrorPolicy.RETRY
    assert (settings.max_retries, settings.retry_interval_ms) == (3, 10)
    assert settings.compression_codec is CompressionCodec.ZSTD and settings.compression_level == 9
    assert settings.disable_flush_count and settings.local_tmp_directory == "/tmp/x"
    assert not settings.exactly_once
    assert settings.indexes_name == "logs/indexes"
    assert settings.schema_change_detector is SchemaChangeDetector.COMPATIBILITY
    assert settings.skip_null_values and settings.latest_schema_optimization
    assert settings.bootstrap_servers == "127.0.0.1:9092"


@pytest.mark.parametrize(
    ("key", "raw", "message"),
    [
        ("connect.s3.error.policy", "IGNORE", "expected one of NOOP, THROW, RETRY"),
        ("connect.s3.compression.codec", "LZMA", "expected one of UNCOMPRESSED"),
        ("connect.s3.compression.level", "23", "must be at most 22"),
        ("connect.s3.max.retries", "-2", "must be at least 0"),
        ("connect.s3.schema.change.detector", "strict", "expected one of"),
        ("connect.s3.delete.mode", "bulk", "is not supported yet"),
        ("connect.s3.indexes.name", "../escape", "may not be empty, '.' or '..'"),
        ("connect.s3.indexes.name", "/abs", "relative path"),
        ("connect.s3.indexes.gc.batch.size", "0", "is not supported yet"),
        ("connect.s3.exactly.once.enable", "yes", "expected true or false"),
        ("connect.s3.padding.strategy", "middle", "expected one of"),
    ],
)
def test_every_bad_value_names_its_key(key: str, raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        load(sink(**{key: raw}))
    assert key in str(caught.value)


def test_single_writer_mode_is_an_exactly_once_setting() -> None:
    assert load(sink(**{"connect.s3.exactly.once.single.writer": "true"})).single_writer
    assert not load(sink()).single_writer
    with pytest.raises(ConfigError, match="single.writer is true but connect.s3.exactly.once.enable is false"):
        load(sink(**{"connect.s3.exactly.once.single.writer": "true", "connect.s3.exactly.once.enable": "false"}))


def test_name_and_kcql_are_required() -> None:
    with pytest.raises(ConfigError, match="name is required"):
        load({"topics": "orders", "connect.s3.kcql": KCQL})
    with pytest.raises(ConfigError, match="connect.s3.kcql is required"):
        load({"name": "n", "topics": "orders", "connect.s3.aws.region": "r"})


def test_bad_kcql_surfaces_as_a_kcql_error() -> None:
    with pytest.raises(KcqlError):
        load(sink(**{"connect.s3.kcql": "INSERT bucket SELECT"}))


def test_unknown_keys_are_rejected_with_the_closest_known_key() -> None:
    with pytest.raises(ConfigError) as caught:
        load(sink(**{"connect.s3.eror.policy": "THROW", "topic": "x"}))
    message = str(caught.value)
    assert "Unknown setting connect.s3.eror.policy (did you mean connect.s3.error.policy?)" in message
    assert "Unknown setting topic (did you mean topics?)" in message


@pytest.mark.parametrize("role", ["sink", "source"])
def test_kafka_connect_framework_keys_without_effect_are_accepted_in_either_role(role: str) -> None:
    framework = {"errors.retry.timeout": "60000", "errors.retry.delay.max.ms": "5000", "config.action.reload": "restart",
                 "tasks.max.enforce": "true", "topic.creation.default.partitions": "3", "exactly.once.support": "required",
                 "key.converter.plugin.version": "3.9.0", "admin.override.request.timeout.ms": "5000"}
    props = sink() if role == "sink" else {"name": "r", "connect.s3.kcql": "INSERT INTO t SELECT * FROM b:p STOREAS `AVRO`"}
    assert ConnectorSettings.from_properties({**props, **framework}, role=role) == ConnectorSettings.from_properties(
        props, role=role
    )


def test_a_restore_config_accepts_the_error_handling_keys_a_sink_applies() -> None:
    source = {"name": "r", "connect.s3.kcql": "INSERT INTO t SELECT * FROM b:p STOREAS `AVRO`"}
    errors = {"errors.tolerance": "all", "errors.log.enable": "true", "errors.log.include.messages": "true"}
    assert ConnectorSettings.from_properties({**source, **errors}, role="source") == ConnectorSettings.from_properties(
        source, role="source"
    )
    with pytest.raises(ConfigError, match="errors.deadletterqueue.topic.name only applies to the sink"):
        ConnectorSettings.from_properties({**source, "errors.deadletterqueue.topic.name": "dlq"}, role="source")


def test_an_unknown_connector_class_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        load(sink(**{"connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector"}))
    message = str(caught.value)
    assert "Unknown connector.class 'io.confluent.connect.jdbc.JdbcSinkConnector'" in message
    assert "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector" in message
    assert "io.confluent.connect.s3.S3SinkConnector" in message and "\n" not in message


def test_harmless_kafka_connect_keys_are_accepted() -> None:
    settings = load(sink(**{"tasks.max": "4", "errors.tolerance": "none", "errors.log.enable": "false",
                            "connector.class": "io.lenses.streamreactor.connect.aws.s3.S3SinkConnector"}))
    assert settings == load(sink())


def test_deprecated_keys_get_the_lenses_deprecation_message() -> None:
    with pytest.raises(ConfigError) as caught:
        load(sink(**{"aws.access.key": "a", "aws.custom.endpoint": "http://x"}))
    assert str(caught.value) == (
        "The following properties have been deprecated: `aws.access.key`, `aws.custom.endpoint`. "
        "Please change to using the keys prefixed by `connect.s3`. Change `aws.access.key` to "
        "`connect.s3.aws.access.key`. Change `aws.custom.endpoint` to `connect.s3.custom.endpoint`."
    )


def test_deprecated_partition_search_key_names_the_source_key() -> None:
    with pytest.raises(ConfigError, match="Change `connect.s3.partition.search.interval` to "
                                          "`connect.s3.source.partition.search.interval`"):
        load(sink(**{"connect.s3.partition.search.interval": "1"}))


def test_keys_of_the_other_role_are_rejected() -> None:
    with pytest.raises(ConfigError, match="only applies to the restore"):
        load(sink(**{"connect.s3.source.partition.search.interval": "1"}))
    with pytest.raises(ConfigError, match="topics only applies to the sink"):
        load({"name": "r", "topics": "t", "connect.s3.kcql": SOURCE_KCQL}, role="source")


def test_connector_class_of_the_other_role_is_rejected() -> None:
    with pytest.raises(ConfigError, match="is a source connector"):
        load(sink(**{"connector.class": "io.lenses.streamreactor.connect.aws.s3.source.S3SourceConnector"}))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"topics.regex": "orders"}, "mutually exclusive"),
        ({"topics": ""}, "One of topics or topics.regex is required"),
        ({"topics": "orders,refunds"}, "No KCQL statement for topic\\(s\\) refunds. The topics defined via"),
        ({"topics": "refunds", "connect.s3.kcql": KCQL + "; INSERT INTO b SELECT * FROM refunds"},
         "orders which are not in topics"),
        ({"topics": None, "topics.regex": "ref.*"}, "topics.regex 'ref.\\*' does not match"),
        ({"topics": None, "topics.regex": "("}, "Invalid regular expression for topics.regex"),
        ({"connect.s3.kcql": KCQL + "; INSERT INTO other SELECT * FROM orders"},
         "More than one KCQL statement"),
    ],
)
def test_topics_and_statements_must_agree(props: dict[str, str | None], message: str) -> None:
    merged = {k: v for k, v in {**sink(), **props}.items() if v is not None}
    with pytest.raises(ConfigError, match=message):
        load(merged)


def test_wildcard_statement_covers_every_topic_and_regex() -> None:
    star = "INSERT INTO b SELECT * FROM `*`"
    assert load(sink(topics="a,b,c", **{"connect.s3.kcql": star})).topics == ("a", "b", "c")
    settings = load({"name": "n", "topics.regex": "^sensor_\\d+$", "connect.s3.kcql": star})
    assert settings.topics_regex == "^sensor_\\d+$" and settings.topics == ()


def test_legacy_padding_resolves_length_and_conflicts_with_kcql_padding() -> None:
    settings = load(sink(**{"connect.s3.padding.strategy": "rightpad"}))
    assert (settings.padding_strategy, settings.padding_length) == ("RightPad", 12)
    padded = KCQL + " PROPERTIES('padding.length.offset'=5)"
    with pytest.raises(ConfigError, match="Unable to process both padding Kafka Connect config properties"):
        load(sink(**{"connect.s3.padding.strategy": "LeftPad", "connect.s3.kcql": padded}))
    with pytest.raises(ConfigError, match="padding.length is set but connect.s3.padding.strategy is not"):
        load(sink(**{"connect.s3.padding.length": "5"}))


def test_converters_and_kafka_client_settings_are_passed_through() -> None:
    settings = load(sink(**{
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "http://sr:8081",
        "value.converter.basic.auth.user.info": "u:p",
        "security.protocol": "SASL_SSL", "sasl.password": "pw", "consumer.max.poll.records": "5",
        "consumer.override.fetch.min.bytes": "1",
    }))
    assert settings.value_converter.class_name == "io.confluent.connect.avro.AvroConverter"
    assert settings.value_converter.settings == {"schema.registry.url": "http://sr:8081",
                                                 "basic.auth.user.info": Secret("u:p")}
    assert settings.kafka_client == {"security.protocol": "SASL_SSL", "sasl.password": Secret("pw"),
                                     "max.poll.records": "5", "fetch.min.bytes": "1"}


def test_converter_settings_without_a_converter_class_are_rejected() -> None:
    with pytest.raises(ConfigError, match="key.converter.schemas.enable is set but key.converter is not"):
        load(sink(**{"key.converter.schemas.enable": "false"}))


def test_producer_settings_belong_to_the_source_and_consumer_settings_to_the_sink() -> None:
    with pytest.raises(ConfigError, match="producer.acks only applies to the restore"):
        load(sink(**{"producer.acks": "all"}))
    with pytest.raises(ConfigError, match="consumer.override.x and consumer.x"):
        load(sink(**{"consumer.override.x": "1", "consumer.x": "2"}))


def test_source_config_parses_source_statements_and_settings() -> None:
    settings = load({
        "name": "restore", "connect.s3.kcql": "INSERT INTO orders SELECT * FROM bucket:prefix BATCH=10",
        "connect.s3.ordering.type": "alphanumeric", "connect.s3.source.extension.includes": "JSON,.avro",
        "connect.s3.source.partition.extractor.type": "regex",
        "connect.s3.source.partition.extractor.regex": "(\\d+)/[^/]+$", "producer.acks": "all",
    }, role="source")
    assert settings.statements[0].topic == "orders" and settings.kafka_client == {"acks": "all"}
    assert settings.source is not None
    assert settings.source.extension_includes == (".json", ".avro")
    assert settings.source.partition_extractor is PartitionExtractorType.REGEX
    assert settings.source.partition_search_excludes == (".indexes",)


def test_restore_partition_and_transaction_settings_come_from_the_catalog() -> None:
    defaults = load({"name": "r", "connect.s3.kcql": SOURCE_KCQL}, role="source").source
    assert defaults is not None and defaults.partition_extractor is PartitionExtractorType.LAYOUT
    assert (defaults.partition_remap_modulo, defaults.transaction_timeout_ms) == (False, 60_000)
    chosen = load({
        "name": "r", "connect.s3.kcql": SOURCE_KCQL, "connect.s3.source.partition.extractor.type": "NONE",
        "connect.s3.source.partition.remap": "Modulo", "connect.s3.source.transaction.timeout.ms": "120000",
    }, role="source").source
    assert chosen is not None and chosen.partition_extractor is PartitionExtractorType.NONE
    assert (chosen.partition_remap_modulo, chosen.transaction_timeout_ms) == (True, 120_000)


def test_restore_only_settings_are_rejected_in_a_sink_config() -> None:
    with pytest.raises(ConfigError, match="connect.s3.source.partition.remap"):
        load(sink(**{"connect.s3.source.partition.remap": "modulo"}))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"connect.s3.source.partition.extractor.type": "regex"}, "extractor.regex is missing"),
        ({"connect.s3.source.partition.extractor.type": "regex",
          "connect.s3.source.partition.extractor.regex": "\\d+"}, "needs a capturing group"),
        ({"connect.s3.source.partition.extractor.regex": "(x)"}, "is not regex"),
        ({"connect.s3.source.empty.results.backoff.multiplier": "1"}, "is not supported yet"),
        ({"connect.s3.source.empty.results.backoff.max.delay": "10"}, "is not supported yet"),
        ({"connect.s3.source.partition.extractor.type": "layout",
          "connect.s3.source.partition.extractor.regex": "(x)"}, "extractor.type is layout"),
        ({"connect.s3.source.partition.extractor.type": "hash"}, "expected one of layout, none"),
        ({"connect.s3.source.partition.remap": "hash"},
         "Invalid value 'hash' for connect.s3.source.partition.remap: expected none or modulo"),
        ({"connect.s3.source.transaction.timeout.ms": "999"},
         "connect.s3.source.transaction.timeout.ms: must be at least 1000"),
        ({"connect.s3.source.transaction.timeout.ms": "900001"}, "must be at most 900000"),
    ],
)
def test_source_settings_rules(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load({"name": "r", "connect.s3.kcql": SOURCE_KCQL, **props}, role="source")


def test_describe_lists_every_resolved_setting_as_plain_values() -> None:
    described = load(sink()).describe()
    assert described["error_policy"] == "THROW" and described["statements"] == [KCQL]
    assert described["storage"]["pool_max_connections"] == 50  # type: ignore[index]
    assert described["key_converter"] == {"class_name": None, "settings": {}}
    assert set(described) >= {"name", "backend", "kafka_client", "key_converter", "source"}


def test_settings_survive_pickling_for_spark() -> None:
    import pickle

    settings = load(sink(**{"connect.s3.aws.auth.mode": "Credentials", "connect.s3.aws.access.key": "a",
                            "connect.s3.aws.secret.key": "b"}))
    assert pickle.loads(pickle.dumps(settings)) == settings


@pytest.mark.parametrize("role", ["sink", "source"])
def test_the_header_converter_and_its_settings_are_read_for_both_roles(role: str) -> None:
    props = sink(**{"header.converter": "org.apache.kafka.connect.json.JsonConverter",
                    "header.converter.schemas.enable": "false"})
    if role == "source":
        props = {**{k: v for k, v in props.items() if k not in ("topics",)},
                 "connect.s3.kcql": "INSERT INTO t SELECT * FROM b:p"}
    converter = ConnectorSettings.from_properties(props, role=role).header_converter
    assert converter.class_name == "org.apache.kafka.connect.json.JsonConverter"
    assert converter.settings == {"schemas.enable": "false"}


def test_header_converter_settings_need_the_converter_class() -> None:
    with pytest.raises(ConfigError, match="header.converter.schemas.enable is set but header.converter is not"):
        load(sink(**{"header.converter.schemas.enable": "false"}))


def test_an_empty_value_of_a_key_not_implemented_yet_means_not_set() -> None:
    assert load(sink(**{"connect.s3.delete.mode": " "})) == load(sink())


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"transforms": "ts"}, "transforms.ts.type is required: name the class of transform 'ts'."),
        ({"transforms": "ts", "transforms.ts.type": "com.example.Nope"},
         "Unknown transform class 'com.example.Nope' for transforms.ts.type: lakesink runs "),
        ({"transforms.ts.type": "x"}, "transforms.ts.type configures an alias that transforms='' does not list"),
        ({"transforms": "a,a"}, "transforms lists an alias twice: 'a,a'."),
        ({"predicates": "p", "predicates.p.type": "com.example.Nope"},
         "Unknown predicate class 'com.example.Nope' for predicates.p.type"),
    ],
)
def test_a_transform_chain_that_cannot_be_built_is_one_line_naming_the_key(
    keys: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load(sink(**keys))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
