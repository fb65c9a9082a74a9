"""Config provider references resolved from real files and environment variables by the commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.bootstrap.config_file import load_config, load_settings
from lakesink.application.cli import main
from lakesink.application.explain import ExplainCommand, explain, render_json, render_text
from lakesink.application.restore.command import load_plan
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from tests.support.clocks import ManualClock

SECRET_KEY = "tmp-Secret/Key+98765"
JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="pw-5511";\n'
ACCESS_KEY = "AKIA-FROM-ENV-24680"


@pytest.fixture
def secrets_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "secrets"
    (folder / "kafka").mkdir(parents=True)
    (folder / "s3.properties").write_text(
        f"# credentials\nsecret = {SECRET_KEY}\nregion: eu-central-1\n", encoding="utf-8"
    )
    (folder / "kafka" / "jaas").write_text(JAAS, encoding="utf-8")
    monkeypatch.setenv("LAKESINK_TEST_ACCESS_KEY", ACCESS_KEY)
    monkeypatch.setenv("LAKESINK_TEST_BROKERS", "broker-a.test:9092")
    return folder


def _providers(folder: Path) -> str:
    return "\n".join(
        [
            "config.providers=file,dir,env",
            "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
            f"config.providers.file.param.allowed.paths={folder}",
            "config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider",
            "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
            "config.providers.env.param.allowlist.pattern=^LAKESINK_TEST_",
        ]
    )


def _sink_config(tmp_path: Path, folder: Path, *, extra: str = "") -> Path:
    path = tmp_path / "sink.properties"
    path.write_text(
        "\n".join(
            [
                "name=provided",
                "topics=orders",
                "connect.s3.kcql=INSERT INTO lake SELECT * FROM orders",
                "connect.s3.aws.auth.mode=Credentials",
                "connect.s3.aws.access.key=${env:LAKESINK_TEST_ACCESS_KEY}",
                f"connect.s3.aws.secret.key=${{file:{folder}/s3.properties:secret}}",
                f"connect.s3.aws.region=${{file:{folder}/s3.properties:region}}",
                f"sasl.jaas.config=${{dir:{folder}/kafka:jaas}}",
                "bootstrap.servers=${env:LAKESINK_TEST_BROKERS}",
                _providers(folder),
                extra,
            ]
        ),
        encoding="utf-8",
    )
    return path


def _everything_shown(text: str) -> None:
    for value in (SECRET_KEY, ACCESS_KEY, "pw-5511", "eu-central-1", "broker-a.test"):
        assert value not in text, value


def test_the_sink_loads_provided_values_and_never_shows_them(tmp_path: Path, secrets_dir: Path) -> None:
    settings = load_settings(_sink_config(tmp_path, secrets_dir))
    assert settings.storage.secret_key == Secret(SECRET_KEY)
    assert settings.storage.access_key == Secret(ACCESS_KEY)
    assert settings.storage.region == "eu-central-1"
    assert settings.bootstrap_servers == "broker-a.test:9092"
    assert settings.kafka_client["sasl.jaas.config"] == Secret(JAAS)  # the whole file, newline kept
    _everything_shown(repr(settings) + str(settings) + json.dumps(settings.describe()))


def test_a_json_config_resolves_references_the_same_way(tmp_path: Path, secrets_dir: Path) -> None:
    path = tmp_path / "sink.json"
    config = {
        "name": "provided",
        "topics": "orders",
        "connect.s3.kcql": "INSERT INTO lake SELECT * FROM orders",
        "bootstrap.servers": "${env:LAKESINK_TEST_BROKERS}",
        "config.providers": "env",
        "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    }
    path.write_text(json.dumps({"name": "provided", "config": config}), encoding="utf-8")
    assert load_settings(path).bootstrap_servers == "broker-a.test:9092"


def test_a_bad_provided_value_is_validated_like_a_typed_one_and_masked(
    tmp_path: Path, secrets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKESINK_TEST_RETRIES", "lots-31337")
    path = _sink_config(tmp_path, secrets_dir, extra="connect.s3.max.retries=${env:LAKESINK_TEST_RETRIES}")
    with pytest.raises(ConfigError, match=r"Invalid value \*\*\*\*\*\* for connect.s3.max.retries") as caught:
        load_settings(path)
    assert "31337" not in str(caught.value)


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (
            "connect.s3.aws.region=${file:{folder}/absent.properties:region}",
            "absent.properties: No such file",
        ),
        ("connect.s3.aws.region=${file:{folder}/s3.properties:zone}", "has no key 'zone'"),
        (
            "connect.s3.aws.region=${file:/etc/hostname:x}",
            "is outside config.providers.file.param.allowed.paths",
        ),
        ("connect.s3.aws.region=${dir:{folder}/kafka:absent}", "has no file 'absent'"),
        (
            "connect.s3.aws.region=${env:LAKESINK_TEST_UNSET_VARIABLE}",
            "LAKESINK_TEST_UNSET_VARIABLE is not set",
        ),
        (
            "connect.s3.aws.region=${env:HOME}",
            "HOME does not match config.providers.env.param.allowlist.pattern",
        ),
        ("connect.s3.aws.region=${vault:secret/s3:region}", "config provider 'vault'"),
    ],
)
def test_an_unresolvable_reference_stops_the_sink_naming_the_setting(
    tmp_path: Path, secrets_dir: Path, line: str, fragment: str
) -> None:
    # A later duplicate key wins in .properties, so the extra line replaces the working reference.
    path = _sink_config(tmp_path, secrets_dir, extra=line.replace("{folder}", str(secrets_dir)))
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert message.startswith("connect.s3.aws.region: ") or message.startswith("connect.s3.aws.region refers")
    assert fragment in message and "\n" not in message
    _everything_shown(message)


def test_the_cli_reports_a_missing_secret_file_as_a_config_error(
    tmp_path: Path, secrets_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (secrets_dir / "kafka" / "jaas").unlink()
    code = main(["sink", "--config", str(_sink_config(tmp_path, secrets_dir)), "--once"])
    captured = capsys.readouterr()
    assert code == 2 and "sasl.jaas.config" in captured.err
    _everything_shown(captured.out + captured.err)


def test_explain_masks_provided_values_in_its_output(
    tmp_path: Path, secrets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKESINK_TEST_CODEC", "ZSTD")
    path = _sink_config(
        tmp_path, secrets_dir, extra="connect.s3.compression.codec=${env:LAKESINK_TEST_CODEC}"
    )
    kcql = "INSERT INTO lake SELECT * FROM orders STOREAS `PARQUET`"
    result = explain(ExplainCommand.from_cli(kcql=kcql, config=load_config(path), record_json=None), ManualClock())
    assert result.plan.statements[0].codec.value == "ZSTD"
    text, document = render_text(result), render_json(result)
    assert "ZSTD" not in text and "ZSTD" not in document
    assert kcql in text  # the KCQL argument is the user's own text, shown as given
    _everything_shown(text + document)
    # A plan-level rule (JSON files cannot be ZSTD) fails without showing the provided codec either.
    json_kcql = "INSERT INTO lake SELECT * FROM orders"
    with pytest.raises(ConfigError, match=r"Invalid value \*{6} for connect.s3.compression.codec") as caught:
        explain(ExplainCommand.from_cli(kcql=json_kcql, config=load_config(path), record_json=None), ManualClock())
    assert "ZSTD" not in str(caught.value)


def test_the_restore_loads_a_provided_source_config(tmp_path: Path, secrets_dir: Path) -> None:
    path = tmp_path / "restore.properties"
    path.write_text(
        "\n".join(
            [
                "name=restore",
                "connect.s3.kcql=INSERT INTO orders SELECT * FROM lake:backup STOREAS `AVRO`",
                "bootstrap.servers=${env:LAKESINK_TEST_BROKERS}",
                f"sasl.jaas.config=${{dir:{secrets_dir}/kafka:jaas}}",
                _providers(secrets_dir),
            ]
        ),
        encoding="utf-8",
    )
    config = load_config(path)
    plan = load_plan(config.values, provided=config.provided)
    assert plan.producer["bootstrap.servers"] == "broker-a.test:9092"
    assert plan.producer["sasl.jaas.config"] == Secret(JAAS)
