"""RegexRouter and Filter behave as Kafka's, alone and guarded by predicates."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import ManualClock
from tests.unit.transforms.conftest import NOW_MS


def rec(topic: str = "prod.orders", value: object = 1) -> Record:
    return Record(topic, 0, 0, 0, None, value, (("trace", "a"),))


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        (r"prod\.(.*)", "$1-archive", "prod.orders", "orders-archive"),
        (r"(?<env>\w+)\.(\w+)", "${env}_$2", "prod.orders", "prod_orders"),
        (r"prod\.(.*)", r"\$$1", "prod.orders", "$orders"),
        (r"prod", "x", "prod.orders", "prod.orders"),
        (r"(a)(b)?", "[$2]$12", "a", "[]a2"),
    ],
)
def test_regex_router_rewrites_whole_matches_only(smt, regex, replacement, topic, expected):
    chain = smt("RegexRouter", regex=regex, replacement=replacement)
    assert chain.apply(rec(topic)).topic == expected
    assert chain.routes


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"replacement": "x"}, r"transforms\.x\.regex is required"),
        ({"regex": "a"}, r"transforms\.x\.replacement is required"),
        ({"regex": "(", "replacement": "x"}, "invalid regex"),
        ({"regex": "(a)", "replacement": "$2"}, "no group 2"),
        ({"regex": "a", "replacement": "x\\"}, "escaped is missing"),
        ({"regex": "a", "replacement": "$x"}, "illegal group reference"),
    ],
)
def test_regex_router_config_errors(smt, options, message):
    with pytest.raises(ConfigError, match=message):
        smt("RegexRouter", **options)


def test_filter_drops_every_record(smt):
    assert smt("Filter").apply(rec()) is None
    with pytest.raises(ConfigError, match=r"transforms\.x\.pattern"):
        smt("Filter", pattern="x")


def test_filter_with_a_negated_predicate_keeps_matching_topics():
    chain = build_chain(
        {
            "transforms": "keepProd",
            "transforms.keepProd.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.keepProd.predicate": "isProd",
            "transforms.keepProd.negate": "true",
            "predicates": "isProd",
            "predicates.isProd.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.isProd.pattern": r"prod\..*",
        },
        ManualClock(NOW_MS),
    )
    assert chain.apply(rec("prod.orders")) is not None
    assert chain.apply(rec("test.orders")) is None
