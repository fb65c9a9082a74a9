"""The restore use case: objects in a bucket back into Kafka topics (``lakesink restore``).

Decides what to restore in which order, where each origin resumes, which origins go to which
task and what each transaction holds, over the ports of :mod:`lakesink.domain.restore.ports`.
"""

from lakesink.application.restore.command import (
    RestoreCommand,
    load_plan,
    render_summary,
    run_restore_command,
)
from lakesink.application.restore.driver import RestoreSummary, run_restore
from lakesink.application.restore.wiring import restore

__all__ = [
    "RestoreCommand",
    "RestoreSummary",
    "load_plan",
    "render_summary",
    "restore",
    "run_restore",
    "run_restore_command",
]
