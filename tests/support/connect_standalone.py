"""A real Kafka Connect worker for the tests: ``ConnectStandalone`` of the Apache Kafka jars
``make install`` fetched (tests/support/kafka_broker.py), with a ``plugin.path`` of its own.

It is there to run the peers' connectors as users run them, so lakesink can be compared with the
real thing (issue 34). Its plugin path holds ``RecordsToFileSink`` (tests/support/connect_plugins/),
compiled against the worker's connect-api at start: the sink that proves the worker end to end. One worker serves a whole test session: connectors are added and removed through its
REST API (:meth:`ConnectWorker.add_connector`), each under its own name, because a Connect JVM costs
seconds to start and many connectors run in one. Further plugins (:class:`Plugin`: a .java file and the jars
it needs, e.g. the benchmark's Aiven peer, bench/aiven_runs.py) are compiled and installed the same way.
Its REST listener is on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakesink.adapters.demo.s3 import free_port
from tests.support.jvm_process import dies_with_pytest, keep_log, stop_gracefully
from tests.support.kafka_broker import JARS, LOG4J2_TO_FILE, kafka_missing_reason

TEST_SINK_SOURCE = Path(__file__).with_name("connect_plugins") / "RecordsToFileSink.java"
#: The class of :data:`TEST_SINK_SOURCE`'s connector in the worker.
TEST_SINK = "RecordsToFileSink"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"


@dataclass(frozen=True, slots=True)
class Plugin:
    """A connector plugin built at the worker's start: ``source`` (a .java file in the default package
    declaring ``connector``, a SinkConnector) and the classes of ``with_sources`` it uses, compiled against
    the worker's jars and ``jars`` (directories of jars), which are installed beside it in its own plugin
    directory, as a connector ships its libraries. Without ``source`` the plugin is a published connector:
    ``connector`` (its full class name) is in ``jars``, whose manifest names it, and nothing is compiled."""

    name: str
    source: Path | None
    connector: str
    jars: tuple[Path, ...] = ()
    with_sources: tuple[Path, ...] = ()


TEST_PLUGIN = Plugin("records-to-file", TEST_SINK_SOURCE, TEST_SINK)


def connect_missing_reason() -> str | None:
    """Why a Connect worker cannot start here (one line naming what to install), or None."""
    reason = kafka_missing_reason()
    if reason is None and (shutil.which("javac") is None or shutil.which("jar") is None):
        reason = "no `javac`/`jar` on PATH: the Connect worker's test plugin is compiled with a Java 17 JDK"
    return reason


class ConnectError(RuntimeError):
    """The worker refused a request, or a connector or one of its tasks failed (Connect's trace inside)."""


def install_plugin(plugin: Plugin, plugin_path: Path) -> None:
    """Compile ``plugin`` (when it has a source) against the worker's jars (and its own) into a plugin jar in
    a directory of its own under ``plugin_path``, its jars linked beside it (plugin isolation then loads it as Connect loads
    any connector), with the ServiceLoader manifest ``plugin.discovery=service_load`` looks for."""
    directory = plugin_path / plugin.name
    directory.mkdir(parents=True)
    if plugin.source is not None:
        _compile(plugin, directory)
    for jars in plugin.jars:
        for jar in jars.glob("*.jar"):
            if not (directory / jar.name).exists():  # the same jar from two directories: one link
                (directory / jar.name).symlink_to(jar)


def _compile(plugin: Plugin, directory: Path) -> None:
    assert plugin.source is not None
    classpath = ":".join(f"{jars}/*" for jars in (JARS, *plugin.jars))
    with tempfile.TemporaryDirectory(prefix="lakesink-plugin-") as built:
        services = Path(built) / "META-INF" / "services"
        services.mkdir(parents=True)
        (services / "org.apache.kafka.connect.sink.SinkConnector").write_text(plugin.connector + "\n")
        for command in (
            ["javac", "-nowarn", "-d", built, "-cp", classpath, str(plugin.source), *map(str, plugin.with_sources)],
            ["jar", "cf", str(directory / f"{plugin.name}.jar"), "-C", built, "."],
        ):
            subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)


