"""sink → restore against a real S3-compatible server (versitygw, tests/support/versitygw.py), not moto.

Everything else in the tests plays S3 with moto, a Python mock; this runs lakesink's start-up probes,
a sink and a restore against a server written to serve S3 for real. The sink writes a topic with keys
and headers as Parquet envelopes; plain boto3 and pyarrow read every object back (nothing of lakesink's
reader), and the restore replays them into another topic, which must hold every record once, as the
source had it. See docs/storage.md, "A real S3-compatible server".
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from pathlib import Path

import pytest

from lakesink.adapters.demo.s3 import S3Bucket
from lakesink.adapters.kafka.embedded_broker import BrokerHandle, ProducedRecord
from lakesink.adapters.storage import open_store
from lakesink.adapters.storage.s3_checksums import WHEN_SUPPORTED, settle_checksums
from lakesink.application.bootstrap.restore import restore
from lakesink.application.bootstrap.sink import sink_run
from lakesink.application.restore import load_plan
from lakesink.domain.commit.store_calls import perform
from lakesink.domain.commit.store_probe import checksum_probe_key, ignored_conditions, probe_key
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from tests.integration.restore.conftest import by_partition, read_topic
from tests.support.faulty_store import ConditionsIgnored
from tests.support.versitygw import VersityGw, serve_versitygw

pytestmark = [pytest.mark.integration, pytest.mark.s3]

versitygw = pytest.fixture(scope="module")(serve_versitygw)
RECORDS = 48


def _settings(server: VersityGw) -> S3Settings:
    endpoint = server.endpoint
    return S3Settings(region=endpoint.region, custom_endpoint=endpoint.url, path_style_access=True,
                      auth_mode="Credentials", access_key=Secret(endpoint.access_key),
                      secret_key=Secret(endpoint.secret_key))


def _bucket(server: VersityGw) -> str:
    bucket = f"real-s3-{uuid.uuid4().hex[:10]}"
    server.create_bucket(bucket)
    return bucket


def test_the_start_up_probes_find_versitygw_enforcing_conditions_and_taking_checksums(versitygw: VersityGw) -> None:
    """The verdicts a sink starts from: no condition ignored (so exactly-once fences, no single-writer
    fallback), and boto3's default request checksums (CRC32) taken, so no when_required fallback."""
    bucket = _bucket(versitygw)
    store = open_store("s3", _settings(versitygw))
    assert perform(ignored_conditions(bucket, probe_key(".indexes", "probe", "run-1")), store) == ()
    settled = settle_checksums(_settings(versitygw), bucket, checksum_probe_key(".indexes", "probe", "run-1"),
                               writes=True)
    assert settled.checksum_calculation == WHEN_SUPPORTED
    assert [o.key for page in store.list_pages(bucket) for o in page.objects] == []  # the probes cleaned up


def _originals(count: int) -> list[ProducedRecord]:
    """JSON values, text keys (every fifth null) and two text headers, over 4 partitions."""
    return [
        ProducedRecord(
            value=b'{"id":%d,"name":"r\xc3\xa9cord %d"}' % (i, i),
            key=None if i % 5 == 2 else f"key-{i}".encode(),
            headers=(("trace", f"t-{i}".encode()), ("region", b"eu" if i % 2 else b"us")),
            timestamp_ms=1_700_000_000_000 + i,
            partition=i % 4,
        )
        for i in range(count)
    ]


