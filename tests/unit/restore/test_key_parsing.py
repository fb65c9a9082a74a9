"""Lenses layouts and Aiven templates parsed back into topic, partition and offset."""

from __future__ import annotations

import re

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.lenses_keys import parse_lenses_key
from lakesink.domain.restore.parsed_key import ParsedKey
from lakesink.domain.restore.template import KeyTemplate


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("streamReactorBackups/myTopic/1/000000000002_2_2.json", ParsedKey("myTopic", 1, 2)),
        ("streamReactorBackups/myTopic/000000000001/000000000000_0_0.json", ParsedKey("myTopic", 1, 0)),
        ("streamReactorBackups/myTopic/1/2_0_2.json", ParsedKey("myTopic", 1, 2)),
        ("myTopic/1/000000000081_1_9my-suffix.avro", ParsedKey("myTopic", 1, 81)),
        ("p/dsl-events/000000000001/000000000010_10001_10010.parquet", ParsedKey("dsl-events", 1, 10)),
        ("b/myTopic/1/000000000005_-1_-1.bytes", ParsedKey("myTopic", 1, 5)),
        ("streamReactorBackups/name=first/title=primary/salary=[missing]/myTopic(1_000000000000).json",
         ParsedKey("myTopic", 1, 0)),
        ("streamReactorBackups/myTopic/000000000001/myTopic(000000000001_000000000000).csv", ParsedKey("myTopic", 1, 0)),
        ("region=8/name=sam/my.topic-x(000000000001_000000000042).json", ParsedKey("my.topic-x", 1, 42)),
        ("prefix/myTopic(3_17)suffix.gz", ParsedKey("myTopic", 3, 17)),
    ],
)
def test_lenses_keys_parse_back_to_topic_partition_and_last_offset(key: str, expected: ParsedKey) -> None:
    assert parse_lenses_key(key) == expected


@pytest.mark.parametrize(
    "key",
    [
        "data/readme.txt",
        "000000000002_2_2.json",  # no topic/partition directories
        "b/my topic/1/000000000002_2_2.json",  # not a legal topic name
        "b/t/x1/000000000002_2_2.json",
        "b/t/1/00000000000a_2_2.json",
    ],
)
def test_keys_outside_the_lenses_layouts_do_not_parse(key: str) -> None:
    assert parse_lenses_key(key) is None


@pytest.mark.parametrize(
    ("template", "key", "expected"),
    [
        ("{{topic}}-{{partition}}-{{start_offset}}", "customer-topic-1-1734445664111.txt",
         ParsedKey("customer-topic", 1, 1734445664111)),
        # greedy topic: only the last two '-' separate numbers (reference §B.2)
        ("{{topic}}-{{partition}}-{{start_offset}}", "logs2-1-1-0001", ParsedKey("logs2-1", 1, 1)),
        ("{{topic}}{{partition}}-{{start_offset}}", "89521-00112.gz", ParsedKey("8952", 1, 112)),
        ("{{partition}}-{{start_offset}}-{{topic}}.txt", "2-1-logs2.txt", ParsedKey("logs2", 2, 1)),
        ("{{topic}}/{{partition}}/{{start_offset}}", "customer-topic/1/1734445664111.txt",
         ParsedKey("customer-topic", 1, 1734445664111)),
        ("topic/{{topic}}/partition/{{partition}}/startOffset/{{start_offset}}",
         "topic/customer-topic/partition/1/startOffset/1734445664111.txt", ParsedKey("customer-topic", 1, 1734445664111)),
        ("{{topic}}-{{partition:padding=true}}{{start_offset:padding=true}}",
         "t-1-000000000300000000000000000042", ParsedKey("t-1", 3, 42)),
        ("{{ topic }}-{{partition}}-{{start_offset}}-{{timestamp:unit=yyyy}}{{timestamp:unit=MM}}",
         "topic0-0-1-202401.gz", ParsedKey("topic0", 0, 1)),
        ("{{key}}/{{topic}}-{{partition}}", "user/42/orders-3", ParsedKey("orders", 3, None)),
        ("{{topic}}/{{partition}}/{{topic}}-{{start_offset}}", "a/1/a-9", ParsedKey("a", 1, 9)),
    ],
)
def test_aiven_templates_parse_with_greedy_left_to_right_variables(template: str, key: str, expected: ParsedKey) -> None:
    assert KeyTemplate.compile(template).parse(key) == expected


@pytest.mark.parametrize(
    ("template", "key"),
    [
        # Aiven's unanchored find mis-reads this as topic 22, partition 10; anchored, it does not match
        ("{{topic}}-{{partition}}-{{start_offset}}", "22-10-12/customer-topic-1-1734445664111.txt"),
        ("{{topic}}-{{partition}}-{{start_offset}}", "prefix-customer-topic-1"),
        ("{{topic}}/{{partition}}/{{topic}}-{{start_offset}}", "a/1/b-9"),
        ("{{topic}}-{{partition:padding=true}}-{{start_offset}}", "t-1-5"),
        ("{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=yyyy}}", "t-1-5-24"),
    ],
)
def test_keys_that_do_not_match_the_whole_template_are_not_taken(template: str, key: str) -> None:
    assert KeyTemplate.compile(template).parse(key) is None


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("", "must not be empty"),
        ("{{ }}-x", "Variable name hasn't been set for template"),
        ("{{foo:}}", "Wrong variable with parameter definition"),
        ("{{partition:=true}}", "Parameter name for variable `partition` has not been set"),
        ("{{partition:padding=}}", "Parameter value for variable `partition` and parameter `padding` has not been set"),
        ("{{long}}", "unsupported template variable used ({{long}})"),
        ("{{timestamp:unit=ss}}", "unit=yyyy, MM, dd or HH"),
        ("{{topic:padding=true}}", "takes no parameter"),
        ("just-text", "has no variable"),
    ],
)
def test_invalid_templates_are_rejected_with_aiven_wording(template: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        KeyTemplate.compile(template)


def test_deprecated_uppercase_year_unit_is_read_as_yyyy() -> None:
    assert KeyTemplate.compile("{{topic}}-{{partition}}-{{start_offset}}-{{timestamp:unit=YYYY}}").parse(
        "t-1-2-2024"
    ) == ParsedKey("t", 1, 2)
