"""The sink statement grammar: examples from the Lenses docs and the reference, and the strict rules."""

from __future__ import annotations

import pytest

from lakesink.domain.formats import Format
from lakesink.domain.kcql import KcqlStatement, parse


def parse_one(text: str) -> KcqlStatement:
    statements = parse(text)
    assert len(statements) == 1
    return statements[0]


def test_seed_quickstart_example_parses_with_partition_format_and_flush_properties() -> None:
    stmt = parse_one(
        "insert into lensesio:demo select * from demo PARTITIONBY _value.ts STOREAS `JSON` "
        "PROPERTIES ('flush.size'=1000000, 'flush.interval'=30, 'flush.count'=5000)"
    )
    assert (stmt.bucket, stmt.prefix, stmt.topic) == ("lensesio", "demo", "demo")
    assert stmt.partition_by == ("_value.ts",)
    assert stmt.format is Format.JSON
    assert dict(stmt.properties) == {"flush.size": "1000000", "flush.interval": "30", "flush.count": "5000"}
    assert (stmt.options.flush_size, stmt.options.flush_interval_s, stmt.options.flush_count) == (
        1000000,
        30,
        5000,
    )


def test_seed_escaping_example_unquotes_target_prefix_and_topic_but_keeps_spec_backticks() -> None:
    stmt = parse_one("INSERT INTO `bucket-name`:`prefix` SELECT * FROM `kafka-topic` PARTITIONBY `a.b`")
    assert (stmt.bucket, stmt.prefix, stmt.topic) == ("bucket-name", "prefix", "kafka-topic")
    assert stmt.partition_by == ("`a.b`",)


@pytest.mark.parametrize(
    ("text", "bucket", "prefix", "partition_by"),
    [
        ("INSERT INTO testbucket:pathToWriteTo SELECT * FROM topicA", "testbucket", "pathToWriteTo", ()),
        ("INSERT INTO testbucket SELECT * FROM topicA", "testbucket", None, ()),
        ("INSERT INTO testbucket:path/To/Write/To SELECT * FROM topicA PARTITIONBY fieldA", "testbucket",
         "path/To/Write/To", ("fieldA",)),
    ],
)  # fmt: skip
def test_seed_target_examples_split_bucket_and_prefix(
    text: str, bucket: str, prefix: str | None, partition_by: tuple[str, ...]
) -> None:
    stmt = parse_one(text)
    assert (stmt.bucket, stmt.prefix, stmt.topic, stmt.partition_by) == (
        bucket,
        prefix,
        "topicA",
        partition_by,
    )


def test_seed_multi_statement_example_keeps_statement_order() -> None:
    statements = parse(
        "INSERT INTO testbucket:pathToWriteTo SELECT * FROM topicA;\n"
        "INSERT INTO testbucket SELECT * FROM topicA;\n"
        "INSERT INTO testbucket:path/To/Write/To SELECT * FROM topicA PARTITIONBY fieldA;"
    )
    assert [s.prefix for s in statements] == ["pathToWriteTo", None, "path/To/Write/To"]
    assert statements[1].text == "INSERT INTO testbucket SELECT * FROM topicA"


def test_seed_athena_example_with_multiline_layout_and_trailing_comma_in_properties() -> None:
    stmt = parse_one(
        "INSERT INTO lensesio:demo\nSELECT * FROM demo\nPARTITIONBY fieldA, _key.fieldB, _headers.fieldC\n"
        "STOREAS `AVRO`\nPROPERTIES (\n    'partition.include.keys'=true,\n)"
    )
    assert stmt.partition_by == ("fieldA", "_key.fieldB", "_headers.fieldC")
    assert stmt.format is Format.AVRO
    assert stmt.options.partition_include_keys is True


def test_seed_header_partition_example_parses_four_specs() -> None:
    stmt = parse_one(
        "insert into lensesio:demo select * from demo PARTITIONBY _value.metadata_id, _value.customer_id, "
        "_header.ts, _header.wallclock STOREAS `JSON` PROPERTIES ('flush.size'=1000000, 'flush.interval'=30, "
        "'flush.count'=5000)"
    )
    assert stmt.partition_by == (
        "_value.metadata_id",
        "_value.customer_id",
        "_header.ts",
        "_header.wallclock",
    )


@pytest.mark.parametrize(
    ("text", "fmt", "envelope"),
    [
        ("INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `PARQUET` "
         "", Format.PARQUET,
         False),
        ("INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `JSON` "
         "PROPERTIES('store.envelope'=true)", Format.JSON, True),
        ("INSERT INTO lensesioaws:car_speed SELECT * FROM car_speed_events STOREAS `AVRO` "
         "PROPERTIES('store.envelope'=true)", Format.AVRO, True),
    ],
)  # fmt: skip
def test_seed_storage_format_examples(text: str, fmt: Format, envelope: bool) -> None:
    stmt = parse_one(text)
    assert (stmt.bucket, stmt.prefix, stmt.topic) == ("lensesioaws", "car_speed", "car_speed_events")
    assert stmt.format is fmt
    assert stmt.options.store_envelope is envelope
    assert (stmt.options.envelope is not None) is envelope


