"""A real Spark standalone cluster on 127.0.0.1 from the PySpark wheel, and spark-submit to run on it.

The master and each worker are separate JVMs started with the wheel's ``bin/spark-class`` (the
``sbin`` start scripts are not in the wheel), every one in its own process group so stopping
takes the executors they launched with them. Memory is kept small: 256 MB a daemon, one core
and 1 GB to offer per worker.
"""

from __future__ import annotations

import json
import socket
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyspark

from tests.support.sink_process import GroupProcess

SPARK_HOME = Path(pyspark.__file__).parent
SPARK_CLASS = SPARK_HOME / "bin" / "spark-class"
SPARK_SUBMIT = SPARK_HOME / "bin" / "spark-submit"
_ENV = {"SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "256m", "SPARK_HOME": str(SPARK_HOME),
        "SPARK_NO_DAEMONIZE": "1"}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class StandaloneCluster:
    """A master and ``workers`` workers, each offering one core; :attr:`url` is the master's."""

    def __init__(self, directory: Path, workers: int = 2) -> None:
        self._directory = directory
        self._workers = workers
        self._ui_port = free_port()
        self.url = f"spark://127.0.0.1:{free_port()}"
        self._processes: list[GroupProcess] = []
        self.worker_ui_ports = [free_port() for _ in range(workers)]
        """Each worker's web UI port: an executor's log URLs point at its worker's."""

    def __enter__(self) -> StandaloneCluster:
        self._directory.mkdir(parents=True, exist_ok=True)
        try:
            self._start_all()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start_all(self) -> None:
        port = self.url.rsplit(":", 1)[1]
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", port,
                    "--webui-port", str(self._ui_port))
        # Workers that find no master yet retry only after seconds: start them once it answers.
        self._wait_until(lambda: self.alive_workers() is not None, "the master", timeout_s=60)
        for index in range(self._workers):
            work = self._directory / f"worker-{index}"
            work.mkdir(parents=True, exist_ok=True)
            self._start(f"worker-{index}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--webui-port", str(self.worker_ui_ports[index]), "--cores", "1", "--memory", "1g", "--work-dir", str(work),
                        self.url)
        self._wait_until(lambda: self.alive_workers() == self._workers, "the workers", timeout_s=60)

    def __exit__(self, *_: object) -> None:
        for process in reversed(self._processes):  # workers first, so none re-registers
            process.kill9()

    def _start(self, name: str, main: str, *arguments: str) -> None:
        self._processes.append(GroupProcess([str(SPARK_CLASS), main, *arguments], self._directory / f"{name}.log",
                                            env=_ENV))

    def _wait_until(self, ready: Callable[[], bool], what: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if all(process.running() for process in self._processes) and ready():
                return
            time.sleep(0.2)
        logs = "\n".join(process.tail(10) for process in self._processes)
        raise AssertionError(f"{what} of the standalone cluster did not come up in {timeout_s:.0f} s:\n{logs}")

    def alive_workers(self) -> int | None:
        """Workers the master lists as ALIVE (its JSON page); None while it is not answering."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self._ui_port}/json/", timeout=2) as response:
                state = json.load(response)
        except OSError:
            return None
        return sum(1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE")


def spark_submit(arguments: Sequence[str], log: Path, timeout_s: float) -> tuple[int, str]:
    """Run PySpark's own ``spark-submit`` with ``arguments``; (exit code, its output)."""
    process = GroupProcess([str(SPARK_SUBMIT), *arguments], log, env={"SPARK_HOME": str(SPARK_HOME)})
    code = process.wait(timeout_s)
    return code, log.read_text(errors="replace")


def event_log_settings(directory: Path) -> list[str]:
    """spark-submit arguments that write the application's event log to ``directory`` as one plain JSON-lines
    file (Spark 4's default is a rolling, zstd-compressed one)."""
    settings = {"spark.eventLog.enabled": "true", "spark.eventLog.dir": directory.as_uri(),
                "spark.eventLog.rolling.enabled": "false", "spark.eventLog.compress": "false"}
    return [argument for key, value in settings.items() for argument in ("--conf", f"{key}={value}")]


def task_workers(event_log_dir: Path) -> dict[str, int]:
    """Executor id → the web UI port of the worker that launched it, for every executor a task of the
    application (its event log in ``event_log_dir``) ran on: an executor's log URLs are its worker's pages."""
    workers: dict[str, int] = {}
    ran: set[str] = set()
    for event in _events(event_log_dir):
        if event.get("Event") == "SparkListenerExecutorAdded":
            info = event["Executor Info"]
            workers[str(event["Executor ID"])] = int(urllib.parse.urlsplit(info["Log Urls"]["stdout"]).port)
        elif event.get("Event") == "SparkListenerTaskEnd":
            ran.add(str(event["Task Info"]["Executor ID"]))
    return {executor: workers[executor] for executor in ran}


def spark_properties(event_log_dir: Path) -> dict[str, str]:
    """The Spark properties the application ran with (its event log's environment event)."""
    for event in _events(event_log_dir):
        if event.get("Event") == "SparkListenerEnvironmentUpdate":
            return dict(event["Spark Properties"])
    raise AssertionError(f"no environment event in the event log under {event_log_dir}")


def _events(event_log_dir: Path) -> Iterator[dict[str, Any]]:
    logs = [path for path in event_log_dir.iterdir() if path.is_file()]
    assert len(logs) == 1, f"expected one application's event log in {event_log_dir}, found {logs}"
    with logs[0].open() as lines:
        for line in lines:
            yield json.loads(line)


def python_settings() -> list[str]:
    """spark-submit arguments that run the driver and the executors' Python workers on this interpreter."""
    return ["--conf", f"spark.pyspark.python={sys.executable}", "--conf", f"spark.pyspark.driver.python={sys.executable}"]

