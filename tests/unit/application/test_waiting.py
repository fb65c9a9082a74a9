"""Re-running a step the store failed: the waits, and when they start again from 1 s."""

from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import pytest

from lakesink.application import waiting
from lakesink.application.waiting import waiting_out
from lakesink.domain.errors import ConfigError, TransientStorageError


def _failing(times: int, done: list[int], moved_on: frozenset[int] = frozenset()) -> Callable[[], str]:
    """A step failing transiently ``times`` times, adding to ``done`` on the attempts of ``moved_on``."""
    attempts = iter(range(times + 1))

    def step() -> str:
        attempt = next(attempts)
        if attempt in moved_on:
            done.append(attempt)
        if attempt < times:
            raise TransientStorageError(f"503 on attempt {attempt}")
        return "ok"

    return step


def test_the_waits_double_while_nothing_moves_on() -> None:
    with mock.patch.object(waiting, "time") as clock:
        assert waiting_out("Step", _failing(4, [])) == "ok"
    assert [c.args[0] for c in clock.sleep.call_args_list] == [1, 2, 4, 8]


def test_an_attempt_that_moved_the_work_on_starts_the_waits_again_from_one_second() -> None:
    done: list[int] = []
    with mock.patch.object(waiting, "time") as clock:
        assert waiting_out("Step", _failing(5, done, moved_on=frozenset({2})), lambda: len(done)) == "ok"
    assert [c.args[0] for c in clock.sleep.call_args_list] == [1, 2, 1, 2, 4]


def test_an_error_waiting_cannot_cure_is_raised_at_once() -> None:
    def step() -> None:
        raise ConfigError("connect.s3.kcql: bad")

    with mock.patch.object(waiting, "time") as clock, pytest.raises(ConfigError):
        waiting_out("Step", step)
    clock.sleep.assert_not_called()
