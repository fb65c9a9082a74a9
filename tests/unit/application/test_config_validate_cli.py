"""``lakesink config validate``: every problem of a config at once, per setting, in every dialect;
secrets never printed; exit 0 valid, 2 invalid. Driver-only: no Spark, Kafka or store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.cli import main
from tests.support.aiven_configs import CONSOLE_WITH_AWS
from tests.support.confluent_configs import COMPLETE

SECRET = "s3cr3t-validate-never-shown-77"
PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"
LENSES = {
    "name": "orders-sink",
    "topics": "orders",
    "bootstrap.servers": "broker:9092",
    "connect.s3.aws.auth.mode": "Credentials",
    "connect.s3.aws.access.key": "AKIAEXAMPLE",
    "connect.s3.aws.secret.key": SECRET,
    "connect.s3.aws.region": "eu-west-1",
    "connect.s3.kcql": "INSERT INTO my-bucket:backups SELECT * FROM orders STOREAS `PARQUET`",
}


def validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, str], *args: str) -> tuple[int, str]:
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": config.get("name", "c"), "config": config}), encoding="utf-8")
    code = main(["config", "validate", str(path), *args])
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    return code, captured.out


def errors_of(document: dict[str, object]) -> dict[str, list[str]]:
    configs = document["configs"]
    assert isinstance(configs, list)
    return {entry["name"]: entry["errors"] for entry in configs if entry["errors"]}


def test_a_valid_config_exits_0_and_masks_its_secrets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = validate(tmp_path, capsys, LENSES)
    assert code == 0 and out.strip().endswith("Lenses sink config, valid")
    code, out = validate(tmp_path, capsys, LENSES, "--json")
    document = json.loads(out)
    assert code == 0 and document["schema"] == "lakesink.validate/1" and document["valid"] is True
    values = {entry["name"]: entry["value"] for entry in document["configs"]}
    assert values["connect.s3.aws.secret.key"] == "<secret>" and values["topics"] == "orders"


def test_every_problem_is_reported_at_once_against_its_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {
        **LENSES,
        "value.converter": PROTOBUF,
        "key.converter": "json",
        "key.converter.schemas.enable": "perhaps",
        "connect.s3.eror.policy": "THROW",
        "connect.s3.compression.codec": "LZMA",
        "errors.retry.timeout": "600000",
        "transforms": "route",
        "transforms.route.type": "org.example.NoSuchTransform",
    }
    code, out = validate(tmp_path, capsys, bad, "--json")
    document = json.loads(out)
    errors = errors_of(document)
    assert code == 2 and document["valid"] is False
    assert set(errors) == {
        "value.converter", "key.converter.schemas.enable", "connect.s3.eror.policy", "connect.s3.compression.codec",
        "transforms.route.type",
    }
    assert errors["value.converter"][0].startswith(f"Unsupported value.converter '{PROTOBUF}': expected one of ")
    assert errors["connect.s3.eror.policy"] == ["Unknown setting connect.s3.eror.policy (did you mean connect.s3.error.policy?)"]
    assert document["error_count"] == 5 and document["problems"] == []
    notes = {entry["name"]: entry.get("note") for entry in document["configs"]}
    assert notes["errors.retry.timeout"].startswith("Kafka Connect framework setting: no effect in lakesink")
    code, text = validate(tmp_path, capsys, bad)
    assert code == 2 and "invalid: 5 problem(s)" in text
    assert f"value.converter={PROTOBUF}: Unsupported value.converter" in text


def test_a_missing_required_setting_is_a_problem_of_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {key: value for key, value in LENSES.items() if key != "bootstrap.servers"}
    code, out = validate(tmp_path, capsys, {**config, "connect.s3.compression.codec": "LZMA"}, "--json")
    document = json.loads(out)
    assert code == 2 and list(errors_of(document)) == ["connect.s3.compression.codec"]
    assert document["problems"] == ["bootstrap.servers is required for lakesink sink: the Kafka cluster to read."]


def test_a_confluent_config_reports_its_problems_in_its_own_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {**COMPLETE, "aws.access.key.id": "AKIAEXAMPLE", "aws.secret.access.key": SECRET, "value.converter": PROTOBUF, "s3.part.sise": "5242880",
              "config.action.reload": "restart"}
    code, out = validate(tmp_path, capsys, config, "--json")
    document = json.loads(out)
    assert code == 2 and document["dialect"] == "Confluent S3 sink"
    assert set(errors_of(document)) == {"value.converter", "s3.part.sise"}
    notes = {entry["name"]: entry.get("note") for entry in document["configs"]}
    assert notes["config.action.reload"].startswith("Kafka Connect framework setting")
    assert notes["tasks.max"].startswith("Kafka Connect framework setting")


def test_an_aiven_sink_config_is_validated_in_its_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {**CONSOLE_WITH_AWS, "aws.secret.access.key": SECRET, "bootstrap.servers": "broker:9092"}
    code, out = validate(tmp_path, capsys, config)
    assert code == 0 and "Aiven S3 sink config, valid" in out
    code, out = validate(tmp_path, capsys, {**config, "header.converter": "avro"}, "--json")
    assert code == 2 and list(errors_of(json.loads(out))) == ["header.converter"]


def test_source_configs_are_validated_as_the_restore_loads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = {**LENSES, "connect.s3.kcql": "INSERT INTO orders SELECT * FROM my-bucket:backups STOREAS `AVRO`",
              "errors.tolerance": "all"}
    del source["topics"]
    code, out = validate(tmp_path, capsys, source)
    assert code == 0 and "Lenses source config, valid" in out
    assert "errors.tolerance: Kafka Connect framework setting: no effect in lakesink (the restore produces" in out
    aiven = {"name": "r", "bootstrap.servers": "broker:9092", "aws.s3.bucket.name": "lake", "aws.s3.region": "eu-west-1",
             "topic": "orders", "input.format": "jsonl", "aws.secret.access.key": SECRET,
             "aws.access.key.id": "AKIAEXAMPLE", "tasks.max.enforce": "true", "input.fromat": "x"}
    code, out = validate(tmp_path, capsys, aiven, "--json")
    document = json.loads(out)
    assert code == 2 and document["dialect"] == "Aiven S3 source"
    assert "input.fromat" in errors_of(document)


def test_a_provider_reference_is_shown_as_written_never_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VALIDATE_SECRET", SECRET)
    config = {**LENSES, "connect.s3.aws.secret.key": "${env:VALIDATE_SECRET}", "config.providers": "env",
              "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider"}
    invalid = {**config, "connect.s3.compression.codec": "${env:VALIDATE_SECRET}"}
    code, out = validate(tmp_path, capsys, invalid, "--json")
    document = json.loads(out)
    values = {entry["name"]: entry["value"] for entry in document["configs"]}
    assert code == 2 and values["connect.s3.aws.secret.key"] == "${env:VALIDATE_SECRET}"
    assert errors_of(document)["connect.s3.compression.codec"][0].startswith("Invalid value ****** for")


def test_a_secret_written_into_another_setting_is_masked_there_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = validate(tmp_path, capsys, {**LENSES, "connect.s3.compression.codec": SECRET}, "--json")
    [error] = errors_of(json.loads(out))["connect.s3.compression.codec"]
    assert code == 2 and error.startswith("Invalid value '******' for connect.s3.compression.codec")


def test_kafka_client_settings_are_checked_as_the_runs_clients_get_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jaas = f'com.sun.security.auth.module.Krb5LoginModule required principal="{SECRET}";'
    code, out = validate(tmp_path, capsys, {**LENSES, "sasl.jaas.config": jaas}, "--json")
    [error] = errors_of(json.loads(out))["sasl.jaas.config"]
    assert code == 2 and error.startswith("Unsupported sasl.jaas.config: com.sun.security.auth.module.Krb5LoginModule")


def test_an_unknown_connector_class_is_one_error_naming_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = validate(tmp_path, capsys, {**LENSES, "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector"}, "--json")
    [error] = errors_of(json.loads(out))["connector.class"]
    assert code == 2 and "lakesink runs io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector" in error
