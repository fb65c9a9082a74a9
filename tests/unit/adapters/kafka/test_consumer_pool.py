"""Which consumers a process keeps between ranges, and which it closes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lakesink.adapters.kafka import consumer_pool
from lakesink.adapters.kafka.consumer_pool import close_kept, kept_consumer

CONFIG = {"bootstrap.servers": "127.0.0.1:9", "group.id": "g"}


class StubConsumer:
    def __init__(self) -> None:
        self.unassigned = self.closed = 0
        self.looked_up: list[str] = []

    def list_topics(self, topic: str, timeout: float) -> None:
        self.looked_up.append(topic)

    def unassign(self) -> None:
        self.unassigned += 1

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[StubConsumer]]:
    consumers: list[StubConsumer] = []
    monkeypatch.setattr(consumer_pool, "create_consumer", lambda config: consumers.append(StubConsumer()) or consumers[-1])
    close_kept()
    yield consumers
    close_kept()


def _use(config: dict[str, object] = CONFIG, topic: str = "t") -> StubConsumer:
    with kept_consumer(config, topic) as consumer:
        return consumer  # type: ignore[return-value]


def test_a_consumer_that_finished_its_range_is_unassigned_and_serves_the_next(started: list[StubConsumer]) -> None:
    first, second = _use(), _use()

    assert first is second and len(started) == 1
    assert first.unassigned == 2 and first.closed == 0


def test_a_kept_consumer_looks_up_each_topic_it_has_not_read_once_before_its_range(
    started: list[StubConsumer],
) -> None:
    for topic in ("a", "b", "a", "c", "b"):
        _use(topic=topic)

    assert started[0].looked_up == ["b", "c"]  # a new consumer learns its first topic by itself


def test_a_consumer_whose_read_raised_is_closed_and_the_next_range_starts_a_new_one(started: list[StubConsumer]) -> None:
    with pytest.raises(RuntimeError), kept_consumer(CONFIG, "t"):
        raise RuntimeError("broker gone")

    _use()

    assert [c.closed for c in started] == [1, 0]


def test_a_process_keeps_one_consumer_whatever_the_configs_it_served(started: list[StubConsumer]) -> None:
    for sink in range(5):  # a worker serving five sinks one after the other
        _use({**CONFIG, "group.id": f"sink-{sink}"})

    assert [c.closed for c in started] == [1, 1, 1, 1, 0]


def test_of_two_consumers_used_at_once_one_is_kept_and_the_other_closed(started: list[StubConsumer]) -> None:
    with kept_consumer(CONFIG, "t"), kept_consumer(CONFIG, "t"):
        pass

    assert sorted(c.closed for c in started) == [0, 1]


def test_a_consumer_idle_too_long_is_closed_when_next_taken(
    started: list[StubConsumer], monkeypatch: pytest.MonkeyPatch
) -> None:
    _use()
    now = consumer_pool.time.monotonic()
    monkeypatch.setattr(consumer_pool.time, "monotonic", lambda: now + consumer_pool.IDLE_CLOSE_S + 1)

    _use()

    assert [c.closed for c in started] == [1, 0]


def test_a_forked_process_forgets_its_parents_consumers_without_closing_them(
    started: list[StubConsumer], monkeypatch: pytest.MonkeyPatch
) -> None:
    _use()
    monkeypatch.setattr(consumer_pool.os, "getpid", lambda: -1)

    _use()

    assert len(started) == 2 and started[0].closed == 0  # its threads live in the parent only


def test_a_config_with_a_callback_value_is_not_kept(started: list[StubConsumer]) -> None:
    config = {**CONFIG, "oauth_cb": lambda _: ("token", 0.0), "list": [1]}

    _use(config), _use(config)

    assert [c.closed for c in started] == [1, 1]
