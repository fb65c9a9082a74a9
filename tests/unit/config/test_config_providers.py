"""Kafka config providers: ``${alias:[path:]key}`` references resolved against a fake source."""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.providers import ConfigSourceError, ResolvedConfig, resolve_references
from lakesink.domain.config.secret import Secret
from lakesink.domain.dialects.aiven.source_config import AIVEN_CONNECTOR_CLASS, aiven_restore_plan
from lakesink.domain.errors import ConfigError

FILE = "org.apache.kafka.common.config.provider.FileConfigProvider"
DIRECTORY = "org.apache.kafka.common.config.provider.DirectoryConfigProvider"
ENV = "org.apache.kafka.common.config.provider.EnvVarConfigProvider"

DECLARED = {
    "config.providers": "secrets, folder ,vars",
    "config.providers.secrets.class": FILE,
    "config.providers.folder.class": DIRECTORY,
    "config.providers.vars.class": ENV,
}


@dataclass
class FakeSource:
    """Files and variables in memory; records what was read."""

    properties: dict[str, dict[str, str]] = field(default_factory=dict)
    directories: dict[str, dict[str, str]] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    existing: set[str] = field(default_factory=set)
    reads: list[str] = field(default_factory=list)

    def read_properties(self, path: str) -> Mapping[str, str]:
        self.reads.append(path)
        if path not in self.properties:
            raise ConfigSourceError(f"cannot read {path}: No such file or directory.")
        return self.properties[path]

    def read_file(self, directory: str, name: str) -> str:
        self.reads.append(f"{directory}/{name}")
        if directory not in self.directories:
            raise ConfigSourceError(f"{directory} is not a directory.")
        if name not in self.directories[directory]:
            raise ConfigSourceError(f"{directory} has no file {name!r}.")
        return self.directories[directory][name]

    def environment(self, name: str) -> str | None:
        return self.variables.get(name)

    def path_exists(self, path: str) -> bool:
        return path in self.existing


def _source() -> FakeSource:
    return FakeSource(
        properties={"/vault/s3.properties": {"access": "AKIA-FAKE-77", "secret": "wJal/fake+Secret"}},
        directories={"/mnt/kafka": {"jaas": "PlainLoginModule required;\n", "user": "svc-sink"}},
        variables={"REGION_OF_BUCKET": "eu-north-1", "BLANK": "", "OTHER_REGION": "us-east-2"},
    )


def _resolve(extra: Mapping[str, str], source: FakeSource | None = None) -> ResolvedConfig:
    return resolve_references({**DECLARED, **extra}, source or _source())


# --- resolution ------------------------------------------------------------------------------


def test_each_provider_resolves_its_reference_and_the_key_is_marked_provided() -> None:
    resolved = _resolve(
        {
            "connect.s3.aws.secret.key": "${secrets:/vault/s3.properties:secret}",
            "sasl.jaas.config": "${folder:/mnt/kafka:jaas}",
            "connect.s3.aws.region": "${vars:REGION_OF_BUCKET}",
            "name": "plain-sink",
        }
    )
    assert resolved.values["connect.s3.aws.secret.key"] == "wJal/fake+Secret"
    assert resolved.values["sasl.jaas.config"] == "PlainLoginModule required;\n"  # whole file, newline kept
    assert resolved.values["connect.s3.aws.region"] == "eu-north-1"
    assert resolved.values["name"] == "plain-sink"
    assert resolved.provided == {"connect.s3.aws.secret.key", "sasl.jaas.config", "connect.s3.aws.region"}


def test_several_references_and_surrounding_text_in_one_value() -> None:
    resolved = _resolve(
        {
            "sasl.jaas.config": 'Plain required username="${folder:/mnt/kafka:user}" '
            'password="${secrets:/vault/s3.properties:secret}";',
            "consumer.client.id": "${vars:REGION_OF_BUCKET}-${vars:REGION_OF_BUCKET}/${vars:OTHER_REGION}",
        }
    )
    assert (
        resolved.values["sasl.jaas.config"]
        == 'Plain required username="svc-sink" password="wJal/fake+Secret";'
    )
    assert resolved.values["consumer.client.id"] == "eu-north-1-eu-north-1/us-east-2"


def test_resolved_text_is_not_resolved_again() -> None:
    source = _source()
    source.variables["NESTED"] = "${vars:REGION_OF_BUCKET}"
    assert _resolve({"topics": "${vars:NESTED}"}, source).values["topics"] == "${vars:REGION_OF_BUCKET}"


