"""Apache Kafka (the jars ``make install`` puts in .tools/maven/kafka) as the benchmark's broker.

Issue 34 compares lakesink with peers a user runs today, all on one broker; a real Apache Kafka
is what those users run. One KRaft node, plaintext on 127.0.0.1, started with
:meth:`bench.processes.Children.spawn` so its JVM's CPU and RSS are measured as Tansu's are, with
its data in a fresh directory under the run's work directory, left there with the logs (each
streaming step starts its own broker, so its own directory). Settings are a single node's minimum:
replication 1, no time-based retention (the events are stamped in the past).
"""

from __future__ import annotations

import base64
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from bench.processes import Children
from lakesink.adapters.demo.s3 import free_port

JARS = Path(__file__).resolve().parent.parent / ".tools" / "maven" / "kafka"
START_TIMEOUT_S = 90.0


def kafka_missing() -> str | None:
    """Why Apache Kafka cannot start here (naming what to install), or None."""
    if not (JARS / "VERSION").is_file():
        return f"no Apache Kafka jars in {JARS}: run `make install`"
    if shutil.which("java") is None:
        return "no `java` on PATH: Apache Kafka needs Java 17+"
    return None


def _properties(directory: Path, port: int, controller: int) -> str:
    settings = {
        "process.roles": "broker,controller", "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
        "log.dirs": str(directory / "data"), "log.retention.ms": "-1", "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": "1", "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1", "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1", "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
    }
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def _java(directory: Path, main: str, *args: str) -> list[str]:
    return ["java", "-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true",
            f"-Dkafka.logs.dir={directory}", "-cp", f"{JARS}/*", main, *args]


def start_apache_kafka(children: Children) -> tuple[str, subprocess.Popen[bytes]]:
    """Format a fresh log directory, start the broker and wait until it answers metadata requests;
    returns its bootstrap address and process. RuntimeError (naming the log) when it does not come up."""
    missing = kafka_missing()
    if missing:
        raise RuntimeError(missing)
    directory = Path(tempfile.mkdtemp(prefix="kafka-", dir=children.log_dir))  # a fresh one per start
    port, controller = free_port(), free_port()
    properties = directory / "server.properties"
    properties.write_text(_properties(directory, port, controller))
    cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    formatted = subprocess.run(_java(directory, "kafka.tools.StorageTool", "format", f"--cluster-id={cluster_id}",
                                     "--config", str(properties)), capture_output=True, text=True, timeout=120)
    if formatted.returncode != 0:
        raise RuntimeError(f"kafka-storage format failed ({formatted.returncode}): {formatted.stderr[-2000:]}")
    process = children.spawn("kafka", _java(directory, "kafka.Kafka", str(properties)))
    bootstrap = f"127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Apache Kafka exited with {process.returncode}; see {children.log_dir}/kafka.log")
        try:  # the port first: a client against a closed port logs every refused connection
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            if AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=5).brokers:
                return bootstrap, process
        except (OSError, KafkaException):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"Apache Kafka did not serve within {START_TIMEOUT_S:.0f} s; see {children.log_dir}/kafka.log")
