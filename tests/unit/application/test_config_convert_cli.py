"""``lakesink config convert FILE``: the Lenses-dialect config on stdout, the notes on stderr.

Confluent and Aiven configs alike: the printed config is written to a file and loaded back the way
``lakesink sink`` loads a config (provider references resolved, then
``ConnectorSettings.from_properties`` and ``plan_sink``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.bootstrap.config_file import load_config
from lakesink.application.cli import main
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.statement_plan import plan_sink
from tests.support.aiven_configs import CURL
from tests.support.confluent_configs import COMPLETE, FMT, PKG

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
FILE_PROVIDER = {
    "config.providers": "file",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
}


def convert(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str, str]:
    code = main(["config", "convert", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_credentials(tmp_path: Path, text: str) -> Path:
    """A ``.properties`` file a ``${file:...}`` reference reads."""
    path = tmp_path / "aws.properties"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def write_json(tmp_path: Path, config: dict[str, str], name: str = "events-to-s3") -> Path:
    path = tmp_path / "confluent.json"
    path.write_text(json.dumps({"name": name, "config": config}), encoding="utf-8")
    return path


def test_the_seed_example_with_file_provided_credentials_converts_and_loads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    credentials = write_credentials(tmp_path, f"access=AKIAFROMFILE\nsecret={SECRET}")
    reference = f"${{file:{credentials}:secret}}"
    config = {
        key: value for key, value in COMPLETE.items() if key not in ("name", "s3.credentials.provider.class")
    }
    config.update(
        {
            **FILE_PROVIDER,
            "aws.access.key.id": f"${{file:{credentials}:access}}",
            "aws.secret.access.key": reference,
            "timestamp.extractor": "Record",
        }
    )
    code, out, err = convert(capsys, write_json(tmp_path, config))
    assert code == 0
    assert SECRET not in out + err and "AKIAFROMFILE" not in out + err
    assert f"connect.s3.aws.secret.key={reference}" in out.splitlines()
    lines = err.strip().splitlines()
    keys = [line.split(": ", 1)[0] for line in lines]
    assert len(keys) == len(set(keys))  # one line per key
    assert {
        "rotate.interval.ms",
        "errors.tolerance",
        "errors.deadletterqueue.topic.name",
        "file.delim",
    } <= set(keys)
    converted = tmp_path / "lenses.properties"
    converted.write_text(out, encoding="utf-8")
    loaded = load_config(converted)
    settings = ConnectorSettings.from_properties(loaded.values, role="sink", provided=loaded.provided)
    plan = plan_sink(settings)
    assert [p.statement.prefix for p in plan.statements] == ["topics/events", "topics/transactions"]
    storage = settings.storage
    assert isinstance(storage, S3Settings) and storage.secret_key is not None
    assert (storage.auth_mode, storage.secret_key.reveal()) == ("Credentials", SECRET)  # the reference works
    assert SECRET not in repr(settings)


def test_a_properties_file_converts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "confluent.properties"
    config = {
        "name": "props-sink",
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "topics": "events",
        "s3.bucket.name": "data-lake-bucket",
        "format.class": f"{FMT}json.JsonFormat",
        "s3.compression.type": "gzip",
        "flush.size": "100",
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "partitioner.class": f"{PKG}FieldPartitioner",
        "partition.field.name": "region",
    }
    path.write_text("\n".join(f"{key}={value}" for key, value in config.items()), encoding="utf-8")
    code, out, _ = convert(capsys, path)
    assert code == 0
    converted = tmp_path / "lenses.properties"
    converted.write_text(out, encoding="utf-8")
    plan = plan_sink(ConnectorSettings.from_properties(load_config(converted).values, role="sink"))
    statement = plan.statements[0].statement
    assert (statement.prefix, statement.partition_by, plan.statements[0].codec.value) == (
        "topics/events",
        ("region",),
        "GZIP",
    )
    assert "connect.s3.aws.region=us-west-2" in out.splitlines()  # Confluent's default region


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"flush.size": "0"}, "flush.size"),
        ({"s3.bucket": "typo"}, "Unknown Confluent S3 sink setting s3.bucket"),
        (
            {"connector.class": "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"},
            "only a Confluent",
        ),
    ],
)
def test_an_invalid_or_non_confluent_config_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, str], message: str
) -> None:
    config = dict(COMPLETE, **{"aws.access.key.id": "AKIAX", "aws.secret.access.key": SECRET}, **change)
    code, out, err = convert(capsys, write_json(tmp_path, config))
    assert (code, out) == (2, "")
    assert message in err and len(err.strip().splitlines()) == 1
    assert SECRET not in err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = convert(capsys, tmp_path / "missing.json")
    assert (code, out) == (2, "")
    assert "Cannot read the config file" in err


def test_an_aiven_config_with_a_file_provided_secret_converts_and_loads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = f"${{file:{write_credentials(tmp_path, f'secret={SECRET}')}:secret}}"
    config = {key: value for key, value in CURL.items() if key != "name"}
    config.update(
        {
            **FILE_PROVIDER,
            "aws.secret.access.key": reference,
            "format.output.type": "jsonl",
            "file.name.template": "{{key}}",
        }
    )
    del config["aws.s3.prefix"]
    code, out, err = convert(capsys, write_json(tmp_path, config, name="example-s3-sink"))
    assert code == 0
    assert SECRET not in out + err
    assert f"connect.s3.aws.secret.key={reference}" in out.splitlines()
    assert out.startswith("# Converted from an Aiven S3 sink config")
    assert "# NOTE: object keys cannot match Aiven's" in out
    keys = [line.split(": ", 1)[0] for line in err.strip().splitlines()]
    assert len(keys) == len(set(keys))  # one line per key
    assert {"file.name.template", "format.output.fields"} <= set(keys)
    assert "lakesink sink --config" in err
    # The access key was written literally: printed as a reference to the variable stderr names.
    assert "connect.s3.aws.access.key=${env:LAKESINK_CONNECT_S3_AWS_ACCESS_KEY}" in out.splitlines()
    assert "config.providers=file,env" in out.splitlines()
    assert "export LAKESINK_CONNECT_S3_AWS_ACCESS_KEY" in err
    monkeypatch.setenv("LAKESINK_CONNECT_S3_AWS_ACCESS_KEY", CURL["aws.access.key.id"])
    # The access key was written literally: printed as a reference to the variable stderr names.
    assert "connect.s3.aws.access.key=${env:LAKESINK_CONNECT_S3_AWS_ACCESS_KEY}" in out.splitlines()
    assert "config.providers=file,env" in out.splitlines()
    assert "export LAKESINK_CONNECT_S3_AWS_ACCESS_KEY" in err
    monkeypatch.setenv("LAKESINK_CONNECT_S3_AWS_ACCESS_KEY", CURL["aws.access.key.id"])
    converted = tmp_path / "lenses.properties"
    converted.write_text(out, encoding="utf-8")
    loaded = load_config(converted)
    settings = ConnectorSettings.from_properties(loaded.values, role="sink", provided=loaded.provided)
    plan = plan_sink(settings)
    assert [(p.statement.bucket, p.statement.topic) for p in plan.statements] == [
        ("aiven-example", "source_topic"),
        ("aiven-example", "another_topic"),
    ]
    storage = settings.storage
    assert isinstance(storage, S3Settings) and storage.secret_key is not None
    assert storage.secret_key.reveal() == SECRET  # the reference works


def test_an_invalid_aiven_config_exits_2_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = dict(CURL, **{"aws.secret.access.key": SECRET, "aws.s3.bucket.name": "Bad_Bucket"})
    code, out, err = convert(capsys, write_json(tmp_path, config, name="example-s3-sink"))
    assert (code, out) == (2, "")
    assert "Illegal bucket name" in err and len(err.strip().splitlines()) == 1
    assert SECRET not in err


def test_literal_secrets_are_printed_as_environment_references_with_a_note_on_how_to_supply_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    user_info = "registry-user:registry-pass-4f1c"
    config = {
        key: value for key, value in COMPLETE.items() if key not in ("name", "s3.credentials.provider.class")
    }
    config.update({
        "aws.access.key.id": "AKIALITERAL", "aws.secret.access.key": SECRET,
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "http://registry:8081",
        "value.converter.basic.auth.credentials.source": "USER_INFO",
        "value.converter.basic.auth.user.info": user_info,
    })
    code, out, err = convert(capsys, write_json(tmp_path, config))
    assert code == 0
    for secret in (SECRET, user_info, "AKIALITERAL"):
        assert secret not in out + err
    lines = out.splitlines()
    assert "connect.s3.aws.secret.key=${env:LAKESINK_CONNECT_S3_AWS_SECRET_KEY}" in lines
    assert "value.converter.basic.auth.user.info=${env:LAKESINK_VALUE_CONVERTER_BASIC_AUTH_USER_INFO}" in lines
    assert "config.providers=env" in lines
    assert "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider" in lines
    assert (
        "connect.s3.aws.secret.key: a secret, not printed: export LAKESINK_CONNECT_S3_AWS_SECRET_KEY with its value "
        "before running lakesink"
    ) in err.splitlines()
    for variable, value in (("LAKESINK_CONNECT_S3_AWS_SECRET_KEY", SECRET), ("LAKESINK_CONNECT_S3_AWS_ACCESS_KEY", "AKIALITERAL"),
                            ("LAKESINK_VALUE_CONVERTER_BASIC_AUTH_USER_INFO", user_info)):
        monkeypatch.setenv(variable, value)
    converted = tmp_path / "lenses.properties"
    converted.write_text(out, encoding="utf-8")
    loaded = load_config(converted)
    settings = ConnectorSettings.from_properties(loaded.values, role="sink", provided=loaded.provided)
    assert settings.storage.secret_key == Secret(SECRET)
