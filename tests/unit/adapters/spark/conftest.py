"""Fixtures of the columnar sink path tests."""

from __future__ import annotations

from typing import Any

import pytest

from lakesink.adapters.spark import sink_task
from tests.support.sink_batches import Spy


@pytest.fixture
def columnar_calls(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Records what the columnar dispatch answered for each batch."""
    calls: Spy = []
    real = sink_task.write_lines

    def spy(*args: Any) -> bool:
        taken = real(*args)
        calls.append(taken)
        return taken

    monkeypatch.setattr(sink_task, "write_lines", spy)
    return calls
