"""``lakesink kcql explain --config`` with a Confluent S3 sink config (no KCQL), and ``lakesink sink``'s refusal.

Golden keys follow Confluent's rules (reference §C.1-C.2): ``topics/<topic>/<encoded
partition>/<topic>+<partition>+<start offset, 10 digits><extension>``, Parquet's default codec
giving ``.snappy.parquet``.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lakesink.application.cli import main
from tests.support.confluent_configs import COMPLETE as SEED_COMPLETE
from tests.support.confluent_configs import FMT, PKG

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
#: 2024-05-09T03:17:33Z: 23:17:33 the day before in Santiago (UTC-4), 08:47:33 in Kolkata (UTC+5:30).
TS = 1715224653000

COMPLETE = {**SEED_COMPLETE, "aws.access.key.id": "AKIAEXAMPLEACCESS", "aws.secret.access.key": SECRET}
BASIC = {
    key: COMPLETE[key]
    for key in ("connector.class", "topics", "s3.bucket.name", "format.class", "flush.size", "storage.class")
}
STRUCT = {
    "type": "struct",
    "fields": [{"field": "region", "type": "string"}, {"field": "event_type", "type": "string"}],
}


def write_config(tmp_path: Path, config: dict[str, object], name: str = "events-to-s3") -> str:
    path = tmp_path / "confluent.json"
    path.write_text(json.dumps({"name": name, "config": config}), encoding="utf-8")
    return str(path)


def explain(
    capsys: pytest.CaptureFixture[str], path: str, record: dict[str, object] | None, *extra: str
) -> tuple[int, str, str]:
    args = ["kcql", "explain", "--config", path, *extra]
    if record is not None:
        args += ["--record", json.dumps(record)]
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def hour_key(ms: int) -> str:
    t = datetime.fromtimestamp(ms / 1000, UTC)
    return f"topics/events/year={t:%Y}/month={t:%m}/day={t:%d}/hour={t:%H}/events+3+0000000042.snappy.parquet"


def test_the_complete_example_explains_with_the_wallclock_key_and_no_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, COMPLETE)
    before = time.time_ns() // 1_000_000
    code, out, err = explain(
        capsys, path, {"topic": "events", "partition": 3, "offset": 42, "value": {"a": 1}}
    )
    after = time.time_ns() // 1_000_000
    assert (code, err) == (0, "")
    assert "Record events-3@42 goes to bucket 'analytics-data-lake', key:" in out
    assert any(f"  {hour_key(ms)}" in out.splitlines() for ms in (before, after))
    assert "timestamp.extractor Wallclock" in out  # keys may differ on a replay
    assert "errors.tolerance" in out  # held
    assert SECRET not in out and "AKIAEXAMPLEACCESS" not in out


def test_json_output_keeps_object_key_and_bucket_and_masks_secrets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = dict(COMPLETE, **{"timestamp.extractor": "Record"})
    code, out, _ = explain(
        capsys,
        write_config(tmp_path, config),
        {"topic": "events", "partition": 3, "offset": 42, "timestamp": TS, "value": {}},
        "--json",
    )
    assert code == 0
    document = json.loads(out)
    assert (
        document["object_key"]
        == "topics/events/year=2024/month=05/day=09/hour=03/events+3+0000000042.snappy.parquet"
    )
    assert document["object_bucket"] == "analytics-data-lake"
    assert document["encoded_partition"] == "year=2024/month=05/day=09/hour=03"
    assert document["resolved"]["secret_key"] == "******"
    assert document["resolved"]["extension"] == ".snappy.parquet"
    assert document["replay_differences"] == []
    assert SECRET not in out
    settings = document["settings"]  # the config's own keys, as it names them
    assert settings["aws.secret.access.key"] == {"value": "******"}
    assert settings["flush.size"]["value"] == COMPLETE["flush.size"] and "topics_regex" not in settings
    assert settings["tasks.max"]["note"].startswith("Kafka Connect framework setting: no effect in lakesink")


def test_record_time_in_a_non_utc_zone_and_a_quarter_hour_bucket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    santiago = dict(COMPLETE, **{"timestamp.extractor": "Record", "timezone": "America/Santiago"})
    record = {"topic": "events", "partition": 3, "offset": 42, "timestamp": TS, "value": {}}
    _, out, _ = explain(capsys, write_config(tmp_path, santiago), record, "--json")
    assert (
        json.loads(out)["object_key"]
        == "topics/events/year=2024/month=05/day=08/hour=23/events+3+0000000042.snappy.parquet"
    )
    kolkata = dict(
        santiago,
        **{
            "timezone": "Asia/Kolkata",
            "partition.duration.ms": "900000",
            "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH/'minute'=mm",
        },
    )
    _, out, _ = explain(capsys, write_config(tmp_path, kolkata), record, "--json")
    assert json.loads(out)["object_key"] == (
        "topics/events/year=2024/month=05/day=09/hour=08/minute=45/events+3+0000000042.snappy.parquet"
    )


def test_the_default_partitioner_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = dict(BASIC, **{"partitioner.class": f"{PKG}DefaultPartitioner"})
    code, out, _ = explain(
        capsys, write_config(tmp_path, config), {"topic": "events", "partition": 0, "offset": 0, "value": "x"}
    )
    assert code == 0
    assert "  topics/events/partition=0/events+0+0000000000.snappy.parquet" in out.splitlines()


def test_the_field_partitioner_example_with_keys_and_headers_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = dict(
        BASIC,
        **{
            "partitioner.class": f"{PKG}FieldPartitioner",
            "partition.field.name": "region,event_type",
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
            "keys.format.class": f"{FMT}json.JsonFormat",
        },
    )
    record = {
        "topic": "events",
        "partition": 0,
        "offset": 7,
        "key": "k1",
        "headers": {"trace": "abc"},
        "value": {"region": "us-east", "event_type": "click"},
        "value_schema": STRUCT,
    }
    code, out, _ = explain(capsys, write_config(tmp_path, config), record, "--json")
    assert code == 0
    document = json.loads(out)
    base = "topics/events/region=us-east/event_type=click/events+0+0000000007"
    assert document["object_key"] == base + ".snappy.parquet"
    assert document["keys_object_key"] == base + ".keys.json"
    assert document["headers_object_key"] == base + ".headers.avro"
    code, out, _ = explain(capsys, write_config(tmp_path, config), record)
    assert f"  keys:    {base}.keys.json" in out.splitlines()
    assert f"  headers: {base}.headers.avro" in out.splitlines()


def test_a_schemaless_value_is_refused_by_the_field_partitioner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = dict(BASIC, **{"partitioner.class": f"{PKG}FieldPartitioner", "partition.field.name": "region"})
    code, out, err = explain(
        capsys, write_config(tmp_path, config), {"topic": "events", "value": {"region": "eu"}}
    )
    assert (code, out) == (2, "")
    assert "Error encoding partition" in err and len(err.strip().splitlines()) == 1


def test_transforms_apply_before_the_key_is_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = dict(
        BASIC,
        **{
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "events",
            "transforms.route.replacement": "archived",
        },
    )
    code, out, _ = explain(
        capsys,
        write_config(tmp_path, config),
        {"topic": "events", "partition": 2, "offset": 5, "value": 1},
        "--json",
    )
    assert code == 0
    document = json.loads(out)
    assert document["transforms"][0]["alias"] == "route"
    assert document["object_key"] == "topics/archived/partition=2/archived+2+0000000005.snappy.parquet"


def test_null_values_follow_behavior_on_null_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"topic": "events", "partition": 1, "offset": 3, "key": "k", "value": None}
    code, _, err = explain(capsys, write_config(tmp_path, BASIC), record)
    assert code == 2 and "behavior.on.null.values" in err
    ignore = dict(BASIC, **{"behavior.on.null.values": "ignore"})
    code, out, _ = explain(capsys, write_config(tmp_path, ignore), record, "--json")
    assert code == 0 and json.loads(out)["object_key"] is None
    write = dict(BASIC, **{"behavior.on.null.values": "write", "store.kafka.keys": "true"})
    code, out, _ = explain(capsys, write_config(tmp_path, write), record, "--json")
    document = json.loads(out)
    assert (document["object_key"], document["keys_object_key"]) == (
        None,
        "topics/events/tombstone/events+1+0000000003.keys.avro",
    )


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"s3.compression.type": "gzip"}, "s3.compression.type"),
        ({"s3.bucket": "typo"}, "s3.bucket"),
        ({"s3.ssea.name": "aws:kms"}, "s3.ssea.name"),
        ({"flush.size": "0"}, "flush.size"),
    ],
)
def test_a_setting_confluent_would_refuse_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, str], key: str
) -> None:
    code, out, err = explain(capsys, write_config(tmp_path, dict(COMPLETE, **change)), None)
    assert (code, out) == (2, "")
    assert key in err and len(err.strip().splitlines()) == 1
    assert SECRET not in err


def test_kcql_with_a_confluent_config_and_no_kcql_at_all_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    confluent = write_config(tmp_path, BASIC)
    assert main(["kcql", "explain", "INSERT INTO b SELECT * FROM events", "--config", confluent]) == 2
    assert "takes no KCQL" in capsys.readouterr().err
    assert main(["kcql", "explain"]) == 2
    assert "needs a KCQL argument" in capsys.readouterr().err
    bare = tmp_path / "bare.properties"
    bare.write_text("name=x\ntopics=t\nconnect.s3.aws.region=eu-west-1\n", encoding="utf-8")
    assert main(["kcql", "explain", "--config", str(bare)]) == 2
    assert "needs a KCQL argument or a config with connect.s3.kcql" in capsys.readouterr().err


def test_a_lenses_config_alone_is_explained_with_its_own_kcql(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lenses = tmp_path / "lenses.properties"
    lenses.write_text("name=x\nconnect.s3.kcql=INSERT INTO b:p SELECT * FROM t STOREAS `AVRO`\ntopics=t\n", encoding="utf-8")
    assert main(["kcql", "explain", "--config", str(lenses), "--json"]) == 0
    statement = json.loads(capsys.readouterr().out)["statements"][0]
    assert (statement["bucket"], statement["prefix"], statement["format"]) == ("b", "p", "AVRO")


def test_sink_refuses_an_invalid_confluent_config_or_one_without_brokers_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_brokers = {key: value for key, value in COMPLETE.items() if key != "bootstrap.servers"}
    assert main(["sink", "--config", write_config(tmp_path, no_brokers), "--once"]) == 2
    err = capsys.readouterr().err
    assert "bootstrap.servers is required" in err
    assert len(err.strip().splitlines()) == 1 and SECRET not in err
    assert (
        main(["sink", "--config", write_config(tmp_path, dict(COMPLETE, **{"s3.bucket": "x"})), "--once"])
        == 2
    )
    assert "Unknown Confluent S3 sink setting s3.bucket" in capsys.readouterr().err


def test_a_properties_config_with_provided_values_never_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKESINK_TEST_SECRET", SECRET)
    monkeypatch.setenv("LAKESINK_TEST_REGION", "eu-central-1")
    path = tmp_path / "confluent.properties"
    path.write_text(
        "\n".join(
            [
                "name=props-sink",
                *(f"{key}={value}" for key, value in BASIC.items()),
                "format.class=io.confluent.connect.s3.format.json.JsonFormat",
                "s3.compression.type=gzip",
                "config.providers=env",
                "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                "aws.access.key.id=AKIAPLAIN",
                "aws.secret.access.key=${env:LAKESINK_TEST_SECRET}",
                "s3.region=${env:LAKESINK_TEST_REGION}",
            ]
        ),
        encoding="utf-8",
    )
    for extra in ((), ("--json",)):
        code, out, _ = explain(capsys, str(path), {"topic": "events", "value": {"x": 1}}, *extra)
        assert code == 0
        assert SECRET not in out and "eu-central-1" not in out and "AKIAPLAIN" not in out
        assert "topics/events/partition=0/events+0+0000000000.json.gz" in out
