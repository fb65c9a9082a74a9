"""Child processes of the harness: started in their own process group, always killed.

Every server and every measured run is a child process so its memory can be measured on its
own and so nothing outlives the harness: :class:`Children` kills each child's whole process
tree (Spark starts a JVM which starts Python workers) on close, on failure, on Ctrl-C and when
the global timeout fires. On Linux a child also dies with the harness if the harness is killed.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

try:
    import psutil
except ImportError:  # the bench extra installs it; without it peak RSS is not measured
    psutil = None

SAMPLE_INTERVAL_S = 0.2
TIMELINE_EVERY = 5
"""Every 5th sample (about once a second) goes into :attr:`Measured.timeline`."""
_PR_SET_PDEATHSIG = 1
try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL("libc.so.6", use_errno=True)
    """Loaded in the parent: between fork and exec the child only calls into it."""
except OSError:  # not glibc Linux: children are not tied to their parent
    _LIBC = None


def die_with_parent() -> None:
    """preexec_fn: ask Linux to SIGKILL the child when the process that started it dies (best effort;
    the harness here, and the test servers of tests/support, which a killed pytest used to leak)."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class BenchTimeout(Exception):
    """The global ``--timeout`` expired; raised in the main thread by SIGALRM."""


def install_global_timeout(seconds: int) -> None:
    """Raise :class:`BenchTimeout` after ``seconds``; SIGTERM (and SIGINT, even when a shell
    started the harness with it ignored) become KeyboardInterrupt, so both clean up like Ctrl-C."""

    def on_alarm(signum: int, frame: object) -> None:
        raise BenchTimeout(f"global timeout of {seconds} s expired")

    def on_stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    signal.alarm(seconds)


def _members(pid: int) -> list[psutil.Process]:
    """``pid`` and all its descendants (empty when it is gone or psutil is missing)."""
    if psutil is None:
        return []
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants right now (0 if it is gone)."""
    total = 0
    for member in _members(pid):
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total


DRIVER, JVM, WORKERS, OTHER, PSS = "driver", "jvm", "python_workers", "other", "pss"


def tree_breakdown(pid: int, *, pss: bool = False) -> dict[str, int]:
    """Resident bytes of ``pid``'s tree split by role, to see where a Spark run's memory goes.

    The root is the driver (Python); a ``java`` process is Spark's JVM (in local mode it is the
    driver JVM and the executor); every other Python below is a PySpark worker or the daemon
    that forks them. ``python_worker_count`` and ``largest_python_worker`` show whether many
    small workers or one large one make the sum.

    RSS counts a shared page in every process that maps it: pyarrow's and librdkafka's
    libraries, and what forked workers share with their daemon, are counted a dozen times in a
    Spark tree. ``pss=True`` adds ``pss``, the tree's proportional set size (each shared page
    split between its sharers, so the sum is the memory the tree really occupies); it reads
    ``/proc/<pid>/smaps_rollup``, which costs more than RSS, so callers ask for it now and then.
    """
    parts = {DRIVER: 0, JVM: 0, WORKERS: 0, OTHER: 0, "python_worker_count": 0, "largest_python_worker": 0}
    if pss:
        parts[PSS] = 0
    for member in _members(pid):
        try:
            rss, role = member.memory_info().rss, _role(member, pid)
            if pss:
                parts[PSS] += member.memory_full_info().pss
        except psutil.Error:
            continue
        parts[role] += rss
        if role == WORKERS:
            parts["python_worker_count"] += 1
            parts["largest_python_worker"] = max(parts["largest_python_worker"], rss)
    return parts


def _role(member: psutil.Process, root: int) -> str:
    """The root is the driver; ``java`` is Spark's JVM; any other Python is a PySpark worker or daemon."""
    name = member.name()
    return DRIVER if member.pid == root else JVM if name == "java" else WORKERS if "python" in name else OTHER


class CpuByRole:
    """CPU seconds (user + system) a process tree used, split by :func:`_role`.

    Each sample records every member's CPU time so far; a member that exits keeps its last
    sample, so a short-lived process loses at most one sampling interval. Seconds of CPU next to
    the wall time show where a run's two cores went (the JVM, the Python workers, or, measured
    with :func:`cpu_seconds` around the run, the broker and the S3 server).
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self._seen: dict[int, tuple[str, float]] = {}

    def sample(self) -> None:
        for member in _members(self.root):
            try:
                times = member.cpu_times()
                self._seen[member.pid] = (_role(member, self.root), times.user + times.system)
            except psutil.Error:
                continue

    def totals(self) -> dict[str, float]:
        totals = {DRIVER: 0.0, JVM: 0.0, WORKERS: 0.0, OTHER: 0.0}
        for role, seconds in self._seen.values():
            totals[role] += seconds
        return {role: round(seconds, 2) for role, seconds in totals.items()}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by ``pid`` and its descendants still alive (0 if gone)."""
    total = 0.0
    for member in _members(pid):
        try:
            times = member.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