def test_a_config_without_references_is_returned_unchanged_and_reads_nothing() -> None:
    source = _source()
    props = {"name": "n", "connect.s3.kcql": "INSERT INTO b SELECT * FROM t", "text": "${no colon}"}
    resolved = resolve_references(props, source)
    assert resolved.values == props and resolved.provided == frozenset() and source.reads == []


def test_provider_keys_are_kept_and_never_resolved() -> None:
    resolved = _resolve({"config.providers.vars.param.allowlist.pattern": "${vars:X}"})
    assert resolved.values["config.providers.vars.param.allowlist.pattern"] == "${vars:X}"
    assert resolved.provided == frozenset()


def test_an_empty_environment_variable_resolves_to_an_empty_value() -> None:
    assert _resolve({"connect.s3.aws.region": "${vars:BLANK}"}).values["connect.s3.aws.region"] == ""


def test_kafkas_pattern_splits_alias_path_and_key_at_the_first_colons() -> None:
    # ${a:b:c:d}: alias a, path b, key "c:d" (the key may hold colons, the path may not).
    source = FakeSource(properties={"/p": {"k:x": "colon-key"}})
    props = {"config.providers": "f", "config.providers.f.class": FILE, "v": "${f:/p:k:x}"}
    assert resolve_references(props, source).values["v"] == "colon-key"