@pytest.mark.parametrize(
    "text",
    [
        "insert into b:streamReactorBackups select * from myTopic PROPERTIES('flush.count'=1)",
        "insert into b:streamReactorBackups select * from myTopic STOREAS `TEXT` PROPERTIES('flush.count'=2)",
        "insert into b:streamReactorBackups select * from myTopic "
        "PROPERTIES('padding.length.partition'='12','padding.length.offset'='12')",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY name,title,salary",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY name,title,salary "
        "PROPERTIES('partition.include.keys'=false)",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _key STOREAS `CSV`",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _topic, _partition "
        "STOREAS `CSV` "
        "PROPERTIES('padding.length.partition'='12','padding.length.offset'='12','partition.include.keys'=false)",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY "
        "_header.headerPartitionKey,_value.name "
        "STOREAS `CSV`",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _key.favourites.band, "
        "_key.`cost.centre.id`",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _header.header1.user.name",
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _date.uuuu,_date.LL,_date.dd "
        "PROPERTIES('partition.include.keys'=false)",
        "insert into b select * from myTopic PARTITIONBY _key.region, name",
        "insert into b:streamReactorBackups select * from myTopic STOREAS `BYTES` "
        "PROPERTIES('flush.count'=1)",
        "insert into b:streamReactorBackups select * from `dsl-events` STOREAS PARQUET "
        "PROPERTIES('padding.length.partition'='12','padding.length.offset'='12','flush.count'=10)",
    ],
)
def test_every_reference_layout_statement_parses(text: str) -> None:
    stmt = parse_one(text)
    assert stmt.bucket == "b"


def test_reference_escaped_key_field_keeps_backticks_in_the_spec() -> None:
    stmt = parse_one(
        "insert into b:streamReactorBackups select * from myTopic PARTITIONBY _key.favourites.band, "
        "_key.`cost.centre.id`"
    )
    assert stmt.partition_by == ("_key.favourites.band", "_key.`cost.centre.id`")


def test_reference_padding_lengths_are_typed() -> None:
    stmt = parse_one(
        "insert into b:p select * from t "
        "PROPERTIES('padding.length.partition'='12','padding.length.offset'='12')"
    )
    assert dict(stmt.options.padding_lengths or {}) == {"partition": 12, "offset": 12}


@pytest.mark.parametrize("insert", ["insert", "INSERT", "Insert", "iNsErT"])
def test_keywords_are_matched_in_any_case(insert: str) -> None:
    stmt = parse_one(
        f"{insert} Into b:p Select * From t PartitionBy a StoreAs `avro` Properties('Flush.Count'=3)"
    )
    assert stmt.partition_by == ("a",)
    assert stmt.format is Format.AVRO
    assert dict(stmt.properties) == {"flush.count": "3"}


def test_whitespace_and_newlines_may_separate_every_token() -> None:
    stmt = parse_one(
        "\n INSERT\tINTO\n b:p \r\n SELECT\n*\nFROM\n t\nPARTITIONBY\n a\n,\n "
        "b\nPROPERTIES\n(\n'flush.count'\n=\n5\n)\n"
    )
    assert stmt.partition_by == ("a", "b")
    assert stmt.options.flush_count == 5


def test_tokens_need_no_whitespace_around_punctuation() -> None:
    stmt = parse_one(
        "INSERT INTO b SELECT*FROM t PARTITIONBY a,b PROPERTIES('flush.count'=5,'key.suffix'='x')"
    )
    assert stmt.partition_by == ("a", "b")


def test_star_topic_means_every_topic_bare_or_in_backticks() -> None:
    assert parse_one("INSERT INTO b SELECT * FROM *").topic is None
    assert parse_one("INSERT INTO b SELECT * FROM `*`").topic is None


def test_nopartition_is_recorded() -> None:
    stmt = parse_one("INSERT INTO b SELECT * FROM t NOPARTITION STOREAS `JSON`")
    assert stmt.no_partition is True
    assert stmt.partition_by == ()


def test_missing_storeas_means_json() -> None:
    assert parse_one("INSERT INTO b SELECT * FROM t").format is Format.JSON


def test_single_quoted_names_are_accepted_for_target_topic_and_specs() -> None:
    stmt = parse_one(
        "INSERT INTO 'my-bucket:some prefix' SELECT * FROM 'topic.a' PARTITIONBY 'a.b', _key.'c d'"
    )
    assert (stmt.bucket, stmt.prefix, stmt.topic) == ("my-bucket", "some prefix", "topic.a")
    assert stmt.partition_by == ("`a.b`", "_key.`c d`")


def test_a_keyword_in_backticks_is_a_name() -> None:
    stmt = parse_one("INSERT INTO `select`:`from` SELECT * FROM `limit` PARTITIONBY `storeas`")
    assert (stmt.bucket, stmt.prefix, stmt.topic, stmt.partition_by) == (
        "select",
        "from",
        "limit",
        ("`storeas`",),
    )


def test_doubled_backtick_inside_backticks_is_a_literal_backtick() -> None:
    stmt = parse_one("INSERT INTO b:`odd``name` SELECT * FROM t")
    assert stmt.prefix == "odd`name"


def test_statements_are_hashable_values_that_ignore_the_text() -> None:
    first = parse_one("INSERT INTO b SELECT * FROM t PROPERTIES('flush.count'=5)")
    second = parse_one("insert into b select * from t properties(flush.count=5)")
    assert first == second
    assert hash(first) == hash(second)
    assert first.text != second.text
