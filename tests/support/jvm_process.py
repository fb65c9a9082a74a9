"""Starting and stopping a test server's process and keeping its log: what the Apache Kafka broker
and the Kafka Connect worker fixtures (tests/support/kafka_broker.py, connect_standalone.py) do, and
the other servers' fixtures in part."""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from bench.processes import die_with_parent


def dies_with_pytest() -> Callable[[], None] | None:
    """The ``preexec_fn`` that has Linux kill a server when the pytest that started it is killed (a
    killed run used to leave its broker running); none off the main thread, because Linux signals the
    child when the *thread* that started it ends (the broker-outage test restarts it from one)."""
    return die_with_parent if threading.current_thread() is threading.main_thread() else None


def stop_gracefully(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as an operator stops the server (a controlled shutdown); killed if it is not gone in 30 s."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def keep_log(log_path: Path, keep_log_in: Path | None) -> None:
    """Copy the server's log to ``keep_log_in`` (when given and the log exists), before its directory goes."""
    if keep_log_in is not None and log_path.exists():
        keep_log_in.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log_path, keep_log_in)
