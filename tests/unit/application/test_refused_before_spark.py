"""``sink``, ``restore`` and ``kcql explain`` refuse a converter lakesink does not have when they load
the config: exit 2 with one line naming the key, before any Spark session or Kafka client exists
(the config names an unreachable broker and bucket: getting further would fail differently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.application.cli import main

PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"
BASE = {"name": "s", "bootstrap.servers": "127.0.0.1:1", "connect.s3.aws.region": "eu-west-1",
        "connect.s3.custom.endpoint": "http://127.0.0.1:1"}


@pytest.mark.parametrize(
    ("command", "config", "key"),
    [
        (["sink", "--once"], {"topics": "t", "connect.s3.kcql": "INSERT INTO b:p SELECT * FROM t",
                              "value.converter": PROTOBUF}, "value.converter"),
        (["restore", "--once"], {"connect.s3.kcql": "INSERT INTO t SELECT * FROM b:p", "header.converter": PROTOBUF},
         "header.converter"),
        (["kcql", "explain"], {"topics": "t", "connect.s3.kcql": "INSERT INTO b:p SELECT * FROM t",
                               "key.converter": PROTOBUF}, "key.converter"),
    ],
    ids=["sink", "restore", "explain"],
)
def test_an_unsupported_converter_exits_2_in_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], config: dict[str, str], key: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**BASE, **config}), encoding="utf-8")
    assert main([*command, "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lakesink: error: Unsupported {key} '{PROTOBUF}': expected one of ")
    assert len(err.strip().splitlines()) == 1
