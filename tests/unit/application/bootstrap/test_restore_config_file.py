"""The restore reads its config file the way every command does: bad files are ConfigErrors."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.application.bootstrap.restore import RestoreCommand, run_restore_command
from lakesink.domain.errors import ConfigError


def test_a_non_utf8_restore_config_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "restore.properties"
    path.write_bytes(b"name=r\nconnect.s3.kcql=INSERT INTO t SELECT * FROM b:\xff\n")
    with pytest.raises(ConfigError, match=r"restore\.properties is not UTF-8 text"):
        run_restore_command(RestoreCommand(str(path), once=True))


def test_a_missing_restore_config_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"Cannot read the config file .*absent\.properties"):
        run_restore_command(RestoreCommand(str(tmp_path / "absent.properties"), once=True))


def test_a_missing_bucket_is_one_line_naming_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lakesink.application.cli import EXIT_INVALID_INPUT, main

    config = tmp_path / "restore.properties"
    config.write_text(
        "name=r\n"
        f"connect.local.root={tmp_path}\n"
        "connect.local.kcql=INSERT INTO t SELECT * FROM nobucket:x STOREAS `JSON`\n"
        "bootstrap.servers=127.0.0.1:9\n"
    )

    code = main(["restore", "--config", str(config), "--once"])

    err = capsys.readouterr().err.strip()
    assert code == EXIT_INVALID_INPUT
    assert err.startswith("lakesink: error: Bucket nobucket does not exist") and len(err.splitlines()) == 1, err
    assert "Check the bucket of SELECT ... FROM in connect.local.kcql" in err