# --- errors name the setting, never a value --------------------------------------------------


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("${vault:/x:y}", "config provider 'vault'"),
        ("${secrets:/vault/absent.properties:secret}", "No such file or directory"),
        ("${secrets:/vault/s3.properties:missing}", "has no key 'missing'"),
        ("${secrets:secret}", "needs a path"),
        ("${folder:/mnt/none:jaas}", "is not a directory"),
        ("${folder:/mnt/kafka:absent}", "has no file 'absent'"),
        ("${folder:/mnt/kafka:../etc/passwd}", "is not a file name"),
        ("${vars:NOT_SET_ANYWHERE}", "NOT_SET_ANYWHERE is not set"),
        ("${vars:/some/path:REGION_OF_BUCKET}", "takes no path"),
    ],
)
def test_an_unresolvable_reference_is_a_one_line_error_naming_the_setting(value: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _resolve(
            {
                "connect.s3.aws.secret.key": "prefix-" + value,
                "other": "${secrets:/vault/s3.properties:access}",
            }
        )
    message = str(caught.value)
    assert message.startswith("connect.s3.aws.secret.key") and fragment in message and "\n" not in message
    for secret in ("AKIA-FAKE-77", "wJal/fake+Secret", "svc-sink", "eu-north-1"):
        assert secret not in message


def test_without_any_declaration_a_reference_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"sasl.password refers to config provider 'env'.*declared: none"):
        resolve_references({"sasl.password": "${env:PASSWORD}"}, _source())


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ({"config.providers": "a", "config.providers.a.class": ""}, "config.providers.a.class is required"),
        (
            {"config.providers": "a", "config.providers.a.class": "com.example.VaultConfigProvider"},
            "Unsupported config provider class com.example.VaultConfigProvider in config.providers.a.class",
        ),
        ({"config.providers.ghost.class": FILE}, "config.providers.ghost.class configures a provider"),
        (
            {"config.providers.secrets.param.allowlist.pattern": ".*"},
            "Unknown setting config.providers.secrets.param.allowlist.pattern",
        ),
        (
            {"config.providers.vars.param.allowed.paths": "/"},
            "Unknown setting config.providers.vars.param.allowed.paths",
        ),
        ({"config.providers.vars.other": "x"}, "Unknown setting config.providers.vars.other"),
        (
            {"config.providers.vars.param.allowlist.pattern": "(["},
            "Invalid regular expression in config.providers.vars.param.allowlist.pattern",
        ),
        ({"config.providers.secrets.param.allowed.paths": "relative/dir"}, "must be absolute"),
        (
            {"config.providers.secrets.param.allowed.paths": "/vault"},
            "'/vault' in config.providers.secrets.param.allowed.paths: it does not exist",
        ),
    ],
)
def test_invalid_declarations_are_errors_naming_the_key(extra: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_references({**DECLARED, **extra}, _source())
    assert fragment in str(caught.value)


# --- parameters ------------------------------------------------------------------------------


def test_allowed_paths_admit_paths_under_them_after_normalisation() -> None:
    source = _source()
    source.existing |= {"/vault", "/mnt/kafka"}
    source.properties["/vault/s3.properties"] = {"secret": "inside"}
    props = {
        **DECLARED,
        "config.providers.secrets.param.allowed.paths": "/vault/ , /elsewhere/../mnt/kafka",
        "config.providers.folder.param.allowed.paths": "/mnt/kafka",
        "a": "${secrets:/vault/./sub/../s3.properties:secret}",
        "b": "${folder:/mnt/kafka:user}",
    }
    source.existing.add("/mnt/kafka")
    resolved = resolve_references(props, source)
    assert resolved.values["a"] == "inside" and resolved.values["b"] == "svc-sink"
    assert "/vault/s3.properties" in source.reads  # the normalised path is the one read


@pytest.mark.parametrize(
    "path", ["/vault/../etc/s3.properties", "/vaultish/s3.properties", "vault/s3.properties", "/etc/passwd"]
)
def test_allowed_paths_reject_paths_outside_them_without_reading(path: str) -> None:
    source = _source()
    source.existing.add("/vault")
    props = {
        **DECLARED,
        "config.providers.secrets.param.allowed.paths": "/vault",
        "k": f"${{secrets:{path}:x}}",
    }
    with pytest.raises(
        ConfigError, match=r"^k: cannot resolve .* is outside config.providers.secrets.param.allowed.paths"
    ):
        resolve_references(props, source)
    assert source.reads == []


def test_an_empty_allowed_paths_allows_every_path() -> None:
    props = {
        "config.providers.secrets.param.allowed.paths": "",
        "k": "${secrets:/vault/s3.properties:access}",
    }
    assert _resolve(props).values["k"] == "AKIA-FAKE-77"


def test_the_env_allowlist_matches_anywhere_in_the_name_as_kafka_does() -> None:
    unanchored = {"config.providers.vars.param.allowlist.pattern": "REGION", "k": "${vars:OTHER_REGION}"}
    assert _resolve(unanchored).values["k"] == "us-east-2"
    anchored = {"config.providers.vars.param.allowlist.pattern": "^REGION_", "k": "${vars:OTHER_REGION}"}
    with pytest.raises(ConfigError, match=r"^k: .*OTHER_REGION does not match config.providers.vars.param"):
        _resolve(anchored)


# --- provided values are secrets wherever they land --------------------------------------------

BASE = {"name": "vaulted", "topics": "orders", "connect.s3.kcql": "INSERT INTO lake SELECT * FROM orders"}


def _settings(extra: Mapping[str, str], source: FakeSource) -> ConnectorSettings:
    resolved = _resolve({**BASE, **extra}, source)
    return ConnectorSettings.from_properties(resolved.values, provided=resolved.provided)


def _shown(settings: ConnectorSettings) -> str:
    return "\n".join([repr(settings), str(settings), json.dumps(settings.describe())])


def test_provided_values_never_show_in_repr_or_describe_whatever_the_setting() -> None:
    source = _source()
    source.variables |= {
        "ENDPOINT": "http://minio.internal:9000",
        "BROKERS": "kafka-1.internal:9093",
        "PROTOCOL": "SASL_SSL",
        "REGISTRY": "http://registry.internal:8081",
    }
    settings = _settings(
        {
            "connect.s3.aws.auth.mode": "Credentials",
            "connect.s3.aws.access.key": "${secrets:/vault/s3.properties:access}",
            "connect.s3.aws.secret.key": "${secrets:/vault/s3.properties:secret}",
            "connect.s3.aws.region": "${vars:REGION_OF_BUCKET}",
            "connect.s3.custom.endpoint": "${vars:ENDPOINT}",
            "bootstrap.servers": "${vars:BROKERS}",
            "security.protocol": "${vars:PROTOCOL}",
            "sasl.jaas.config": "${folder:/mnt/kafka:jaas}",
            "consumer.client.id": "${folder:/mnt/kafka:user}",
            "value.converter": "io.confluent.connect.avro.AvroConverter",
            "value.converter.schema.registry.url": "${vars:REGISTRY}",
        },
        source,
    )
    shown = _shown(settings)
    for value in (
        "AKIA-FAKE-77",
        "wJal/fake+Secret",
        "eu-north-1",
        "minio.internal",
        "kafka-1.internal",
        "SASL_SSL",
        "PlainLoginModule",
        "svc-sink",
        "registry.internal",
    ):
        assert value not in shown, value
    # ...while the values themselves reach the adapters, pass-through ones as Secret.
    assert settings.storage.region == "eu-north-1" and settings.bootstrap_servers == "kafka-1.internal:9093"
    assert settings.kafka_client["client.id"] == Secret("svc-sink")
    assert settings.kafka_client["security.protocol"] == Secret("SASL_SSL")
    assert settings.value_converter.settings["schema.registry.url"] == Secret("http://registry.internal:8081")
    assert pickle.loads(pickle.dumps(settings)).storage.secret_key == Secret("wJal/fake+Secret")


def test_a_short_provided_number_is_masked_where_it_is_used_not_inside_other_numbers() -> None:
    source = _source()
    source.variables["RETRIES"] = "7"
    settings = _settings({"connect.s3.max.retries": "${vars:RETRIES}"}, source)
    described = settings.describe()
    assert settings.max_retries == 7 and described["max_retries"] == "******"
    assert described["storage"]["multipart_threshold_bytes"] == 16777216  # holds a 7, not masked
    assert "max_retries=7" not in repr(settings)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("connect.s3.max.retries", "not-a-number-4711"),  # values.as_int: expected an integer
        ("connect.s3.max.retries", "-4711"),  # values.as_int: must be at least 0
        ("connect.s3.http.retry.timeout.multiplier", "x4711"),
        ("connect.s3.error.policy", "NEVER-4711"),  # values.as_enum
        ("connect.s3.disable.flush.count", "yes-4711"),  # values.as_bool
        ("connect.s3.padding.strategy", "Middle-4711"),  # values.as_choice
        ("connect.s3.compression.level", "4711"),  # must be at most 22
        ("connect.s3.log.metrics", "true"),  # not supported yet: key=value in the message
        ("connect.s3.indexes.name", "../up-4711"),  # index_settings quotes the value
        ("connector.class", "io.lenses.streamreactor.connect.aws.s3.source.S3SourceConnector"),
        ("connect.s3.kcql", "INSERT INTO lake SELECT * FROM orders PARTITIONBY nope-4711 STOREAS `BOGUS`"),
    ],
)
def test_errors_about_a_provided_value_mask_it_and_still_name_the_key(key: str, value: str) -> None:
    source = _source()
    source.variables["PROVIDED"] = value
    with pytest.raises(ConfigError) as caught:
        _settings({key: "${vars:PROVIDED}"}, source)
    message = str(caught.value)
    assert value not in message and repr(value) not in message
    assert "4711" not in message
    if key != "connect.s3.kcql":
        assert key in message


