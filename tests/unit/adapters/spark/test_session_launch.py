"""SessionLaunch: the session starts on a thread, errors reach the caller, leaving always stops it."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from lakesink.adapters.spark.session_launch import THREAD_NAME, SessionLaunch


class FakeSession:
    """Stands in for a SparkSession: counts stop() calls."""

    def __init__(self) -> None:
        self.stops = 0

    def stop(self) -> None:
        self.stops += 1


class GatedFactory:
    """Creates a FakeSession only once ``release`` is set, like a JVM that takes its time."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.release = threading.Event()
        self.thread: str | None = None
        self.session = FakeSession()
        self._error = error

    def __call__(self) -> Any:
        self.thread = threading.current_thread().name
        assert self.release.wait(10)
        if self._error is not None:
            raise self._error
        return self.session


def test_the_caller_continues_while_the_session_is_created_on_another_thread() -> None:
    factory = GatedFactory()
    launch = SessionLaunch(factory=factory)

    factory.release.set()
    session = launch.session()

    assert session is factory.session
    assert factory.thread == THREAD_NAME
    launch.stop()


def test_a_session_that_failed_to_start_raises_the_launch_error_itself() -> None:
    error = RuntimeError("Java gateway process exited before sending its port number")
    factory = GatedFactory(error)
    factory.release.set()

    with pytest.raises(RuntimeError) as raised, SessionLaunch(factory=factory) as launch:
        launch.session()

    assert raised.value is error


def test_leaving_the_block_waits_for_a_pending_launch_and_stops_its_session() -> None:
    factory = GatedFactory()
    releaser = threading.Timer(0.2, factory.release.set)

    with SessionLaunch(factory=factory):
        releaser.start()

    assert factory.session.stops == 1


def test_a_failure_of_the_callers_work_stops_the_session_and_is_what_propagates() -> None:
    factory = GatedFactory()
    factory.release.set()

    with pytest.raises(ValueError, match="bucket"), SessionLaunch(factory=factory):
        raise ValueError("bucket missing")

    assert factory.session.stops == 1


def test_the_callers_failure_wins_over_a_failed_launch() -> None:
    factory = GatedFactory(RuntimeError("no java"))
    factory.release.set()

    with pytest.raises(ValueError, match="bucket"), SessionLaunch(factory=factory):
        raise ValueError("bucket missing")


def test_stop_is_idempotent_and_a_stopped_launch_hands_out_no_session() -> None:
    factory = GatedFactory()
    factory.release.set()
    launch = SessionLaunch(factory=factory)

    launch.stop()
    launch.stop()

    assert factory.session.stops == 1
    with pytest.raises(RuntimeError, match="stopped"):
        launch.session()
