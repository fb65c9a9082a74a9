"""``lakesink kcql explain`` end to end through ``main()``: output, JSON shape and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.cli import main

LENSES_CUSTOM = "INSERT INTO b:streamReactorBackups SELECT * FROM myTopic PARTITIONBY _key.region, name"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["kcql", "explain", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_output_lists_every_statement_with_defaults_resolved(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "INSERT INTO bkt:p SELECT * FROM a; INSERT INTO other SELECT * FROM b STOREAS `AVRO`", "--json")
    assert code == 0
    document = json.loads(out)
    first, second = document["statements"]
    assert first == {
        "bucket": "bkt",
        "prefix": "p",
        "topic": "a",
        "partition_by": [],
        "no_partition": False,
        "format": "JSON",
        "csv_headers": False,
        "compression_codec": "UNCOMPRESSED",
        "file_extension": "json",
        "properties": {
            "flush.count": 50000,
            "flush.size": 500000000,
            "flush.interval": 3600,
            "partition.include.keys": False,
            "padding.type": "LeftPad",
            "padding.char": "0",
            "padding.length.offset": 12,
            "key.suffix": "",
            "store.envelope": False,
            "partition.date.timezone": "UTC",
            "store.layout": "lenses",
        },
    }
    assert (second["bucket"], second["prefix"], second["format"]) == ("other", None, "AVRO")
    assert document["object_key"] is None


def test_a_record_gets_the_lenses_custom_partition_key(capsys: pytest.CaptureFixture[str]) -> None:
    record = {"topic": "myTopic", "partition": 1, "offset": 0, "key": {"region": 8}, "value": {"name": "sam"}}
    code, out, _ = run(capsys, LENSES_CUSTOM, "--record", json.dumps(record), "--json")
    assert code == 0
    assert json.loads(out)["object_key"] == "streamReactorBackups/region=8/name=sam/myTopic(1_000000000000).json"


def test_a_record_gets_the_lenses_default_key_with_its_timestamp(capsys: pytest.CaptureFixture[str]) -> None:
    record = {"topic": "myTopic", "partition": 1, "offset": 2, "timestamp": 2, "value": "x"}
    code, out, _ = run(capsys, "insert into b:streamReactorBackups select * from myTopic", "--record", json.dumps(record))
    assert code == 0
    assert "streamReactorBackups/myTopic/1/000000000002_2_2.json" in out


def test_the_config_file_codec_and_legacy_padding_change_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(
        "name=s\nconnect.s3.compression.codec=GZIP\nconnect.s3.padding.strategy=NoOp\nconnect.s3.padding.length=10\n"
    )
    record = json.dumps({"topic": "myTopic", "partition": 1, "offset": 2, "timestamp": 0})
    code, out, _ = run(capsys, "INSERT INTO b:x SELECT * FROM myTopic", "--config", str(config), "--record", record, "--json")
    assert code == 0
    assert json.loads(out)["object_key"] == "x/myTopic/1/2_0_0.gz"


def test_invalid_kcql_exits_2_with_the_position_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "INSERT INTO b SELECT * FORM t")
    assert code == 2
    assert out == ""
    assert "FORM" in err and "in KCQL" in err


def test_an_unknown_property_exits_2_and_suggests_the_right_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t PROPERTIES('flush.cont'=5)")
    assert code == 2
    assert "flush.cont" in err and "flush.count" in err


def test_a_codec_the_format_cannot_write_exits_2_naming_the_setting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"name": "n", "config": {"connect.s3.compression.codec": "BZIP2"}}))
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t STOREAS `PARQUET`", "--config", str(config))
    assert code == 2
    assert "connect.s3.compression.codec" in err and "PARQUET" in err


def test_a_record_for_a_topic_without_a_statement_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t", "--record", '{"topic": "other"}')
    assert code == 2
    assert "Can't find the KCQL for source topic [other]" in err


def test_a_record_that_cannot_be_partitioned_exits_2_naming_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t PARTITIONBY _key", "--record", '{"topic": "t", "offset": 7}')
    assert code == 2
    assert "t-0@7" in err


def test_a_missing_config_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t", "--config", str(tmp_path / "absent.properties"))
    assert code == 2
    assert "absent.properties" in err


def test_secrets_from_the_config_never_reach_the_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "s.properties"
    config.write_text(
        "name=s\nconnect.s3.aws.auth.mode=Credentials\nconnect.s3.aws.access.key=AKIAVERYSECRET\n"
        "connect.s3.aws.secret.key=topsecretvalue\n"
    )
    code, out, err = run(capsys, "INSERT INTO b SELECT * FROM t", "--config", str(config), "--json")
    assert code == 0
    assert "topsecretvalue" not in out + err and "AKIAVERYSECRET" not in out + err


def test_invalid_record_json_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "INSERT INTO b SELECT * FROM t", "--record", "{nope")
    assert code == 2
    assert "--record is not valid JSON" in err


def test_a_table_statement_shows_its_table_partition_spec_and_the_specs_only_in_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kcql = ("INSERT INTO bkt:lake/orders SELECT * FROM orders PARTITIONBY region, _header.h STOREAS `PARQUET` "
            "PROPERTIES('table.format'='ICEBERG', 'table.name'='shop.orders')")
    code, out, _ = run(capsys, kcql, "--json")
    assert code == 0
    assert json.loads(out)["statements"][0]["table"] == {
        "format": "ICEBERG", "name": "shop.orders", "location": "bkt/lake/orders",
        "partition_spec": ["identity(region)"], "keys_only": ["_header.h"],
        "catalog": {"type": "sql", "name": "lakesink", "uri": None, "warehouse": None, "properties": {}},
    }
    record = '{"topic": "orders", "partition": 1, "offset": 42, "value": {"region": "eu"}, "headers": {"h": "x"}}'
    code, out, _ = run(capsys, kcql, "--record", record)
    assert code == 0
    assert "table: ICEBERG shop.orders at bkt/lake/orders, partition spec: identity(region)" in out
    assert "lake/orders/region=eu/h=x/orders(1_000000000042).parquet" in out
    assert "named in the sql catalog lakesink in the embedded SQLite file (no table.catalog.uri)" in out


def test_an_iceberg_table_names_its_rest_catalog_without_its_credential(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "s.properties"
    config.write_text(
        "name=s\nconnect.s3.table.catalog.type=rest\nconnect.s3.table.catalog.uri=https://catalog.example.com/api\n"
        "connect.s3.table.catalog.warehouse=lake\nconnect.s3.table.catalog.credential=client:topsecretvalue\n"
    )
    kcql = ("INSERT INTO bkt:lake/orders SELECT * FROM orders STOREAS `PARQUET` "
            "PROPERTIES('table.format'='ICEBERG', 'table.name'='shop.orders')")
    code, out, err = run(capsys, kcql, "--config", str(config), "--json")
    assert code == 0
    assert json.loads(out)["statements"][0]["table"]["catalog"] == {
        "type": "rest", "name": "lakesink", "uri": "https://catalog.example.com/api", "warehouse": "lake",
        "properties": {"credential": "******"},
    }
    code, out, err = run(capsys, kcql, "--config", str(config))
    assert code == 0
    assert ("named in the rest catalog lakesink at https://catalog.example.com/api, warehouse lake, "
            "credential=******") in out
    assert "topsecretvalue" not in out + err


def test_a_catalog_uri_holding_a_password_is_masked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "s.properties"
    config.write_text("name=s\nconnect.s3.table.catalog.uri=postgresql+psycopg2://lake:pgsecretvalue@db/catalog\n")
    kcql = ("INSERT INTO bkt:lake/orders SELECT * FROM orders STOREAS `PARQUET` "
            "PROPERTIES('table.format'='ICEBERG', 'table.name'='shop.orders')")
    code, out, err = run(capsys, kcql, "--config", str(config), "--json")
    assert code == 0
    assert json.loads(out)["statements"][0]["table"]["catalog"]["uri"] == "******"
    assert "pgsecretvalue" not in out + err


def test_a_delta_table_names_no_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    kcql = "INSERT INTO bkt:lake/orders SELECT * FROM orders STOREAS `PARQUET` PROPERTIES('table.format'='DELTA')"
    code, out, _ = run(capsys, kcql, "--json")
    assert code == 0
    assert "catalog" not in json.loads(out)["statements"][0]["table"]


def test_a_date_that_names_a_utc_day_becomes_the_tables_day_transform(capsys: pytest.CaptureFixture[str]) -> None:
    kcql = ("INSERT INTO bkt:lake/orders SELECT * FROM orders PARTITIONBY _date.uuuu-MM-dd, _date.HH STOREAS `PARQUET` "
            "PROPERTIES('table.format'='ICEBERG', 'table.name'='shop.orders')")
    code, out, _ = run(capsys, kcql, "--json")
    assert code == 0
    table = json.loads(out)["statements"][0]["table"]
    assert (table["partition_spec"], table["keys_only"]) == (["hour(_kafka_timestamp)"], [])
    assert table["timestamp_column"] == "_kafka_timestamp"
    code, out, _ = run(capsys, kcql)
    assert "its files carry the record timestamp as column _kafka_timestamp (UTC)" in out


def test_a_lenses_configs_own_statements_are_explained_and_an_argument_overrides_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sink.properties"
    config.write_text(
        "name=s\ntopics=orders\nconnect.s3.kcql=INSERT INTO own:p SELECT * FROM orders STOREAS `PARQUET`\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "--config", str(config), "--json")
    assert code == 0
    assert [(s["bucket"], s["format"]) for s in json.loads(out)["statements"]] == [("own", "PARQUET")]
    code, out, _ = run(capsys, "INSERT INTO other SELECT * FROM orders", "--config", str(config), "--json")
    assert code == 0
    assert [(s["bucket"], s["format"]) for s in json.loads(out)["statements"]] == [("other", "JSON")]
    assert "key_notes" not in json.loads(out)
    config.write_text(config.read_text(encoding="utf-8") + "config.action.reload=restart\n", encoding="utf-8")
    code, out, _ = run(capsys, "--config", str(config))
    assert code == 0 and out.splitlines()[-2:] == [
        "Keys without effect in lakesink:",
        "  config.action.reload: Kafka Connect framework setting: no effect in lakesink (lakesink reads the config "
        "once per run; restart it to apply a change).",
    ]


def test_source_statements_are_explained_as_the_restore_plans_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "s3cr3t-never-shown-42"
    config = tmp_path / "source.properties"
    config.write_text(
        "name=r\nconnect.s3.aws.auth.mode=Credentials\nconnect.s3.aws.access.key=AKIAEXAMPLE\n"
        f"connect.s3.aws.secret.key={secret}\nconnect.s3.aws.region=eu-west-1\n"
        "connect.s3.kcql=INSERT INTO orders SELECT * FROM lake:backups/orders STOREAS `AVRO` "
        "PROPERTIES('store.envelope'=true)\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--config", str(config), "--json")
    assert code == 0 and secret not in out
    document = json.loads(out)
    assert document["role"] == "source"
    [statement] = document["statements"]
    assert (statement["bucket"], statement["prefix"], statement["format"], statement["topic"], statement["envelope"]) == (
        "lake", "backups/orders/", "AVRO", "orders", True
    )
    assert document["settings"]["storage"]["secret_key"] == "******"
    code, out, _ = run(capsys, "--config", str(config))
    assert code == 0 and secret not in out
    assert "lists lake:backups/orders/ and produces into orders" in out
    config.write_text(config.read_text(encoding="utf-8") + "errors.tolerance=all\ntasks.max=2\n", encoding="utf-8")
    code, out, _ = run(capsys, "--config", str(config), "--json")
    notes = json.loads(out)["key_notes"]
    assert code == 0 and set(notes) == {"errors.tolerance", "tasks.max"}
    assert notes["errors.tolerance"].startswith("Kafka Connect framework setting: no effect in lakesink (the restore")
    code, _, err = run(capsys, "INSERT INTO t SELECT * FROM b:p", "--record", '{"topic": "t"}')
    assert code == 2 and "source statements restore objects and take none" in err


def test_a_change_table_shows_its_change_format_and_key(capsys: pytest.CaptureFixture[str]) -> None:
    kcql = ("INSERT INTO bkt:lake/customers SELECT * FROM customers STOREAS `PARQUET` PROPERTIES('store.envelope'=true, "
            "'table.format'='ICEBERG', 'table.name'='shop.customers', 'table.change.format'='DEBEZIUM', "
            "'table.key'='tenant,id')")
    code, out, _ = run(capsys, kcql, "--json")
    assert code == 0
    assert json.loads(out)["statements"][0]["table"]["changes"] == {"format": "DEBEZIUM", "key": ["tenant", "id"]}
    code, out, _ = run(capsys, kcql)
    assert "applies DEBEZIUM changes as upserts and deletes by key tenant, id" in out
