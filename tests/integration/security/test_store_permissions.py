"""The S3 permissions docs/storage.md ("Permissions") documents are enough, and each one is needed.

versitygw with its IAM on evaluates bucket policies action by action and key by key as AWS does
(tests/support/versitygw.py); two accounts get exactly the page's policies (read from the page:
tests/support/store_policies.py), one the exactly-once sink's, one the restore's. One grant at a time
is taken away: the command stops with exit 2 and one ``lakesink: error:`` line naming the action and
the bucket. Once the grant is back, the full policies are enough for the next run, which leaves every
record once in the store (a sink's cell) or in the restored topic (a restore's cell); the executor's
refusal runs both.

``make test`` runs two removals: ``s3:PutObject`` on ``.indexes/CONNECTOR/*`` through the CLI in a
child process (refused at start by the request-checksum probe, after the preflight) and on the data
prefix in this process (refused on an executor after the range plans were written, so the run after
it replays them). ``make test-reliability`` runs the CLI without each grant a plain run needs. Grants
only a recovery uses (``s3:GetObject``/``s3:DeleteObject`` on the data prefix,
``s3:AbortMultipartUpload``) fail no plain run, so no removal shows them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.demo.s3 import S3Bucket, S3Endpoint
from lakesink.adapters.kafka.embedded_broker import BrokerHandle, ProducedRecord
from lakesink.application.bootstrap.preflight import check_restore_environment, check_sink_environment
from lakesink.application.bootstrap.restore import restore
from lakesink.application.bootstrap.sink import sink_run
from lakesink.application.cli import EXIT_INVALID_INPUT
from lakesink.application.restore import load_plan
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import AccessDeniedError
from tests.integration.restore.conftest import read_topic
from tests.support.reliability import FULL, record_cell
from tests.support.store_policies import Removal, bucket_policy, documented_policies, for_principal, without
from tests.support.versitygw import VersityGw, versitygw_missing_reason

pytestmark = [pytest.mark.integration, pytest.mark.s3]

RECORDS = 24
PREFIX = "backup"
SINK_USER, RESTORE_USER = "lakesink-sink", "lakesink-restore"


@dataclass(frozen=True, slots=True)
class Accounts:
    """The IAM-enforcing server and the two accounts that get nothing but the documented policies."""

    server: VersityGw
    sink: S3Endpoint
    restore: S3Endpoint


@pytest.fixture(scope="module")
def accounts() -> Iterator[Accounts]:
    reason = versitygw_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    with VersityGw(iam=True) as server:
        yield Accounts(server, server.create_user(SINK_USER, "sink-secret-0123456789"),
                       server.create_user(RESTORE_USER, "restore-secret-0123456789"))


@dataclass(frozen=True, slots=True)
class Case:
    """One bucket, topic pair and connector names, and the policies the page documents for them."""

    accounts: Accounts
    bucket: str
    source: str
    target: str
    bootstrap: str

    @property
    def sink_name(self) -> str:
        return f"sink-{self.source}"

    @property
    def restore_name(self) -> str:
        return f"restore-{self.target}"

    def grant(self, *, sink: Removal | None = None, restore_removal: Removal | None = None) -> None:
        """Both accounts get the page's policies, less one grant of one of them."""
        sink_policy, restore_policy = documented_policies()
        if sink is not None:
            sink_policy = without(sink_policy, sink)
        if restore_removal is not None:
            restore_policy = without(restore_policy, restore_removal)
        self.accounts.server.put_bucket_policy(self.bucket, bucket_policy(
            for_principal(sink_policy, SINK_USER, BUCKET=self.bucket, PREFIX=PREFIX, CONNECTOR=self.sink_name),
            for_principal(restore_policy, RESTORE_USER, BUCKET=self.bucket, PREFIX=PREFIX),
        ))

    def sink_props(self) -> dict[str, str]:
        return {
            **self.accounts.sink.connector_settings(),
            "name": self.sink_name,
            "topics": self.source,
            "bootstrap.servers": self.bootstrap,
            "connect.s3.kcql": f"INSERT INTO {self.bucket}:{PREFIX} SELECT * FROM {self.source} STOREAS `JSON` "
                               "PROPERTIES('store.envelope'=true, 'flush.count'=5)",
        }

    def restore_props(self) -> dict[str, str]:
        return {
            **self.accounts.restore.connector_settings(),
            "name": self.restore_name,
            "bootstrap.servers": self.bootstrap,
            "connect.s3.kcql": f"INSERT INTO {self.target} SELECT * FROM {self.bucket}:{PREFIX} STOREAS `JSON` "
                               "PROPERTIES('store.envelope'=true)",
        }


def _case(accounts: Accounts, kafka: BrokerHandle) -> Case:
    suffix = uuid.uuid4().hex[:8]
    case = Case(accounts, f"perm-{suffix}", f"src-{suffix}", f"dst-{suffix}", kafka.bootstrap_servers)
    accounts.server.create_bucket(case.bucket)
    kafka.produce(case.source, [
        ProducedRecord(value=b'{"id":%d}' % i, key=f"key-{i}".encode(), headers=(("n", str(i).encode()),),
                       timestamp_ms=1_700_000_000_000 + i, partition=i % 4)
        for i in range(RECORDS)
    ])
    return case


def _sink(case: Case, spark: Any, checkpoint: Path) -> None:
    """An exactly-once ``sink --once`` in this process (the session's Spark), after the CLI's preflight."""
    settings = ConnectorSettings.from_properties(case.sink_props(), role="sink")
    check_sink_environment(settings)
    sink_run(settings, spark, once=True, checkpoint_dir=str(checkpoint)).run(timeout_s=120)


