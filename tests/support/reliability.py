"""How hard the kill and fault tests push, and what they report for RELIABILITY.md.

``make test`` has 15 minutes on 2 cores, so there each kill test kills a few times (one kill per
phase it anchors on) and each fault matrix runs one cell; ``LAKESINK_RELIABILITY=full``, which
``make test-reliability`` sets, runs every kill and every cell a test was designed with. Both run
the same code and the same exactly-once audit.

A passing cell records what it did with :func:`record_cell` in the JSON-lines file named by
``LAKESINK_RELIABILITY_RESULTS`` (set by ``make test-reliability``, which then renders
RELIABILITY.md from it with ``python -m tests.support.reliability_report``); unset, nothing is kept.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

FULL = os.environ.get("LAKESINK_RELIABILITY", "") == "full"
RESULTS_ENV = "LAKESINK_RELIABILITY_RESULTS"

_KILLED = {
    "peer dialect": random.choice(("confluent", "aiven")),
    "table": random.choice(("ICEBERG", "DELTA", "change table")),
}
_KILLED_GROUP = random.choice(tuple(_KILLED))
"""The one kind whose kill test ``make test`` runs beside the core sink's (test_kill9.py), drawn per run
from one group drawn per run (to stay inside its 15 minutes: each is about 30 s): the peer dialects
share the sink's exactly-once path and differ in their keys and objects, the tables in their commit,
which their other tests, and the store-call crash simulations (tests/unit/application/
test_simulation.py), cover each run. ``make test-reliability`` kills all."""


def kills(*, sample: int, full: int) -> int:
    """``full`` under ``make test-reliability``, else ``sample``."""
    return full if FULL else sample


def skip_unless_killed(group: str, kind: str) -> None:
    """Skip the kill test of ``kind`` (of ``group``: ``peer dialect``, ``table``) unless this run drew it
    or runs them all."""
    drawn = _KILLED[group] if group == _KILLED_GROUP else None
    if not FULL and kind != drawn:
        chosen = f"{_KILLED_GROUP} {_KILLED[_KILLED_GROUP]}"
        pytest.skip(f"make test kills one peer dialect or table kind per run (this run: {chosen}); "
                    "make test-reliability all")


def record_cell(matrix: str, **facts: object) -> None:
    """Append one passed cell of ``matrix`` (its backend, fault, mode, counts and outcome) to the results."""
    target = os.environ.get(RESULTS_ENV)
    if target:
        with Path(target).open("a", encoding="utf-8") as results:
            results.write(json.dumps({"matrix": matrix, **facts}) + "\n")
