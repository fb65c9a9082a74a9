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

_PEER_DIALECT_KILLED = random.choice(("confluent", "aiven"))
"""The one peer dialect whose kill test ``make test`` runs, drawn per run: the two share the sink's
exactly-once path and differ in their keys and objects, which their other tests cover each run."""


def kills(*, sample: int, full: int) -> int:
    """``full`` under ``make test-reliability``, else ``sample``."""
    return full if FULL else sample


def skip_unless_dialect_killed(dialect: str) -> None:
    """Skip the kill test of the peer ``dialect`` (``confluent``, ``aiven``) unless this run draws it
    (``make test`` kills one of the two per run, to stay inside its 15 minutes) or runs them all."""
    if not FULL and dialect != _PEER_DIALECT_KILLED:
        pytest.skip(
            f"make test kills one peer dialect per run (this run: {_PEER_DIALECT_KILLED}); make test-reliability both"
        )


def record_cell(matrix: str, **facts: object) -> None:
    """Append one passed cell of ``matrix`` (its backend, fault, mode, counts and outcome) to the results."""
    target = os.environ.get(RESULTS_ENV)
    if target:
        with Path(target).open("a", encoding="utf-8") as results:
            results.write(json.dumps({"matrix": matrix, **facts}) + "\n")
