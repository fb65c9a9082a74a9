"""A task opens its next origins on helper threads while it delivers one at a time; the driver fences each origin once."""

from __future__ import annotations

import threading
import time

import pytest

from lakesink.application.restore.fencing import OriginFencing
from lakesink.application.restore.tasks import deliver_in_order
from lakesink.domain.config.backends import MemorySettings
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot
from lakesink.domain.restore.results import OriginResult
from tests.support.restore_fakes import RecordingBroker


class FakeDelivery:
    """Logs its open and run into a shared journal; ``open_gate`` holds the open until set."""

    def __init__(self, name: str, journal: list[str], *, open_gate: threading.Barrier | None = None,
                 fail_open: bool = False) -> None:
        self.name, self.journal, self.open_gate, self.fail_open = name, journal, open_gate, fail_open
        self.opened = False
        self.closed = False

    def open(self) -> None:
        if self.open_gate is not None:
            self.open_gate.wait()
        if self.fail_open:
            raise RuntimeError(f"{self.name}: broker gone")
        self.opened = True
        self.journal.append(f"open {self.name}")

    def prefetch(self) -> None:
        assert self.opened, f"{self.name} fetches ahead before it was opened"
        self.journal.append(f"prefetch {self.name}")

    def run(self) -> OriginResult:
        assert self.opened, f"{self.name} delivered before it was opened"
        self.journal.append(f"run {self.name}")
        time.sleep(0.01)
        return OriginResult(self.name, 1, 1, 1, 0, 0, "key", 0.0)

    def close(self) -> None:
        self.closed = True


def test_origins_are_delivered_one_after_another_in_order_each_after_its_open() -> None:
    journal: list[str] = []
    deliveries = [FakeDelivery(f"o{n}", journal) for n in range(6)]
    results = list(deliver_in_order(deliveries, ahead=2))
    assert [r.origin for r in results] == [f"o{n}" for n in range(6)]
    assert [entry for entry in journal if entry.startswith("run")] == [f"run o{n}" for n in range(6)]


def test_the_next_origins_open_side_by_side() -> None:
    journal: list[str] = []
    three_opening = threading.Barrier(3, timeout=10)  # broken unless three opens wait at once
    deliveries = [FakeDelivery(f"o{n}", journal, open_gate=three_opening if n < 3 else None) for n in range(4)]
    results = list(deliver_in_order(deliveries, ahead=3))  # BrokenBarrierError if the opens ran one by one
    assert len(results) == 4


def test_no_more_than_ahead_origins_are_opened_before_they_are_delivered() -> None:
    journal: list[str] = []
    deliveries = [FakeDelivery(f"o{n}", journal) for n in range(8)]
    for result in deliver_in_order(deliveries, ahead=2):
        opened_not_run = sum(d.opened for d in deliveries) - int(result.origin[1:]) - 1
        assert opened_not_run <= 2


def test_a_failed_open_is_raised_in_its_turn_and_no_later_origin_is_delivered() -> None:
    journal: list[str] = []
    deliveries = [FakeDelivery(f"o{n}", journal, fail_open=n == 2) for n in range(5)]
    delivered: list[str] = []
    with pytest.raises(RuntimeError, match="o2: broker gone"):
        for result in deliver_in_order(deliveries, ahead=2):
            delivered.append(result.origin)
    assert delivered == ["o0", "o1"]
    assert not any(entry.startswith("run") and entry > "run o2" for entry in journal)


def test_only_the_origin_after_the_one_being_delivered_fetches_ahead() -> None:
    journal: list[str] = []
    deliveries = [FakeDelivery(f"o{n}", journal) for n in range(4)]
    for result in deliver_in_order(deliveries, ahead=3):
        number = int(result.origin[1:])
        fetching = {entry.split()[1] for entry in journal if entry.startswith("prefetch")}
        assert fetching == {f"o{n}" for n in range(1, min(number + 2, 4))}
    assert [entry for entry in journal if entry.startswith("prefetch")] == ["prefetch o1", "prefetch o2", "prefetch o3"]


def test_a_failed_open_closes_every_origin_so_none_keeps_fetching() -> None:
    deliveries = [FakeDelivery(f"o{n}", [], fail_open=n == 1) for n in range(4)]
    with pytest.raises(RuntimeError, match="o1: broker gone"):
        list(deliver_in_order(deliveries, ahead=2))
    assert all(d.closed for d in deliveries)
    assert "prefetch o1" not in deliveries[0].journal


def test_without_opening_ahead_each_origin_opens_itself_when_delivered() -> None:
    journal: list[str] = []

    class SelfOpening(FakeDelivery):
        def run(self) -> OriginResult:
            self.open()
            return super().run()

    list(deliver_in_order([SelfOpening(f"o{n}", journal) for n in range(3)], ahead=0))
    assert journal == ["open o0", "run o0", "open o1", "run o1", "open o2", "run o2"]


def _item(number: int) -> WorkItem:
    return WorkItem(f"origin-{number}", 0, "target", number, ())


def _plan() -> RestorePlan:
    return RestorePlan("r", "memory", MemorySettings(), (RestoreRoot(0, "bkt", "", "target", Format.TEXT),))


def test_each_origin_is_fenced_once_per_run() -> None:
    fencing = OriginFencing(progress_topic_created=False)
    broker = RecordingBroker()  # notes the transactional ids fenced (instead of initialising producers on a broker)
    assert fencing.fence_new(_plan(), broker, [_item(0), _item(1)]) == 2
    assert fencing.fence_new(_plan(), broker, [_item(1), _item(2)]) == 1
    fenced = broker.fenced
    assert len(fenced) == 3 and len(set(fenced)) == 3


def test_nothing_is_fenced_when_this_run_created_the_progress_topic() -> None:
    broker = RecordingBroker()
    assert OriginFencing(progress_topic_created=True).fence_new(_plan(), broker, [_item(0), _item(1)]) == 0
    assert broker.fenced == []