def test_the_same_errors_show_a_typed_value_that_no_provider_gave() -> None:
    with pytest.raises(ConfigError, match="Invalid value 'not-a-number' for connect.s3.max.retries"):
        ConnectorSettings.from_properties({**BASE, "connect.s3.max.retries": "not-a-number"})


def test_an_error_elsewhere_masks_a_provided_value_it_happens_to_contain() -> None:
    # The KCQL is typed in the file, but names the bucket an environment variable also holds.
    source = _source()
    source.variables["BUCKET"] = "confidential-bucket"
    with pytest.raises(ConfigError) as caught:
        _settings(
            {
                "connect.s3.kcql": "INSERT INTO confidential-bucket SELECT * FROM orders STOREAS `BOGUS`",
                "connect.s3.local.tmp.directory": "${vars:BUCKET}",
            },
            source,
        )
    assert "confidential-bucket" not in str(caught.value)


def test_the_restore_masks_provided_values_too() -> None:
    source = _source()
    source.variables["PAGE"] = "many-4711"
    aiven = {
        "name": "r",
        "connector.class": AIVEN_CONNECTOR_CLASS,
        "aws.s3.bucket.name": "b",
        "file.name.template": "{{topic}}-{{partition}}-{{start_offset}}",
        "bootstrap.servers": "k:9092",
        "aws.s3.fetch.page.size": "${vars:PAGE}",
        "sasl.username": "${folder:/mnt/kafka:user}",
    }
    resolved = _resolve(aiven, source)
    with pytest.raises(ConfigError) as caught:
        aiven_restore_plan(resolved.values, provided=resolved.provided)
    assert "4711" not in str(caught.value) and "aws.s3.fetch.page.size" in str(caught.value)
    source.variables["PAGE"] = "25"
    resolved = _resolve(aiven, source)
    plan = aiven_restore_plan(resolved.values, provided=resolved.provided)
    assert plan.producer["sasl.username"] == Secret("svc-sink")
