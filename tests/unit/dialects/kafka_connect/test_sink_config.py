"""What every Kafka Connect sink config shares (domain/dialects/kafka_connect/sink_config.py), for each
dialect: its ``connector.class``, the values config providers filled and the credentials kept out of
``repr`` and ``describe``. Each dialect's own rules are tested in its folder."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lakesink.domain.config.secret import MASK
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.dialects.confluent.sink_config import ConfluentSinkConfig
from tests.support.aiven_configs import CONSOLE_WITH_AWS
from tests.support.confluent_configs import BASIC
from tests.support.connect_configs import edited, refusal

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


@dataclass(frozen=True)
class Dialect:
    """A dialect's config class, a config of it, and two of its keys: a number's and the bucket's."""

    config: type[ConfluentSinkConfig] | type[AivenSinkConfig]
    example: dict[str, str]
    number_key: str
    bucket_key: str
    title: str


DIALECTS = [
    pytest.param(Dialect(ConfluentSinkConfig, BASIC, "flush.size", "s3.bucket.name", "a Confluent S3 sink"),
                 id="confluent"),
    pytest.param(Dialect(AivenSinkConfig, CONSOLE_WITH_AWS, "file.max.records", "aws.s3.bucket.name",
                         "an Aiven S3 sink"), id="aiven"),
]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_config_is_recognised_by_its_connector_class(dialect: Dialect) -> None:
    assert dialect.config.matches(dialect.example)
    assert not dialect.config.matches({"connector.class": "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"})
    assert not dialect.config.matches({"s3.bucket.name": "b"})


@pytest.mark.parametrize("dialect", DIALECTS)
def test_another_connector_class_is_refused_in_one_line(dialect: Dialect) -> None:
    other = dialect.config.connector_class + "X"
    message = refusal(lambda: dialect.config.from_properties(edited(dialect.example, {"connector.class": other})))
    assert message == f"connector.class must be {dialect.config.connector_class} for {dialect.title} config."


@pytest.mark.parametrize("dialect", DIALECTS)
def test_values_from_config_providers_are_masked_in_errors_and_repr(dialect: Dialect) -> None:
    props = edited(dialect.example, {dialect.number_key: "not-a-number-provided"})
    message = refusal(lambda: dialect.config.from_properties(props, provided=frozenset({dialect.number_key})))
    assert "not-a-number-provided" not in message and dialect.number_key in message
    bucket = "provided-bucket-name"
    settings = dialect.config.from_properties(
        edited(dialect.example, {dialect.bucket_key: bucket}), provided=frozenset({dialect.bucket_key})
    )
    assert settings.bucket == bucket
    assert bucket not in repr(settings)
    assert settings.describe()["bucket"] == MASK


@pytest.mark.parametrize("dialect", DIALECTS)
def test_credentials_never_show_in_repr_or_describe(dialect: Dialect) -> None:
    settings = dialect.config.from_properties(
        edited(dialect.example, {"aws.access.key.id": "AKIAEXAMPLEACCESS", "aws.secret.access.key": SECRET})
    )
    assert settings.secret_key is not None and settings.secret_key.reveal() == SECRET
    assert SECRET not in repr(settings) and "AKIAEXAMPLEACCESS" not in repr(settings)
    described = settings.describe()
    assert described["secret_key"] == MASK and described["access_key"] == MASK