def kill_tree(process: subprocess.Popen[bytes], grace_s: float = 5.0) -> None:
    """SIGTERM the child's process group and every descendant, SIGKILL what is left after ``grace_s``."""
    descendants = []
    if psutil is not None:
        try:
            descendants = psutil.Process(process.pid).children(recursive=True)
        except psutil.Error:
            descendants = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for child in descendants:
            try:
                child.send_signal(sig)
            except psutil.Error:
                pass
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            continue
        if psutil is None:
            return
        _, alive = psutil.wait_procs(descendants, timeout=grace_s)  # dying is not dead yet
        if not alive:
            return


@dataclass
class Measured:
    """What one finished child run gave: exit code, wall time, peak RSS and its output."""

    returncode: int
    seconds: float
    peak_rss: int
    stdout: str
    marks: dict[str, float] = field(default_factory=dict)
    """Seconds after start at which a stderr line first contained each watched text."""
    last_marks: dict[str, float] = field(default_factory=dict)
    """Seconds after start at which a stderr line last contained each watched text."""
    peak_breakdown: dict[str, int] = field(default_factory=dict)
    """:func:`tree_breakdown` of the sample with the highest RSS total."""
    peak_pss: int = 0
    """Highest proportional set size of the tree, sampled about once a second."""
    timeline: list[tuple[float, dict[str, int]]] = field(default_factory=list)
    """(seconds after start, :func:`tree_breakdown`) about once a second."""
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    """:class:`CpuByRole` totals of the tree over the run."""


class Children:
    """The harness's children; a context manager that kills them all on exit."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._running: list[subprocess.Popen[bytes]] = []

    def spawn(self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
              pipe_stdout: bool = False, pipe_stderr: bool = False) -> subprocess.Popen[bytes]:
        """Start ``argv`` in a new session; what is not piped goes to ``<log_dir>/<name>.log``."""
        with open(self.log_dir / f"{name}.log", "ab") as log:
            process = subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if pipe_stdout else log,
                stderr=subprocess.PIPE if pipe_stderr else log, env=dict(env or os.environ),
                start_new_session=True, preexec_fn=die_with_parent,
            )
        self._running.append(process)
        return process

    def measure(self, name: str, argv: Sequence[str], *, timeout_s: float, env: Mapping[str, str] | None = None,
                watch: Sequence[str] = ()) -> Measured:
        """Run ``argv`` to its end, sampling its tree's RSS every 0.2 s; kills it after ``timeout_s``.

        ``watch`` texts are looked for in stderr lines (copied to the log) and their first and last
        arrival times returned, e.g. when the sink logs that Spark is up and reading starts.
        """
        started = time.perf_counter()
        process = self.spawn(name, argv, env=env, pipe_stdout=True, pipe_stderr=True)
        peak = [0, 0]  # RSS, PSS
        peak_breakdown: dict[str, int] = {}
        timeline: list[tuple[float, dict[str, int]]] = []
        marks: dict[str, float] = {}
        last_marks: dict[str, float] = {}
        stdout_chunks: list[bytes] = []
        cpu = CpuByRole(process.pid)

        def sample() -> None:
            samples = 0
            while process.poll() is None:
                cpu.sample()
                slow = samples % TIMELINE_EVERY == 0
                parts = tree_breakdown(process.pid, pss=slow)
                total = parts[DRIVER] + parts[JVM] + parts[WORKERS] + parts[OTHER]
                if total > peak[0]:
                    peak[0] = total
                    peak_breakdown.clear()
                    peak_breakdown.update(parts)
                if slow:
                    peak[1] = max(peak[1], parts[PSS])
                    timeline.append((round(time.perf_counter() - started, 1), parts))
                samples += 1
                time.sleep(SAMPLE_INTERVAL_S)

        def pump_stderr() -> None:
            with open(self.log_dir / f"{name}.log", "ab") as log:
                for line in process.stderr:  # type: ignore[union-attr]
                    log.write(line)
                    text = line.decode(errors="replace")
                    for needle in watch:
                        if needle in text:
                            last_marks[needle] = time.perf_counter() - started
                            marks.setdefault(needle, last_marks[needle])

        def pump_stdout() -> None:
            stdout_chunks.append(process.stdout.read())  # type: ignore[union-attr]

        threads = [threading.Thread(target=t, daemon=True) for t in (sample, pump_stderr, pump_stdout)]
        for thread in threads:
            thread.start()
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            kill_tree(process)
        finally:
            if process.poll() is None:
                kill_tree(process)
        elapsed = time.perf_counter() - started
        for thread in threads:
            thread.join(timeout=5)
        self._running.remove(process)
        return Measured(process.returncode, elapsed, peak[0], b"".join(stdout_chunks).decode(errors="replace"), marks,
                        last_marks, dict(peak_breakdown), peak[1], timeline, cpu.totals())

    def stop(self, process: subprocess.Popen[bytes]) -> None:
        """Kill one child's tree now (a continuous sink, a step's services) and forget it."""
        kill_tree(process)
        if process in self._running:
            self._running.remove(process)

    def close(self) -> None:
        """Kill every child still running, newest first."""
        while self._running:
            kill_tree(self._running.pop())

    def __enter__(self) -> Children:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
