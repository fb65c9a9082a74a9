"""Apache Kafka itself for the tests: one KRaft node (broker and controller) from the jars
``make install`` fetched into ``.tools/maven/kafka`` (tools/kafka/pom.xml pins the version).

It listens on 127.0.0.1 only, on free ports:

* ``PLAINTEXT``: the tests' own listener (principal ``User:ANONYMOUS``, a super user);
* ``SASL_PLAINTEXT`` with SCRAM-SHA-512: ``admin`` is a super user; the tests add users with
  :meth:`ApacheKafka.add_scram_user` and grant them ACLs through the admin client
  (``StandardAuthorizer``), so a missing ACL is a real authorization error;
* ``CONTROLLER``: the KRaft quorum of this one node.

Topics are created on first use with 4 partitions, as the librdkafka mock does, so tests run on
either. The internal topics have one partition each: the group and transaction coordinators load
in a moment, not the seconds 50 partitions take. Transactions, fencing, read_committed isolation,
compaction and authentication are Kafka's own.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    NewTopic,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from lakesink.adapters.demo.s3 import free_port
from lakesink.adapters.kafka.embedded_broker import BrokerHandle
from tests.support.jvm_process import dies_with_pytest, keep_log, stop_gracefully

REPO = Path(__file__).resolve().parents[2]
JARS = REPO / ".tools" / "maven" / "kafka"
ADMIN_USER = "admin"
ADMIN_PASSWORD = "admin-secret"

#: Log4j 2 settings sending a Kafka JVM's log to one file ({log}): the broker's, a Connect worker's.
LOG4J2_TO_FILE = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.state.name = state.change.logger
logger.state.level = WARN
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = INFO
"""


def kafka_missing_reason() -> str | None:
    """Why the real broker cannot start here (one line naming what to install), or None."""
    if not (JARS / "VERSION").is_file():
        return (
            f"Apache Kafka's jars are not in {JARS.relative_to(REPO)}: run `make install` (needs Java 17 and Maven "
            "3.8+ with access to Maven Central)"
        )
    if shutil.which("java") is None:
        return "no `java` on PATH: Apache Kafka needs Java 17"
    return None


def kafka_version() -> str:
    """The Apache Kafka version the tests run (tools/kafka/pom.xml)."""
    return (JARS / "VERSION").read_text().strip()


class KafkaCluster(BrokerHandle):
    """What the tests do with a Kafka cluster besides producing: its SASL listener, topics, SCRAM users,
    an admin client. :class:`ApacheKafka` starts one here; :class:`ExternalKafka` is the developer's."""

    restartable = False
    """Whether :meth:`stop_broker` and :meth:`start_broker` work (the broker-outage test)."""

    @property
    def sasl_bootstrap_servers(self) -> str:
        raise NotImplementedError

    def stop_broker(self) -> None:
        raise NotImplementedError

    def start_broker(self) -> None:
        raise NotImplementedError

    def sasl_client(self, user: str, password: str) -> dict[str, str]:
        """librdkafka settings that log ``user`` in on the SASL listener."""
        return {
            "bootstrap.servers": self.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": user,
            "sasl.password": password,
        }

    def admin(self) -> AdminClient:
        """An admin client on the plaintext listener (a super user)."""
        return AdminClient({"bootstrap.servers": self.bootstrap_servers})

    def create_topic(self, name: str, partitions: int, **config: str) -> None:
        """Create ``name`` with ``partitions`` partitions and topic ``config`` (``cleanup.policy``...)."""
        admin = self.admin()
        topic = NewTopic(name, num_partitions=partitions, replication_factor=-1, config=config)  # the default
        for future in admin.create_topics([topic]).values():
            future.result(30)

    def group_offsets(self, group: str) -> dict[tuple[str, int], int]:
        """The committed offsets of ``group`` from the admin API (what kafka-consumer-groups shows)."""
        admin = self.admin()
        listed = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
        return {(tp.topic, tp.partition): tp.offset for tp in listed[group].result(30).topic_partitions if tp.offset >= 0}

    def add_scram_user(self, user: str, password: str) -> None:
        """Create (or change the password of) a SCRAM-SHA-512 user; no ACL is granted."""
        upsert = UserScramCredentialUpsertion(
            user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password.encode()
        )
        admin = self.admin()  # kept until the futures resolve: a destroyed client fails them
        for future in admin.alter_user_scram_credentials([upsert]).values():
            future.result(30)


