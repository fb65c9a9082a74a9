"""The restore use case: objects in a bucket back into Kafka topics (``lakesink restore``).

Decides what to restore in which order, where each origin resumes, which origins go to which
task and what each transaction holds, over the ports of :mod:`lakesink.domain.restore.ports`.
"""

from lakesink.application.restore.command import load_plan, render_summary
from lakesink.application.restore.driver import RestoreSummary, run_restore

__all__ = [
    "RestoreSummary",
    "load_plan",
    "render_summary",
    "run_restore",
]
