"""``lakesink verify`` exit codes: 2 with one line naming the setting for a config the sink would refuse, 1 for a broken index."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.application.cli import EXIT_FAILURE, EXIT_INVALID_INPUT, main
from lakesink.domain.commit.lock_keys import master_lock_key

CONFIG = (
    "name=orders-sink\n"
    "connect.local.root={root}\n"
    "connect.local.kcql=INSERT INTO bkt:out SELECT * FROM orders STOREAS `JSON`\n"
    "topics=orders\n"
    "bootstrap.servers=127.0.0.1:9\n"
)


def _run(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    config = tmp_path / "sink.properties"
    config.write_text(text.format(root=tmp_path / "store"))
    code = main(["verify", "--config", str(config)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        (CONFIG.replace("STOREAS `JSON`", "STOREAS `XML`"), "Unsupported format - XML"),
        (CONFIG.replace("bootstrap.servers=127.0.0.1:9\n", ""), "bootstrap.servers"),
        (CONFIG, "connect.local.root"),  # the bucket folder does not exist
    ],
    ids=["bad-kcql", "no-bootstrap-servers", "missing-bucket"],
)
def test_a_config_the_sink_would_refuse_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, setting: str
) -> None:
    code, err = _run(tmp_path, text, capsys)
    assert code == EXIT_INVALID_INPUT
    assert err.startswith("lakesink: error: ") and err.count("lakesink: error:") == 1 and setting in err


def test_a_malformed_lock_fails_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = tmp_path / "store" / "bkt" / master_lock_key(".indexes", "orders-sink", "orders", 0)
    lock.parent.mkdir(parents=True)
    lock.write_text("{not json")
    monkeypatch.setattr("lakesink.application.bootstrap.verify.KAFKA_TIMEOUT_S", 0.2)
    code, err = _run(tmp_path, CONFIG, capsys)
    assert code == EXIT_FAILURE and "Topic(orders)/0.lock" in err
