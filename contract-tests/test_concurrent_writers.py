"""Conditional writes fence concurrent writers: in every round exactly one racer wins."""

from __future__ import annotations

import threading
from collections.abc import Callable

from backends import Target

from lakesink.domain.errors import PreconditionFailedError

ROUNDS = 10
RACERS = 2


def _race(attempt: Callable[[int], str]) -> list[int]:
    """Run ``attempt(racer)`` in RACERS threads released together; returns the racers that won."""
    barrier = threading.Barrier(RACERS)
    winners: list[int] = []
    errors: list[BaseException] = []

    def run(racer: int) -> None:
        barrier.wait()
        try:
            attempt(racer)
            winners.append(racer)
        except PreconditionFailedError:
            pass
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return winners


def test_exactly_one_of_two_concurrent_put_if_absent_calls_wins_each_round(target: Target) -> None:
    for round_number in range(ROUNDS):
        key = target.key(f"create/{round_number}.lock")
        winners = _race(lambda racer, key=key: target.store.put_if_absent(target.bucket, key, f"{racer}".encode()))
        assert len(winners) == 1, f"round {round_number}: winners {winners}"
        assert target.store.get(target.bucket, key).data == f"{winners[0]}".encode()


def test_exactly_one_of_two_concurrent_put_if_match_calls_wins_each_round(target: Target) -> None:
    key = target.key("cas.lock")
    etag = target.store.put(target.bucket, key, b"start")
    for round_number in range(ROUNDS):
        seen = etag
        winners = _race(lambda racer, seen=seen, number=round_number: target.store.put_if_match(
            target.bucket, key, f"{number}-{racer}".encode(), seen))
        assert len(winners) == 1, f"round {round_number}: winners {winners}"
        stored = target.store.get(target.bucket, key)
        assert stored.data == f"{round_number}-{winners[0]}".encode()
        etag = stored.etag