class ApacheKafka(KafkaCluster):
    """A single-node Apache Kafka in KRaft mode on 127.0.0.1; use as a context manager.

    :meth:`stop_broker` and :meth:`start_broker` restart it on the same ports with the same data (the
    broker-outage test, as with tests/support/mock_cluster.py); :meth:`close` stops it and removes its
    directory, keeping its log when asked to.
    """

    restartable = True

    def __init__(self, workdir: Path | None = None) -> None:
        self._dir = Path(workdir or tempfile.mkdtemp(prefix="lakesink-kafka-"))
        self._ports = {"PLAINTEXT": free_port(), "SASL_PLAINTEXT": free_port(), "CONTROLLER": free_port()}
        self._process: subprocess.Popen[bytes] | None = None
        self._formatted = False

    def __enter__(self) -> ApacheKafka:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    @property
    def bootstrap_servers(self) -> str:
        """The plaintext listener, ``127.0.0.1:PORT`` (its clients are super users)."""
        return f"127.0.0.1:{self._ports['PLAINTEXT']}"

    @property
    def sasl_bootstrap_servers(self) -> str:
        """The SASL_PLAINTEXT (SCRAM-SHA-512) listener, ``127.0.0.1:PORT``."""
        return f"127.0.0.1:{self._ports['SASL_PLAINTEXT']}"

    @property
    def log_path(self) -> Path:
        return self._dir / "broker.log"

    def start(self, timeout_s: float = 60.0) -> None:
        """Format the log directory (the first time), start the JVM and wait until it serves requests."""
        if self._process is not None:
            return
        properties = self._dir / "server.properties"
        if not self._formatted:
            self._dir.mkdir(parents=True, exist_ok=True)
            properties.write_text(self._server_properties())
            (self._dir / "log4j2.properties").write_text(LOG4J2_TO_FILE.format(log=self.log_path))
            cluster_id = _cluster_id()
            self._java(
                "kafka.tools.StorageTool", "format", "--cluster-id", cluster_id, "--config", str(properties),
                "--add-scram", f"SCRAM-SHA-512=[name={ADMIN_USER},password={ADMIN_PASSWORD}]", "--ignore-formatted",
                check=True,
            )
            self._formatted = True
        with open(self._dir / "broker.out", "ab") as out:
            self._process = subprocess.Popen(
                self._java_command("kafka.Kafka", str(properties)), stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=dies_with_pytest(),
            )
        self._wait_until_serving(timeout_s)

    def start_broker(self) -> None:
        """Start the stopped broker again, with every record it held."""
        self.start()

    def stop_broker(self) -> None:
        """Stop the broker as an operator does (SIGTERM, a controlled shutdown); its data stays."""
        if self._process is None:
            return
        stop_gracefully(self._process)
        self._process = None
        self._close_producer()

    def close(self, keep_log_in: Path | None = None) -> None:
        """Stop and remove the broker's directory; with ``keep_log_in``, copy its log there first."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(10)
            self._process = None
        self._close_producer()
        keep_log(self.log_path, keep_log_in)
        shutil.rmtree(self._dir, ignore_errors=True)

    def _server_properties(self) -> str:
        ports = self._ports
        data = self._dir / "data"
        settings = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@127.0.0.1:{ports['CONTROLLER']}",
            "listeners": ",".join(f"{name}://127.0.0.1:{port}" for name, port in ports.items()),
            "advertised.listeners": (
                f"PLAINTEXT://127.0.0.1:{ports['PLAINTEXT']},SASL_PLAINTEXT://127.0.0.1:{ports['SASL_PLAINTEXT']}"
            ),
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "log.dirs": str(data),
            "sasl.enabled.mechanisms": "SCRAM-SHA-512",
            "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": (
                "org.apache.kafka.common.security.scram.ScramLoginModule required;"
            ),
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": f"User:ANONYMOUS;User:{ADMIN_USER}",
            "allow.everyone.if.no.acl.found": "false",
            "num.partitions": "4",
            "auto.create.topics.enable": "true",
            "default.replication.factor": "1",
            "min.insync.replicas": "1",
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "transaction.state.log.num.partitions": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "num.network.threads": "2",
            "num.io.threads": "4",
            "log.cleaner.backoff.ms": "500",
            "log.cleaner.threads": "1",
            "log.cleaner.dedupe.buffer.size": str(8 * 1024 * 1024),
            # tests produce records stamped in the past (2023-2026): time-based retention (7 days by
            # default) would delete them within one check interval
            "log.retention.ms": "-1",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "2000",
        }
        return "".join(f"{key}={value}\n" for key, value in settings.items())

    def _java_command(self, main: str, *args: str) -> list[str]:
        return [
            "java", "-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self._dir / 'log4j2.properties'}", "-Dkafka.logs.dir=" + str(self._dir),
            "-cp", f"{JARS}/*", main, *args,
        ]

    def _java(self, main: str, *args: str, check: bool) -> None:
        result = subprocess.run(self._java_command(main, *args), capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise RuntimeError(f"{main} {args[0]} failed ({result.returncode}): {result.stdout}{result.stderr}")

    def _wait_until_serving(self, timeout_s: float) -> None:
        """Until the plaintext listener answers a metadata request naming this broker."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process is not None and self._process.poll() is not None:
                output = (self._dir / "broker.out").read_text(errors="replace")[-4000:]
                raise RuntimeError(f"Apache Kafka exited with {self._process.returncode}: {output}")
            try:
                socket.create_connection(("127.0.0.1", self._ports["PLAINTEXT"]), timeout=0.5).close()
                brokers = self.admin().list_topics(timeout=5).brokers
                if brokers:
                    return
            except (OSError, KafkaException):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Apache Kafka did not serve within {timeout_s:.0f} s; see {self.log_path}")
            time.sleep(0.2)