class ConnectWorker:
    """One standalone Connect worker on 127.0.0.1; use as a context manager.

    ``offset_flush_interval_ms`` is the worker's ``offset.flush.interval.ms``: a sink connector commits
    (and most peers, Aiven's among them, write their files) on that beat, so tests keep it short.
    ``plugins`` are installed beside the test sink; ``heap`` is the JVM's -Xmx (a sink that holds a whole
    flush interval of records, as Aiven's does, needs more than the tests' few records). ``quick_start``
    keeps the JIT at C1, which starts a test's JVM sooner and runs a long one slower: the benchmark turns
    it off, as a deployed worker runs. ``plugin_path`` is a plugin path built beforehand with
    :func:`install_plugin` (the benchmark does, so compiling is not measured as the worker's); without
    it the worker builds its own of the test sink and ``plugins`` at start. ``own_session=False`` keeps
    the JVM in its caller's process group, so a kill of that group (a crash test's) takes it too.
    """

    def __init__(self, bootstrap_servers: str, *, offset_flush_interval_ms: int = 1000,
                 plugins: Sequence[Plugin] = (), heap: str = "512m", quick_start: bool = True,
                 plugin_path: Path | None = None, own_session: bool = True) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="lakesink-connect-"))
        self._port = free_port()
        self._bootstrap = bootstrap_servers
        self._flush_ms = offset_flush_interval_ms
        self._plugins = (TEST_PLUGIN, *plugins)
        self._plugin_path = plugin_path
        self._own_session = own_session
        self._heap = heap
        self._jit = ["-XX:TieredStopAtLevel=1"] if quick_start else []
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ConnectWorker:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The REST API's base URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def log_path(self) -> Path:
        return self._dir / "connect.log"

    @property
    def exit_code(self) -> int | None:
        """The worker JVM's exit code once it has exited (None while it runs or before it started)."""
        return None if self._process is None else self._process.poll()

    def start(self, timeout_s: float = 90.0) -> None:
        """Start the worker JVM and wait until its REST API answers (it has loaded its plugins then)."""
        if self._plugin_path is None:
            self._plugin_path = self._dir / "plugins"
            for plugin in self._plugins:
                install_plugin(plugin, self._plugin_path)
        worker = self._dir / "worker.properties"
        worker.write_text(self._worker_properties())
        (self._dir / "log4j2.properties").write_text(LOG4J2_TO_FILE.format(log=self.log_path))
        command = [
            "java", "-Xms128m", f"-Xmx{self._heap}", "-XX:+UseG1GC", *self._jit, "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self._dir / 'log4j2.properties'}",
            "-cp", f"{JARS}/*", "org.apache.kafka.connect.cli.ConnectStandalone", str(worker),
        ]
        with open(self._dir / "connect.out", "ab") as out:
            self._process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                             start_new_session=self._own_session, preexec_fn=dies_with_pytest())
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                output = (self._dir / "connect.out").read_text(errors="replace")[-4000:]
                raise ConnectError(f"Kafka Connect exited with {self._process.returncode}: {output}")
            try:
                self._request("GET", "/connector-plugins")
                return
            except (OSError, ConnectError):
                pass
            if time.monotonic() > deadline:
                raise ConnectError(f"Kafka Connect did not serve within {timeout_s:.0f} s; see {self.log_path}")
            time.sleep(0.2)

    def add_connector(self, name: str, config: dict[str, str], timeout_s: float = 60.0) -> None:
        """Create connector ``name`` with ``config`` and wait until it and every task of it run.

        Raises:
            ConnectError: the worker rejected the config, or the connector or a task FAILED (with
                Connect's trace), or they did not run within ``timeout_s``.
        """
        self._request("PUT", f"/connectors/{name}/config", {**config, "name": name})
        deadline = time.monotonic() + timeout_s
        while True:
            status = self.status(name)
            states = [status["connector"], *status.get("tasks", [])]
            failed = [state for state in states if state["state"] == "FAILED"]
            if failed:
                raise ConnectError(f"connector {name} failed: {failed[0].get('trace', '')[:2000]}")
            if status.get("tasks") and all(state["state"] == "RUNNING" for state in states):
                return
            if time.monotonic() > deadline:
                raise ConnectError(f"connector {name} not RUNNING within {timeout_s:.0f} s: {status}")
            time.sleep(0.1)

    def status(self, name: str) -> dict[str, Any]:
        """``GET /connectors/<name>/status``: the connector's and its tasks' states."""
        return self._request("GET", f"/connectors/{name}/status")

    def delete_connector(self, name: str) -> None:
        """Stop and remove connector ``name`` (its tasks commit their offsets as they stop)."""
        self._request("DELETE", f"/connectors/{name}")

    def run_until_stopped(self, poll_s: float = 0.25) -> int:
        """Wait while the worker runs (a continuous peer, stopped by a SIGTERM to its launcher, whose handler
        then closes it); the JVM's exit code once it exited by itself."""
        while self.exit_code is None:
            time.sleep(poll_s)
        return self.exit_code

    def kill(self) -> None:
        """SIGKILL the worker JVM, as a crash test does (nothing of it runs on; :meth:`close` still removes its
        directory)."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(30)

    def close(self, keep_log_in: Path | None = None) -> None:
        """Stop the worker (SIGTERM: connectors stop cleanly) and remove its directory; with
        ``keep_log_in``, copy its log there first."""
        if self._process is not None:
            stop_gracefully(self._process)
            self._process = None
        keep_log(self.log_path, keep_log_in)
        shutil.rmtree(self._dir, ignore_errors=True)

    def _worker_properties(self) -> str:
        settings = {
            "bootstrap.servers": self._bootstrap,
            "plugin.path": str(self._plugin_path),
            # ServiceLoader manifests only, no reflective scan of every jar: seconds off each start
            "plugin.discovery": "service_load",
            "offset.storage.file.filename": str(self._dir / "connect.offsets"),
            "offset.flush.interval.ms": str(self._flush_ms),
            "key.converter": BYTES,
            "value.converter": BYTES,
            "listeners": self.url,
            "rest.advertised.host.name": "127.0.0.1",
            "rest.advertised.port": str(self._port),
            # connectors' own consumers start at the topic's beginning, as a new sink does
            "consumer.auto.offset.reset": "earliest",
        }
        return "".join(f"{key}={value}\n" for key, value in settings.items())

    def _request(self, method: str, path: str, body: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
        except urllib.error.HTTPError as error:
            raise ConnectError(f"{method} {path}: HTTP {error.code}: {error.read()[:2000].decode(errors='replace')}") from None
        return json.loads(text) if text else None
