"""``lakesink kcql explain --config`` with an Aiven S3 sink config (no KCQL), and ``lakesink sink``'s refusal.

Keys follow Aiven's code, not its README: with ``aws.s3.prefix`` set (seed 003's curl example) the
key is ``<prefix><topic>-<partition>-<start offset, 20 digits>.gz`` (``S3SinkTask#oldFullKey``).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lakesink.application.cli import main
from tests.support.aiven_configs import CONSOLE, CONSOLE_WITH_AWS, CURL

SECRET = "SECRET_ACCESS_KEY"
#: 2024-05-09T03:17:33Z.
TS = 1715224653000


def write_config(tmp_path: Path, config: dict[str, object], name: str = "example-s3-sink") -> str:
    body = {key: value for key, value in config.items() if key != "name"}
    path = tmp_path / "aiven.json"
    path.write_text(json.dumps({"name": name, "config": body}), encoding="utf-8")
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


def test_the_curl_example_names_the_prefixed_gzip_object_and_hides_the_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    curl = dict(CURL, **{"tasks.max": 1})  # a JSON number, as in the seed
    record = {"topic": "source_topic", "partition": 2, "offset": 42, "key": "k", "value": "v"}
    code, out, err = explain(capsys, write_config(tmp_path, curl), record)
    assert (code, err) == (0, "")
    assert "Record source_topic-2@42 starts a file in bucket 'aiven-example', key:" in out
    assert "  example-s3-sink/source_topic-2-00000000000000000042.gz" in out.splitlines()
    assert "topic-partition: files per topic-partition" in out
    assert "  (grouped as source_topic-2-42.gz; aws.s3.prefix names the object)" in out.splitlines()
    assert SECRET not in out and "AKI..." not in out
    code, out, _ = explain(capsys, write_config(tmp_path, curl), record, "--json")
    document = json.loads(out)
    assert document["dialect"] == "aiven"
    assert document["object_key"] == "example-s3-sink/source_topic-2-00000000000000000042.gz"
    assert document["object_bucket"] == "aiven-example"
    # The default template (with file.compression.type's .gz) only groups records in prefix mode.
    assert document["file_name"] == "source_topic-2-42.gz"
    assert document["resolved"]["secret_key"] == "******"
    assert document["resolved"]["naming"]["grouping"] == "topic-partition"
    assert document["resolved"]["output_fields"] == ["value (base64)", "key (base64)", "timestamp (none)"]
    assert SECRET not in out


def test_the_console_example_keeps_the_default_name_without_gz(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"topic": "YOUR-TOPIC", "partition": 0, "offset": 5, "value": "v"}
    code, out, _ = explain(capsys, write_config(tmp_path, CONSOLE_WITH_AWS, "s3-sink"), record, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["object_key"] == "YOUR-TOPIC-0-5"
    assert any("gzip-compressed although the names do not end in .gz" in note for note in document["notes"])


def test_key_grouping_and_a_wallclock_template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    by_key = dict(CONSOLE_WITH_AWS, **{"file.name.template": "latest/{{key}}"})
    _, out, _ = explain(
        capsys, write_config(tmp_path, by_key), {"topic": "YOUR-TOPIC", "key": "user-1", "value": "v"}, "--json"
    )
    document = json.loads(out)
    assert document["object_key"] == "latest/user-1"
    assert document["resolved"]["naming"]["grouping"] == "key"
    hourly = dict(
        CONSOLE_WITH_AWS,
        **{"file.name.template": "{{timestamp:unit=HH}}/{{topic}}-{{partition}}-{{start_offset:padding=true}}"},
    )
    before = time.time_ns() // 1_000_000
    _, out, _ = explain(capsys, write_config(tmp_path, hourly), {"topic": "YOUR-TOPIC", "offset": 3, "value": "v"}, "--json")
    after = time.time_ns() // 1_000_000
    document = json.loads(out)
    hours = {f"{datetime.fromtimestamp(ms / 1000, UTC):%H}" for ms in (before, after)}
    assert document["object_key"] in {f"{hour}/YOUR-TOPIC-0-00000000000000000003" for hour in hours}
    assert any("wall clock" in note for note in document["replay_differences"])


def test_event_time_without_a_timestamp_and_an_unsubscribed_topic_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = dict(
        CONSOLE_WITH_AWS,
        **{
            "file.name.template": "{{timestamp:unit=dd}}/{{topic}}-{{partition}}-{{start_offset}}",
            "file.name.timestamp.source": "event",
        },
    )
    code, out, err = explain(capsys, write_config(tmp_path, event), {"topic": "YOUR-TOPIC", "value": "v"})
    assert (code, out) == (2, "")
    assert "no timestamp" in err and len(err.strip().splitlines()) == 1
    code, _, _ = explain(capsys, write_config(tmp_path, event), {"topic": "YOUR-TOPIC", "timestamp": TS, "value": "v"})
    assert code == 0
    code, _, err = explain(capsys, write_config(tmp_path, event), {"topic": "other", "timestamp": TS, "value": "v"})
    assert code == 2 and "not in topics" in err


def test_an_invalid_config_is_one_line_naming_its_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = explain(capsys, write_config(tmp_path, CONSOLE), None)
    assert (code, out) == (2, "")
    assert "aws.s3.bucket.name" in err and len(err.strip().splitlines()) == 1
    code, _, err = explain(capsys, write_config(tmp_path, dict(CONSOLE_WITH_AWS, **{"file.name.templte": "x"})), None)
    assert code == 2 and "did you mean file.name.template?" in err


def test_kcql_with_an_aiven_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path, CONSOLE_WITH_AWS)
    assert main(["kcql", "explain", "INSERT INTO b SELECT * FROM t", "--config", path]) == 2
    assert "an Aiven S3 sink config" in capsys.readouterr().err


def test_sink_validates_an_aiven_config_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A valid Aiven config runs (tests/integration/sink/test_aiven_sink.py); an invalid one, or one
    without the Kafka cluster to read, exits 2 with one line naming the key and no secret."""
    path = write_config(tmp_path, CURL)
    assert main(["sink", "--config", path, "--once"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "bootstrap.servers is required" in err
    assert SECRET not in err
    invalid = write_config(tmp_path, CONSOLE)
    assert main(["sink", "--config", invalid, "--once"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "Neither aws.s3.bucket.name nor aws_s3_bucket" in err


def test_explain_shows_the_records_content_as_aiven_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"topic": "YOUR-TOPIC", "offset": 5, "timestamp": 1000, "key": "k", "value": "test-value"}
    # The console example: csv of the value in Base64 (the --record text taken as its UTF-8 bytes).
    code, out, err = explain(capsys, write_config(tmp_path, CONSOLE_WITH_AWS), record)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[lines.index("Content (the file with only this record, uncompressed):") + 1] == "  dGVzdC12YWx1ZQ=="
    jsonl = dict(CONSOLE_WITH_AWS, **{"format.output.type": "jsonl", "format.output.fields": "key,value,timestamp"})
    code, out, _ = explain(capsys, write_config(tmp_path, jsonl), record, "--json")
    # ByteArrayConverter key and value: their bytes are Base64 text in JSON.
    assert json.loads(out)["content"] == '{"value":"dGVzdC12YWx1ZQ==","key":"aw==","timestamp":"1970-01-01T00:00:01Z"}'
    avro = dict(CONSOLE_WITH_AWS, **{"format.output.type": "avro", "format.output.fields": "value,timestamp"})
    code, out, _ = explain(capsys, write_config(tmp_path, avro), {**record, "timestamp": None}, "--json")
    assert "Aiven's writer fails this record" in json.loads(out)["content"]