class ExternalKafka(KafkaCluster):
    """The cluster named by ``LAKESINK_TEST_BOOTSTRAP_SERVERS``: the suite runs against it instead of
    starting Apache Kafka here (docs/operations.md). That listener must let the tests' clients do
    anything without credentials and create topics on first use with 4 partitions;
    ``LAKESINK_TEST_SASL_BOOTSTRAP_SERVERS`` names its SCRAM-SHA-512 listener with ACLs, if it has one.
    A test that restarts the broker skips (:attr:`restartable` is false)."""

    def __init__(self, bootstrap: str, sasl_bootstrap: str | None) -> None:
        self._bootstrap = bootstrap
        self._sasl_bootstrap = sasl_bootstrap

    @property
    def bootstrap_servers(self) -> str:
        return self._bootstrap

    @property
    def sasl_bootstrap_servers(self) -> str:
        if self._sasl_bootstrap is None:
            pytest.skip("LAKESINK_TEST_SASL_BOOTSTRAP_SERVERS names no SCRAM-SHA-512 listener of the external cluster")
        return self._sasl_bootstrap

    def close(self) -> None:
        self._close_producer()


def external_cluster() -> ExternalKafka | None:
    """The developer's cluster when ``LAKESINK_TEST_BOOTSTRAP_SERVERS`` is set, else None."""
    bootstrap = os.environ.get("LAKESINK_TEST_BOOTSTRAP_SERVERS", "").strip()
    if not bootstrap:
        return None
    return ExternalKafka(bootstrap, os.environ.get("LAKESINK_TEST_SASL_BOOTSTRAP_SERVERS", "").strip() or None)


def _cluster_id() -> str:
    """A random KRaft cluster id that does not start with '-' (the storage tool would read it as an
    option and fail 1 start in 64), as Kafka's own ``Uuid.randomUuid`` makes them."""
    cluster_id = "-"
    while cluster_id.startswith("-"):
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    return cluster_id
