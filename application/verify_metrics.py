"""What a verify run tells its metrics: the port ``lakesink verify`` reports its report to, once.

As :mod:`.sink_metrics` for the sink: the command picks the adapter
(:mod:`lakesink.adapters.metrics.verify_prometheus` with ``--metrics-port``), else
:data:`NO_VERIFY_METRICS`.
"""

from __future__ import annotations

from typing import Protocol

from lakesink.domain.verify.report import VerifyReport


class VerifyMetrics(Protocol):
    """Where a verify run reports its numbers."""

    def verified(self, report: VerifyReport) -> None:
        """A verify run ended: its partitions checked, problems found by kind and duration."""


class _NoVerifyMetrics:
    """Reports nowhere: a verify run without a metrics port."""

    def verified(self, report: VerifyReport) -> None:
        del report


NO_VERIFY_METRICS: VerifyMetrics = _NoVerifyMetrics()
