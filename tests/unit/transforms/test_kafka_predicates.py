"""TopicNameMatches, HasHeaderKey and RecordIsTombstone behave as Kafka's."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from lakesink.domain.transforms.catalog import PREDICATES
from lakesink.domain.transforms.options import TransformOptions

PACKAGE = "org.apache.kafka.connect.transforms.predicates."


def predicate(class_name: str, /, **settings: str):
    full = PACKAGE + class_name
    return PREDICATES[full](TransformOptions("predicates.p.", full, {"type": full, **settings}))


def test_topic_name_matches_needs_a_full_match():
    matches = predicate("TopicNameMatches", pattern=r"orders-\d+")
    assert matches.test(Record("orders-12", 0, 0))
    assert not matches.test(Record("orders-12-dlq", 0, 0))
    assert not matches.test(Record("x-orders-12", 0, 0))


@pytest.mark.parametrize(
    ("settings", "message"), [({}, "pattern is required"), ({"pattern": "["}, "invalid regex")]
)
def test_topic_name_matches_config_errors(settings, message):
    with pytest.raises(ConfigError, match=message):
        predicate("TopicNameMatches", **settings)


def test_has_header_key_counts_null_valued_headers():
    has = predicate("HasHeaderKey", name="trace")
    assert has.test(Record("t", 0, 0, headers=(("trace", None),)))
    assert not has.test(Record("t", 0, 0, headers=(("other", "x"),)))
    with pytest.raises(ConfigError, match=r"predicates\.p\.name is required"):
        predicate("HasHeaderKey")


def test_record_is_tombstone_looks_at_the_value_only():
    tombstone = predicate("RecordIsTombstone")
    assert tombstone.test(Record("t", 0, 0, key="k", value=None))
    assert not tombstone.test(Record("t", 0, 0, value=0))
    with pytest.raises(ConfigError, match="Unknown option"):
        predicate("RecordIsTombstone", extra="1")
