"""Secret values never appear in repr, str, describe() or any error message."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from tests.support.backend_settings import parse_backend

# A fixed marker keeps a random secret from accidentally equalling ordinary output ("0", "true").
secrets = st.text(min_size=1, max_size=40).map(lambda tail: "S3CRET~" + tail)

BASE = {"name": "demo", "topics": "orders", "connect.s3.kcql": "INSERT INTO b SELECT * FROM orders"}


def _outputs(value: ConnectorSettings) -> str:
    return "\n".join([repr(value), str(value), json.dumps(value.describe()), repr(value.storage)])


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(access=secrets, secret=secrets, sasl=secrets, info=secrets)
def test_s3_and_kafka_secrets_are_masked_everywhere(access: str, secret: str, sasl: str, info: str) -> None:
    loaded = ConnectorSettings.from_properties({
        **BASE,
        "connect.s3.aws.auth.mode": "Credentials", "connect.s3.aws.access.key": access,
        "connect.s3.aws.secret.key": secret, "sasl.jaas.config": sasl, "ssl.key.password": sasl,
        "value.converter": "avro", "value.converter.schema.registry.url": "http://registry:8081",
        "value.converter.basic.auth.user.info": info, "consumer.sasl.password": sasl,
    })
    shown = _outputs(loaded)
    for value in (access, secret, sasl, info):
        assert value not in shown
    assert loaded.storage.secret_key == Secret(secret)


@settings(max_examples=40)
@given(key=secrets, connection=secrets, credentials=secrets)
def test_azure_and_gcs_secrets_are_masked(key: str, connection: str, credentials: str) -> None:
    _, azure = parse_backend({
        "connect.datalake.azure.auth.mode": "Credentials",
        "connect.datalake.azure.account.name": "acct",
        "connect.datalake.azure.account.key": key,
    })
    _, gcs = parse_backend({"connect.gcpstorage.gcp.auth.mode": "Credentials",
                            "connect.gcpstorage.gcp.credentials": credentials})
    shown = repr(azure) + str(azure) + repr(gcs) + str(gcs)
    assert key not in shown and credentials not in shown
    _, by_string = parse_backend({"connect.datalake.azure.auth.mode": "ConnectionString",
                                  "connect.datalake.azure.connection.string": connection})
    assert connection not in repr(by_string)


BROKEN = [
    {"connect.s3.eror.policy": "THROW"},  # unknown key
    {"connect.s3.aws.auth.mode": "Default"},  # keys given for the wrong mode
    {"aws.secret.key": "{secret}"},  # deprecated key holding the secret
    {"connect.s3.aws.secret.kye": "{secret}"},  # misspelt secret key
    {"connect.s3.aws.auth.mode": "Credentials", "connect.s3.aws.access.key": ""},  # incomplete credentials
    {"transforms": "t"},
    {"connect.s3.error.policy": "bogus"},
]


@pytest.mark.parametrize("broken", BROKEN)
@settings(max_examples=25)
@given(secret=secrets)
def test_error_messages_never_contain_secrets(broken: dict[str, str], secret: str) -> None:
    props = {**BASE, "connect.s3.aws.access.key": secret, "connect.s3.aws.secret.key": secret,
             "sasl.password": secret, **{k: v.format(secret=secret) for k, v in broken.items()}}
    with pytest.raises(ConfigError) as caught:
        ConnectorSettings.from_properties(props)
    assert secret not in str(caught.value) and secret not in repr(caught.value)
