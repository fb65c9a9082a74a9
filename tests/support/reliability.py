"""How hard the kill tests push: a short sample in ``make test``, the whole matrix in ``make test-reliability``.

``make test`` has 15 minutes on 2 cores, so there each kill test kills a few times (one kill per
phase it anchors on); ``LAKESINK_RELIABILITY=full``, which ``make test-reliability`` sets, runs
every kill a test was designed with. Both run the same code and the same exactly-once audit.
"""

from __future__ import annotations

import os

FULL = os.environ.get("LAKESINK_RELIABILITY", "") == "full"


def kills(*, sample: int, full: int) -> int:
    """``full`` under ``make test-reliability``, else ``sample``."""
    return full if FULL else sample
