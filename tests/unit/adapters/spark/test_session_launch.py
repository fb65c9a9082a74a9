"""SessionLaunch: the session starts on a thread, errors reach the caller, leaving always stops it
(waiting for the launch only when its session was asked for)."""

from __future__ import annotations

import threading
import time
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


def _eventually(condition: Any, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_leaving_the_block_waits_for_a_launch_whose_session_was_asked_for_and_stops_it() -> None:
    factory = GatedFactory()
    releaser = threading.Timer(0.2, factory.release.set)

    with SessionLaunch(factory=factory) as launch:
        releaser.start()
        launch.session()

    assert factory.session.stops == 1


def test_leaving_the_block_does_not_wait_for_a_launch_nobody_used_which_stops_its_own_session() -> None:
    factory = GatedFactory()

    began = time.monotonic()
    with SessionLaunch(factory=factory):
        pass  # a run that found nothing to write
    assert time.monotonic() - began < 1.0 and factory.session.stops == 0, "the JVM is still starting"

    factory.release.set()
    assert _eventually(lambda: factory.session.stops == 1), "the launching thread stops the session it made"


def test_a_failure_of_the_callers_work_stops_the_session_and_is_what_propagates() -> None:
    factory = GatedFactory()
    factory.release.set()

    with pytest.raises(ValueError, match="bucket"), SessionLaunch(factory=factory):
        raise ValueError("bucket missing")

    assert _eventually(lambda: factory.session.stops == 1)


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

    assert _eventually(lambda: factory.session.stops == 1)
    with pytest.raises(RuntimeError, match="stopped"):
        launch.session()
    assert factory.session.stops == 1
