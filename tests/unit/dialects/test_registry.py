"""The dialect registry: one lookup by ``connector.class`` gives every piece of a connector's dialect."""

from __future__ import annotations

import pytest

from lakesink.domain.config.lenses_conversion import Conversion
from lakesink.domain.dialects.registry import AIVEN, CONFLUENT, DIALECTS, sink_dialect
from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.plan import RestorePlan
from tests.support.aiven_configs import CONSOLE_WITH_AWS
from tests.support.confluent_configs import COMPLETE

CONFIGS = {CONFLUENT.name: {**COMPLETE, "bootstrap.servers": "127.0.0.1:9092"},
           AIVEN.name: {**CONSOLE_WITH_AWS, "bootstrap.servers": "127.0.0.1:9092"}}


@pytest.mark.parametrize(("written", "expected"), [
    ("io.confluent.connect.s3.S3SinkConnector", CONFLUENT),
    ("  io.aiven.kafka.connect.s3.AivenKafkaConnectS3SinkConnector ", AIVEN),
    ("io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector", None),
    ("", None),
])
def test_the_dialect_is_found_by_connector_class_alone(written: str, expected: object) -> None:
    assert sink_dialect({"connector.class": written}) is expected
    assert sink_dialect({}) is None


@pytest.mark.parametrize("dialect", DIALECTS.values(), ids=lambda d: d.name)
def test_every_dialect_gives_settings_a_restore_plan_and_a_conversion(dialect) -> None:  # noqa: ANN001
    values = CONFIGS[dialect.name]
    assert sink_dialect(values) is dialect
    settings = dialect.settings(values, frozenset())
    assert settings.writing is not None and settings.writing.dialect == dialect.name and settings.bootstrap_servers == "127.0.0.1:9092"
    assert isinstance(dialect.restore_plan(values, parallelism=2), RestorePlan)
    assert isinstance(dialect.convert(values, values, frozenset()), Conversion)
    assert dialect.keys.key_class("connector.class") == "used"


def test_a_dialect_is_described_with_its_article_and_class() -> None:
    assert CONFLUENT.described == "a Confluent S3 sink config (connector.class=io.confluent.connect.s3.S3SinkConnector)"
    assert AIVEN.described.startswith("an Aiven S3 sink config (connector.class=io.aiven.")


def test_a_dialect_refuses_what_its_connector_does_not_define() -> None:
    with pytest.raises(ConfigError, match="Unknown Aiven S3 sink setting s3.bucket.name"):
        AIVEN.settings({**CONFIGS[AIVEN.name], "s3.bucket.name": "b"}, frozenset())
