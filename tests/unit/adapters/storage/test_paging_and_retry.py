"""Shared listing semantics and the uniform retry loop."""

from __future__ import annotations

import pytest

from lakesink.adapters.storage.paging import CommonPrefix, paginate, regroup, roll_up
from lakesink.adapters.storage.retry import RetryPolicy, call_with_retries
from lakesink.domain.errors import AccessDeniedError, TransientStorageError
from lakesink.domain.ports import ListPage, ObjectInfo


def _info(key: str) -> ObjectInfo:
    return ObjectInfo(key, 1, "e", 0)


def test_roll_up_applies_start_after_before_collapsing_prefixes() -> None:
    keys = ["p/a/1", "p/a/2", "p/b/1", "p/c"]
    rolled = list(roll_up(keys, str, "p/", "/", "p/a/1"))
    assert rolled == ["p/a/", "p/b/", "p/c"]
    assert isinstance(rolled[0], CommonPrefix) and not isinstance(rolled[2], CommonPrefix)


def test_paginate_counts_prefixes_and_objects_against_the_page_size() -> None:
    pages = list(paginate([CommonPrefix("a/"), _info("b"), _info("c")], 2))
    assert pages == [ListPage((_info("b"),), ("a/",)), ListPage((_info("c"),), ())]


def test_regroup_drops_a_prefix_repeated_on_the_next_server_page() -> None:
    server = [ListPage((_info("a"),), ("b/",)), ListPage((_info("c"),), ("b/",))]
    assert list(regroup(server, 10)) == [ListPage((_info("a"), _info("c")), ("b/",))]


def _flaky(failures: int) -> tuple[list[int], object]:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise ConnectionResetError("reset")
        return "ok"

    return calls, attempt


def _translate(exc: Exception) -> Exception:
    return TransientStorageError(str(exc)) if isinstance(exc, ConnectionError) else exc


def test_retry_loop_succeeds_when_failures_do_not_exceed_max_retries() -> None:
    calls, attempt = _flaky(2)
    assert call_with_retries(RetryPolicy(2, 0), attempt, _translate, "op") == "ok"  # type: ignore[arg-type]
    assert len(calls) == 3


def test_retry_loop_gives_up_after_max_retries_with_the_attempt_count() -> None:
    calls, attempt = _flaky(3)
    with pytest.raises(TransientStorageError, match="after 3 attempt"):
        call_with_retries(RetryPolicy(2, 0), attempt, _translate, "op")  # type: ignore[arg-type]
    assert len(calls) == 3


def test_permanent_errors_are_not_retried() -> None:
    calls: list[int] = []

    def attempt() -> None:
        calls.append(1)
        raise PermissionError("no")

    with pytest.raises(AccessDeniedError):
        call_with_retries(RetryPolicy(5, 0), attempt, lambda e: AccessDeniedError("denied"), "op")
    assert len(calls) == 1


def test_retry_delay_grows_by_the_multiplier_and_is_capped() -> None:
    policy = RetryPolicy(5, 0.5, multiplier=3.0, max_interval_s=2.0)
    assert [policy.delay(n) for n in (1, 2, 3)] == [0.5, 1.5, 2.0]
