"""``lakesink status`` exit codes: 2 with one line for a config the sink would refuse, 1 when Kafka does not
answer (what the store says is printed all the same)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.application.cli import EXIT_FAILURE, EXIT_INVALID_INPUT, main
from lakesink.domain.commit.lock_keys import master_lock_key
from lakesink.domain.commit.locks import IndexLock, encode_lock
from tests.unit.application.test_verify_cli import CONFIG


def _status(tmp_path: Path, text: str) -> int:
    config = tmp_path / "sink.properties"
    config.write_text(text.format(root=tmp_path / "store"))
    return main(["status", "--config", str(config)])


def test_a_config_the_sink_would_refuse_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _status(tmp_path, CONFIG.replace("STOREAS `JSON`", "STOREAS `XML`")) == EXIT_INVALID_INPUT
    err = capsys.readouterr().err
    assert err.startswith("lakesink: error: ") and err.count("lakesink: error:") == 1 and "Unsupported format - XML" in err


def test_kafka_not_answering_exits_1_after_printing_what_the_index_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = tmp_path / "store" / "bkt" / master_lock_key(".indexes", "orders-sink", "orders", 2)
    lock.parent.mkdir(parents=True)
    lock.write_bytes(encode_lock(IndexLock("u", 41)))
    monkeypatch.setattr("lakesink.application.bootstrap.verify.KAFKA_TIMEOUT_S", 0.2)

    assert _status(tmp_path, CONFIG) == EXIT_FAILURE

    out = capsys.readouterr().out
    assert "Kafka not reachable:" in out and "orders-2: committed 41, end -, lag -" in out
