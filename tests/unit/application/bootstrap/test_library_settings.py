"""The connector settings of a library call: validated as the command's, with the library's two differences."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.application.bootstrap.library import library_settings
from lakesink.domain.errors import ConfigError


def lenses(tmp_path: Path, **extra: object) -> dict[str, object]:
    return {
        "name": "lib",
        "connect.local.root": str(tmp_path),
        "connect.local.kcql": "INSERT INTO out:a SELECT * FROM orders STOREAS `JSON`; "
        "INSERT INTO out:b SELECT * FROM refunds STOREAS `JSON`",
        **extra,
    }


def test_the_topics_of_the_kcql_are_read_when_topics_is_unset(tmp_path: Path) -> None:
    assert library_settings(lenses(tmp_path)).topics == ("orders", "refunds")


def test_topics_given_are_kept_and_checked_against_the_kcql(tmp_path: Path) -> None:
    assert library_settings(lenses(tmp_path, topics="orders,refunds")).topics == ("orders", "refunds")
    with pytest.raises(ConfigError):
        library_settings(lenses(tmp_path, topics="orders"))


def test_values_may_be_numbers_and_booleans_and_a_file_path_works_too(tmp_path: Path) -> None:
    settings = library_settings(lenses(tmp_path, **{"connect.local.exactly.once.enable": True,
                                                     "connect.local.max.retries": 3}))
    assert settings.exactly_once and settings.max_retries == 3
    path = tmp_path / "sink.properties"
    path.write_text("\n".join(f"{key}={value}" for key, value in lenses(tmp_path).items()))
    assert library_settings(path).topics == ("orders", "refunds")


@pytest.mark.parametrize(
    ("extra", "needs"),
    [
        ({"connect.local.exactly.once.enable": "false"}, "at-least-once mode"),
        ({"connect.local.error.policy": "NOOP", "errors.deadletterqueue.topic.name": "dlq"}, "a dead-letter topic"),
    ],
)
def test_bootstrap_servers_is_required_only_where_the_sink_talks_to_kafka(
    tmp_path: Path, extra: dict[str, str], needs: str
) -> None:
    with pytest.raises(ConfigError, match=f"bootstrap.servers is required for {needs}"):
        library_settings(lenses(tmp_path, **extra))
    assert library_settings(lenses(tmp_path, **extra, **{"bootstrap.servers": "127.0.0.1:9092"}))