def _restore(case: Case, spark: Any) -> int:
    props = case.restore_props()
    plan = load_plan(props)
    check_restore_environment(props, plan)
    return restore(plan, spark, once=True).records


def _assert_stored_once(case: Case) -> None:
    """Read back as the root account with plain boto3: every source offset in exactly one object row."""
    written = S3Bucket(case.accounts.server.endpoint, case.bucket)
    rows = [row for item in written.list(f"{PREFIX}/") for row in written.rows(item.key)]
    stored = Counter((row.partition, row.offset) for row in rows)
    assert len(stored) == RECORDS and set(stored.values()) == {1}, f"every offset once: {stored}"


def _assert_restored_once(case: Case) -> None:
    restored = read_topic(case.bootstrap, case.target, expected=RECORDS)
    values = Counter(value for _partition, _key, value, _headers, _timestamp in restored)
    assert len(values) == RECORDS and set(values.values()) == {1}, f"every record once: {values}"


def _cli(command: str, props: dict[str, str], work: Path) -> subprocess.CompletedProcess[str]:
    """``lakesink <command> --once`` as an operator runs it, in a child process."""
    config = work / f"{command}-{uuid.uuid4().hex[:6]}.json"
    config.write_text(json.dumps(props))
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    return subprocess.run([sys.executable, "-m", "lakesink.application.cli", command, "--once", "--config",
                           str(config), "--master", "local[2]"],
                          capture_output=True, text=True, env=environment, timeout=240, check=False)


def _assert_one_line_naming(done: subprocess.CompletedProcess[str], removal: Removal, bucket: str) -> str:
    assert done.returncode == EXIT_INVALID_INPUT, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("lakesink: error: ")]
    assert len(errors) == 1, done.stderr[-3000:]
    line = errors[0]
    assert f"{removal.action} denied on s3://{bucket}" in line, line
    assert "docs/storage.md#permissions" in line, line
    assert "secret-0123456789" not in done.stderr + done.stdout, "no secret in the output"
    return line


def _grant_back_and_audit(case: Case, spark: Any, checkpoint: Path, *, sink_again: bool, restore: bool) -> None:
    """Every grant of the page back: the next run finishes the work, and nothing is lost or doubled
    in the store (``sink_again``) nor in the restored topic (``restore``): the full policies' proof."""
    case.grant()
    if sink_again:
        _sink(case, spark, checkpoint)
        _assert_stored_once(case)
    if restore:
        assert _restore(case, spark) == RECORDS
        _assert_restored_once(case)


def test_an_upload_refused_on_an_executor_stops_the_sink_and_the_next_run_replays_its_plan(  # type: ignore[no-untyped-def]
    spark, kafka: BrokerHandle, accounts: Accounts, tmp_path: Path
) -> None:
    """In this process (the session's Spark: no JVM to start); the CLI's exit 2 for the same error
    class is the start-up cells' (below)."""
    case = _case(accounts, kafka)
    case.grant(sink=Removal("s3:PutObject", "PREFIX/*"))
    with pytest.raises(AccessDeniedError) as refused:
        _sink(case, spark, tmp_path / "ck")
    message = str(refused.value)
    assert "\n" not in message and f"s3:PutObject denied on s3://{case.bucket}/{PREFIX}/" in message, message
    plans = S3Bucket(case.accounts.server.endpoint, case.bucket).list(f".indexes/{case.sink_name}/.plans/")
    assert plans, "the range plans were written before the refused uploads"

    _grant_back_and_audit(case, spark, tmp_path / "ck", sink_again=True, restore=True)


SINK_REMOVALS = [
    Removal("s3:ListBucket"),
    Removal("s3:PutObject", "PREFIX/*"),
    Removal("s3:PutObject", ".indexes/CONNECTOR/*"),
    Removal("s3:GetObject", ".indexes/CONNECTOR/*"),
    Removal("s3:DeleteObject", ".indexes/CONNECTOR/*"),
    Removal("s3:GetObject", ".indexes/.locks/*"),
]
RESTORE_REMOVALS = [Removal("s3:ListBucket"), Removal("s3:GetObject", "PREFIX/*")]
SAMPLED = ("sink", "s3:PutObject on .indexes/CONNECTOR/*")
"""The cell ``make test`` runs: refused by the request-checksum probe on the driver, after the preflight."""
CELLS = [("sink", removal) for removal in SINK_REMOVALS] + [("restore", removal) for removal in RESTORE_REMOVALS]


@pytest.mark.parametrize(
    ("command", "removal"),
    [
        pytest.param(command, removal, id=f"{command}-{removal.label}", marks=[pytest.mark.reliability, *(
            [] if (command, removal.label) == SAMPLED
            else [pytest.mark.skipif(not FULL, reason="make test-reliability runs it")])])
        for command, removal in CELLS
    ],
)
def test_a_missing_grant_stops_the_command_with_one_line_and_loses_nothing(  # type: ignore[no-untyped-def]
    spark, kafka: BrokerHandle, accounts: Accounts, tmp_path: Path, command: str, removal: Removal
) -> None:
    case = _case(accounts, kafka)
    if command == "restore":
        case.grant()
        _sink(case, spark, tmp_path / "ck")
        case.grant(restore_removal=removal)
        refused = _cli("restore", case.restore_props(), tmp_path)
    else:
        case.grant(sink=removal)
        refused = _cli("sink", case.sink_props(), tmp_path)
    line = _assert_one_line_naming(refused, removal, case.bucket)

    _grant_back_and_audit(case, spark, tmp_path / "ck", sink_again=command == "sink", restore=command == "restore")
    record_cell("store permissions", backend="S3 (versitygw IAM)", command=command, removed=removal.label,
                exit_code=refused.returncode, error=line.removeprefix("lakesink: error: ")[:160], outcome="once")