def test_a_topic_sunk_to_versitygw_and_restored_comes_back_exactly_once(  # type: ignore[no-untyped-def]
    spark, kafka: BrokerHandle, versitygw: VersityGw, tmp_path: Path
) -> None:
    source, target = f"src-{uuid.uuid4().hex[:8]}", f"dst-{uuid.uuid4().hex[:8]}"
    bucket = _bucket(versitygw)
    originals = _originals(RECORDS)
    kafka.produce(source, originals)
    store_settings = versitygw.endpoint.connector_settings()
    sink = ConnectorSettings.from_properties({
        **store_settings,
        "name": f"sink-{source}",
        "topics": source,
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.kcql": f"INSERT INTO {bucket}:backup SELECT * FROM {source} STOREAS `PARQUET` "
                           "PROPERTIES('store.envelope'=true, 'flush.count'=5)",
    }, role="sink")
    job = sink_run(sink, spark, once=True, checkpoint_dir=str(tmp_path / "ck"))
    job.run(timeout_s=120)
    assert job.settings.storage.checksum_calculation == WHEN_SUPPORTED

    written = S3Bucket(versitygw.endpoint, bucket)
    data = [o.key for o in written.list("backup/")]
    assert data and all(key.endswith(".parquet") for key in data)
    assert written.list(".indexes/"), "the exactly-once locks are on the server"
    rows = [row for key in data for row in written.rows(key)]
    stored = Counter((row.partition, row.offset) for row in rows)
    assert sum(stored.values()) == RECORDS and set(stored.values()) == {1}, "every offset stored once"
    by_coordinates = {(row.partition, row.offset): row for row in rows}
    for offset_in_partition, record in _in_partition_order(originals):
        row = by_coordinates[(record.partition, offset_in_partition)]
        assert row.key == (record.key.decode() if record.key is not None else None)
        assert row.headers == {name: value.decode() for name, value in record.headers}
        assert row.timestamp == record.timestamp_ms
        assert row.value == record.value, "no converter: the value is stored as the bytes Kafka had"

    kcql = f"INSERT INTO {target} SELECT * FROM {bucket}:backup STOREAS `PARQUET` PROPERTIES('store.envelope'=true)"
    summary = restore(load_plan({**store_settings, "name": f"restore-{target}", "connect.s3.kcql": kcql,
                                 "bootstrap.servers": kafka.bootstrap_servers}), spark, once=True)
    assert summary.records == RECORDS
    restored = read_topic(kafka.bootstrap_servers, target, expected=RECORDS)
    assert len(restored) == RECORDS
    assert by_partition(restored) == by_partition(read_topic(kafka.bootstrap_servers, source, expected=RECORDS))


def _in_partition_order(records: list[ProducedRecord]) -> list[tuple[int, ProducedRecord]]:
    """Each record with the offset it got in its partition (a fresh topic: 0, 1, 2... in produce order)."""
    seen: Counter[int] = Counter()
    numbered = []
    for record in records:
        numbered.append((seen[record.partition], record))
        seen[record.partition] += 1
    return numbered


def test_single_writer_mode_on_versitygw_when_its_conditions_are_ignored(  # type: ignore[no-untyped-def]
    spark, kafka: BrokerHandle, versitygw: VersityGw, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The fallback a store that ignores If-None-Match / If-Match gets (the probe's other verdict):
    versitygw enforces them, so a wrapper drops them on their way to it. With
    exactly.once.single.writer the sink runs with one WARN, every record lands once and the probe
    object is gone; without it the sink is refused before it writes anything (docs/sink.md)."""
    source = f"src-{uuid.uuid4().hex[:8]}"
    bucket = _bucket(versitygw)
    kafka.produce(source, _originals(12))
    properties = {
        **versitygw.endpoint.connector_settings(),
        "name": f"sink-{source}",
        "topics": source,
        "bootstrap.servers": kafka.bootstrap_servers,
        "connect.s3.kcql": f"INSERT INTO {bucket}:out SELECT * FROM {source} STOREAS `JSON` "
                           "PROPERTIES('store.envelope'=true, 'flush.count'=4)",
    }
    lying = ConditionsIgnored(open_store("s3", _settings(versitygw)))
    refused = sink_run(ConnectorSettings.from_properties(properties, role="sink"), spark, once=True,
                       checkpoint_dir=str(tmp_path / "ck-refused"), store=lying)
    with pytest.raises(ConfigError, match="ignores conditional writes"):
        refused.run(timeout_s=120)
    written = S3Bucket(versitygw.endpoint, bucket)
    assert written.list() == []

    single = ConnectorSettings.from_properties({**properties, "connect.s3.exactly.once.single.writer": "true"},
                                               role="sink")
    with caplog.at_level(logging.WARNING, logger="lakesink.application.sink_run"):
        sink_run(single, spark, once=True, checkpoint_dir=str(tmp_path / "ck"), store=lying).run(timeout_s=120)
    assert len([r for r in caplog.records if "no fencing of a second writer" in r.getMessage()]) == 1
    stored = Counter((row.partition, row.offset) for o in written.list("out/") for row in written.rows(o.key))
    assert sum(stored.values()) == 12 and set(stored.values()) == {1}
    assert written.list(f".indexes/{properties['name']}/.probes/") == []
