"""SASL/SCRAM and ACLs on Apache Kafka itself: the sink, the restore, verify and the dead-letter queue
as a SCRAM user holding exactly the ACLs docs/operations.md lists ("Kafka ACLs"), and each missing
ACL or a wrong password as one ``lakesink: error:`` line naming what to grant or fix (exit 2, no
password anywhere, no traceback).

Each test logs in as a user of its own, configured the Kafka Connect way (``sasl.jaas.config`` with
``ScramLoginModule``), and grants it ACLs through the broker's super-user admin client.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from lakesink.adapters.kafka.advisory_group import AdvisoryGroup
from lakesink.adapters.kafka.embedded_broker import ProducedRecord
from tests.conftest import unique_name
from tests.integration.restore.conftest import local_restore_props, read_topic
from tests.integration.sink.conftest import local_props
from tests.support.kafka_broker import ApacheKafka

pytestmark = [pytest.mark.integration]

RECORDS = 6
POISON = b"{not json"


@dataclass(frozen=True)
class Alice:
    """One SCRAM user of one test: ``grant`` adds an ACL and waits until the broker enforces it."""

    kafka: ApacheKafka
    name: str
    password: str

    def client(self, password: str | None = None) -> dict[str, str]:
        """Kafka Connect style client settings logging this user in on the SASL listener."""
        secret = self.password if password is None else password
        return {
            "bootstrap.servers": self.kafka.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": (
                f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{self.name}" '
                f'password="{secret}";'
            ),
        }

    def grant(self, operation: str, resource: str, name: str, *, prefixed: bool = False) -> None:
        pattern = ResourcePatternType.PREFIXED if prefixed else ResourcePatternType.LITERAL
        binding = AclBinding(
            ResourceType[resource], name, pattern, f"User:{self.name}", "*", AclOperation[operation],
            AclPermissionType.ALLOW,
        )
        admin = self.kafka.admin()
        for future in admin.create_acls([binding]).values():
            future.result(30)
        wanted = AclBindingFilter(
            ResourceType[resource], name, pattern, f"User:{self.name}", None, AclOperation[operation],
            AclPermissionType.ALLOW,
        )
        deadline = time.monotonic() + 10
        while not admin.describe_acls(wanted).result(10):  # the broker answers from its authorizer
            assert time.monotonic() < deadline, f"ACL {binding} not visible on the broker"
            time.sleep(0.05)


@pytest.fixture
def alice(apache_kafka: ApacheKafka) -> Alice:
    user = Alice(apache_kafka, unique_name("alice"), unique_name("secret-pw"))
    apache_kafka.add_scram_user(user.name, user.password)
    return user


@dataclass(frozen=True)
class Sink:
    """A sink of one topic (``RECORDS`` JSON records and one poison record) into a local directory,
    with a dead-letter topic; ``grant_all`` gives its user every ACL the run needs."""

    props: dict[str, str]
    topic: str
    dlq: str
    root: Path

    @property
    def name(self) -> str:
        return self.props["name"]

    def grant_all(self, user: Alice, *, skip: tuple[str, str] = ("", "")) -> None:
        """The ACLs docs/operations.md lists for this sink, but ``skip`` (operation, resource name)."""
        for operation, resource, name in (
            ("READ", "TOPIC", self.topic),
            ("WRITE", "TOPIC", self.dlq),
            ("READ", "GROUP", f"lakesink-dlq-{self.name}"),
            ("WRITE", "TRANSACTIONAL_ID", f"lakesink-dlq-{self.name}"),
        ):
            if (operation, name) != skip:
                user.grant(operation, resource, name)


@pytest.fixture
def sink(alice: Alice, tmp_path: Path) -> Sink:
    topic, dlq = unique_name("orders"), unique_name("dlq")
    records = [ProducedRecord(json.dumps({"id": i}).encode(), key=b"k", partition=i % 2) for i in range(RECORDS)]
    alice.kafka.produce(topic, [*records, ProducedRecord(POISON, key=b"bad", partition=0)])
    create_topic(alice.kafka, dlq)  # so the user needs no CREATE on it
    root = tmp_path / "store"
    (root / "bkt").mkdir(parents=True)
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `PARQUET` PROPERTIES('flush.count'=100)"
    props = local_props(
        root, kcql, topic, alice.kafka,
        **alice.client(),
        **{"connect.local.error.policy": "NOOP", "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq},
    )
    return Sink(props, topic, dlq, root)


def create_topic(kafka: ApacheKafka, topic: str) -> None:
    admin = kafka.admin()
    for future in admin.create_topics([NewTopic(topic, num_partitions=2)]).values():
        future.result(30)


def lakesink(tmp_path: Path, command: str, props: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    """``python -m lakesink.application.cli <command> --config F [flags]`` with ``props`` in F."""
    config = tmp_path / f"{command}-{time.monotonic_ns()}.json"
    config.write_text(json.dumps(props))
    return subprocess.run(
        [sys.executable, "-m", "lakesink.application.cli", command, "--config", str(config), *flags],
        capture_output=True, text=True, timeout=180, check=False,
    )


def assert_one_error_line(done: subprocess.CompletedProcess[str], alice: Alice, *fragments: str) -> str:
    """Exit 2, stderr one ``lakesink: error:`` line holding ``fragments``, the password nowhere."""
    assert alice.password not in done.stdout + done.stderr
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("lakesink: error: ")]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_a_user_with_exactly_the_listed_acls_runs_sink_with_its_dead_letter_queue_verify_and_restore(
    alice: Alice, sink: Sink, tmp_path: Path
) -> None:
    sink.grant_all(alice)

    done = lakesink(tmp_path, "sink", sink.props, "--once")

    assert done.returncode == 0, done.stderr
    assert alice.password not in done.stdout + done.stderr
    # READ on connect-<name> is only for lag tools in exactly-once mode: a warning at start, one when a commit fails
    group = f"group 'connect-{sink.name}'"
    assert len([line for line in done.stderr.splitlines() if group in line and "runs without it" in line]) == 1, done.stderr
    assert len([line for line in done.stderr.splitlines() if group in line and "not committed" in line]) == 1, done.stderr
    written = [row["id"] for path in (sink.root / "bkt" / "out").rglob("*.parquet")
               for row in pq.read_table(path).to_pylist()]
    assert sorted(written) == list(range(RECORDS))
    dlq_values = [message[2] for message in read_topic(alice.kafka.bootstrap_servers, sink.dlq, expected=1)]
    assert dlq_values == [POISON]

    checked = lakesink(tmp_path, "verify", sink.props, "--json")
    report = json.loads(checked.stdout)
    assert report["kafka"] == {"reachable": True, "error": None}, checked.stderr
    assert {part["partition"]: part["topic_end"] for part in report["partitions"]} == {0: 4, 1: 3, 2: 0, 3: 0}
    gaps = [gap for part in report["partitions"] for gap in part["gaps"]]
    assert gaps == [{"first": 3, "last": 3}]  # the poison record, in the dead-letter topic instead

    target, name = unique_name("restored"), unique_name("restore")
    create_topic(alice.kafka, target)
    for operation, resource, resource_name, prefixed in (
        ("WRITE", "TOPIC", target, False),
        ("CREATE", "TOPIC", f"__lakesink_restore_{name}", False),
        ("READ", "TOPIC", f"__lakesink_restore_{name}", False),
        ("WRITE", "TOPIC", f"__lakesink_restore_{name}", False),
        ("WRITE", "TRANSACTIONAL_ID", f"lakesink-restore-{name}-", True),
    ):
        alice.grant(operation, resource, resource_name, prefixed=prefixed)
    restore = local_restore_props(
        sink.root, alice.kafka.sasl_bootstrap_servers,
        f"INSERT INTO {target} SELECT * FROM bkt:out STOREAS `PARQUET`", name, **alice.client(),
    )

    restored = lakesink(tmp_path, "restore", restore, "--once")

    assert restored.returncode == 0, restored.stderr
    values = [json.loads(message[2])["id"]
              for message in read_topic(alice.kafka.bootstrap_servers, target, expected=RECORDS)]
    assert sorted(values) == list(range(RECORDS))


def test_a_wrong_password_is_one_line_naming_the_user_within_seconds(alice: Alice, sink: Sink, tmp_path: Path) -> None:
    wrong = unique_name("wrong-pw")
    started = time.monotonic()

    done = lakesink(tmp_path, "sink", {**sink.props, **alice.client(password=wrong)}, "--once")

    assert_one_error_line(done, alice, "refused the client", f"user '{alice.name}'", "sasl.jaas.config")
    assert wrong not in done.stdout + done.stderr
    assert time.monotonic() - started < 15

    # verify checks the store all the same, and says why the topic was not compared: not "unreachable"
    checked = lakesink(tmp_path, "verify", {**sink.props, **alice.client(password=wrong)})
    assert checked.returncode == 0, checked.stderr
    assert wrong not in checked.stdout + checked.stderr
    (said,) = [line for line in checked.stdout.splitlines() if line.startswith("Topic offsets not compared: ")]
    assert "refused the client" in said and f"user '{alice.name}'" in said, said


def _denied(operation: str, kind: str, name: str, user: Alice, grant: str) -> tuple[str, ...]:
    return (f"Kafka denied {operation} on {kind} '{name}' to User:{user.name}", f"--operation {grant}")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("no topic ACL", lambda s, u: _denied("DESCRIBE", "topic", s.topic, u, "Read")),
        ("DESCRIBE only", lambda s, u: _denied("READ", "topic", s.topic, u, "Read")),
        ("no dead-letter topic WRITE", lambda s, u: _denied("DESCRIBE", "topic", s.dlq, u, "Write")),
        ("no dead-letter group READ", lambda s, u: _denied("DESCRIBE", "group", f"lakesink-dlq-{s.name}", u, "Read")),
        ("no transactional id WRITE", lambda s, u: _denied(
            "WRITE", "transactional id", f"lakesink-dlq-{s.name}", u, "Write")),
        ("no at-least-once group READ", lambda s, u: _denied("DESCRIBE", "group", f"connect-{s.name}", u, "Read")),
        ("no dead-letter topic, no CREATE", lambda s, u: (
            f"Dead-letter queue {s.dlq}: the topic does not exist and the brokers did not create it for User:{u.name}",
            f"--create --topic {s.dlq}", "--operation Create --cluster")),
    ],
)
def test_a_missing_acl_is_one_line_naming_the_acl_to_grant(
    alice: Alice, sink: Sink, tmp_path: Path, case: str, expected: Callable[[Sink, Alice], tuple[str, ...]]
) -> None:
    props = sink.props
    if case == "no topic ACL":
        pass
    elif case == "DESCRIBE only":
        alice.grant("DESCRIBE", "TOPIC", sink.topic)
    elif case == "no dead-letter topic, no CREATE":
        missing = unique_name("no-such-dlq")
        props = {**props, "errors.deadletterqueue.topic.name": missing}
        sink = Sink(props, sink.topic, missing, sink.root)
        sink.grant_all(alice)
    elif case == "no at-least-once group READ":
        props = {**props, "connect.local.exactly.once.enable": "false"}
        props.pop("errors.deadletterqueue.topic.name")
        alice.grant("READ", "TOPIC", sink.topic)
    else:
        skipped = {
            "no dead-letter topic WRITE": ("WRITE", sink.dlq),
            "no dead-letter group READ": ("READ", f"lakesink-dlq-{sink.name}"),
            "no transactional id WRITE": ("WRITE", f"lakesink-dlq-{sink.name}"),
        }[case]
        sink.grant_all(alice, skip=skipped)

    done = lakesink(tmp_path, "sink", props, "--once")

    line = assert_one_error_line(done, alice, *expected(sink, alice))
    assert "kafka-acls" in line


def test_a_restore_without_write_on_its_target_is_one_line_naming_the_acl(alice: Alice, tmp_path: Path) -> None:
    target, name = unique_name("restored"), unique_name("restore")
    create_topic(alice.kafka, target)
    backup = tmp_path / "store" / "bkt" / "backup" / "src" / "0"
    backup.mkdir(parents=True)
    (backup / "000000000001_0_1.text").write_bytes(b"a\nb\n")
    restore = local_restore_props(
        tmp_path / "store", alice.kafka.sasl_bootstrap_servers,
        f"INSERT INTO {target} SELECT * FROM bkt:backup STOREAS `TEXT`", name, **alice.client(),
    )

    done = lakesink(tmp_path, "restore", restore, "--once")

    assert_one_error_line(done, alice, *_denied("DESCRIBE", "topic", target, alice, "Write"))


def test_an_exactly_once_sink_without_its_group_acl_warns_once_and_the_group_is_left_alone(
    alice: Alice, sink: Sink, caplog: pytest.LogCaptureFixture
) -> None:
    alice.grant("READ", "TOPIC", sink.topic)  # READ on the group connect-<name> is not granted
    group = AdvisoryGroup(alice.client(), f"connect-{sink.name}", close_wait_s=10)

    with caplog.at_level(logging.WARNING, logger="lakesink.adapters.kafka.advisory_group"):
        for offset in (1, 2, 3):
            group.advise({(sink.topic, 0): offset})
            time.sleep(0.2)
        group.close()

    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1, warnings
    assert f"Kafka denied READ on group 'connect-{sink.name}' to User:{alice.name}" in warnings[0]
    assert alice.password not in warnings[0]
    assert alice.kafka.group_offsets(f"connect-{sink.name}") == {}
