"""``lakesink sink`` (or a Spark job using lakesink) as a child process in its own process group, for
crash and cluster tests.

A crash test must kill the driver *and* everything it started (the Spark JVM, the Python
workers) at once, as a machine failure would; a process group makes ``kill -9`` of the whole
tree one call. Output goes to a log file per run so a failure can show what the sink was doing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

SINK_ENV = {
    "SPARK_LOCAL_IP": "127.0.0.1",  # every Spark endpoint on loopback
    "LAKESINK_LOG_LEVEL": "INFO",  # batch commits show in the log
    "PYTHONUNBUFFERED": "1",
}


class GroupProcess:
    """A command in its own process group; ``log`` holds its stdout and stderr."""

    def __init__(self, command: Sequence[str], log: Path, env: Mapping[str, str] | None = None) -> None:
        self.log = log
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(list(command), stdout=self._log_file, stderr=subprocess.STDOUT,
                                        env={**os.environ, **SINK_ENV, **(env or {})}, start_new_session=True)

    def running(self) -> bool:
        return self.process.poll() is None

    def wait_for(self, condition: Callable[[], bool], timeout_s: float) -> bool:
        """Poll ``condition`` until true; False on timeout or when the process exited."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.running():
            if condition():
                return True
            time.sleep(0.1)
        return False

    def logged(self, text: str) -> bool:
        """Whether ``text`` is in the log so far."""
        return text in self.log.read_text(errors="replace")

    def kill9(self) -> None:
        """SIGKILL the whole process group and wait until no member is left."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        deadline = time.monotonic() + 15
        while group_members(self.process.pid):
            if time.monotonic() > deadline:
                raise AssertionError(f"process group {self.process.pid} still has members after SIGKILL")
            time.sleep(0.05)
        self._log_file.close()

    def wait(self, timeout_s: float) -> int:
        """Wait for a normal exit; kills the group and raises on timeout."""
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise AssertionError(
                f"lakesink sink did not finish in {timeout_s:.0f} s:\n{self.tail()}"
            ) from None
        self._log_file.close()
        return code

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(line for line in text[-lines:])


class SinkProcess(GroupProcess):
    """One ``lakesink sink`` run."""

    def __init__(self, config: Path, log: Path, *, checkpoint: Path | None = None, once: bool = False,
                 master: str | None = None) -> None:
        command = [sys.executable, "-m", "lakesink.application.cli", "sink", "--config", str(config)]
        if checkpoint is not None:
            command += ["--checkpoint", str(checkpoint)]
        if once:
            command.append("--once")
        if master is not None:
            command += ["--master", master]
        super().__init__(command, log)


def group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every live process in group ``pgid``.

    Zombies are left out: they hold no resources, and where PID 1 does not reap orphans they
    linger after the group was killed.
    """
    members: list[tuple[int, str]] = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid or fields[0] == "Z":
                continue
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue  # the process exited while we looked
        members.append((int(stat.parent.name), command))
    return members
