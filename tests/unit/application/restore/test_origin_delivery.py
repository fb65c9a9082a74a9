"""One origin's delivery against a fake transactional producer: the calls it makes, in order.

The fake keeps what a transaction carried, so the tests check the protocol (records and their
progress record in one transaction, a commit every LIMIT records) and the shape of each
``produce`` call, without a broker.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.formats import open_writer
from lakesink.adapters.restore import delivery
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.application.bootstrap.restore import origin_replay
from lakesink.domain.config.backends import MemorySettings
from lakesink.domain.dialects.confluent.restore_keys import ConfluentLayout, StoredViewFile
from lakesink.domain.errors import ObjectNotFoundError, RecordError
from lakesink.domain.formats import Format
from lakesink.domain.ports import ObjectInfo
from lakesink.domain.records import Record
from lakesink.domain.restore.index import IndexEntry, WorkItem, classify, group_work
from lakesink.domain.restore.plan import RestorePlan, RestoreRoot
from lakesink.domain.restore.results import OriginResult
from lakesink.domain.schema.envelope_fields import EnvelopeFields

PROGRESS = "__lakesink_restore_r"


class FakeTransactionalProducer:
    """Records each transaction's ``produce`` calls; ``full_queue`` BufferErrors come first."""

    def __init__(self, *, full_queue: int = 0) -> None:
        self.committed: list[list[tuple[tuple[Any, ...], dict[str, Any]]]] = []
        self.open: list[tuple[tuple[Any, ...], dict[str, Any]]] | None = None
        self.full_queue = full_queue
        self.polls = 0

    def init_transactions(self, timeout: float) -> None:
        self.open = None

    def begin_transaction(self) -> None:
        assert self.open is None, "a transaction is already open"
        self.open = []

    def produce(self, *args: Any, **kwargs: Any) -> None:
        assert self.open is not None, "produce outside a transaction"
        if self.full_queue:
            self.full_queue -= 1
            raise BufferError("Local: Queue full")
        self.open.append((args, kwargs))

    def poll(self, timeout: float) -> int:
        self.polls += 1
        return 0

    def commit_transaction(self, timeout: float) -> None:
        assert self.open is not None
        self.committed.append(self.open)
        self.open = None

    def abort_transaction(self, timeout: float) -> None:
        self.open = None

    def flush(self, timeout: float) -> int:
        return 0


def _deliver(
    monkeypatch: pytest.MonkeyPatch, root: RestoreRoot, objects: dict[str, bytes], producer: FakeTransactionalProducer,
    store: InMemoryObjectStore | None = None,
) -> OriginResult:
    store = store or InMemoryObjectStore()
    store.create_bucket("bkt")
    entries = []
    for key, data in objects.items():
        store.put("bkt", key, data)
        entries.append(IndexEntry(0, key, len(data), "src", 2, int(key.rsplit("/", 1)[1].split("_")[0])))
    monkeypatch.setattr(delivery, "create_producer", lambda config: producer)
    monkeypatch.setattr(delivery, "partition_count", lambda producer, topic, *_acl: 4)
    monkeypatch.setattr(delivery, "read_progress", lambda *args: None)
    plan = RestorePlan("r", "memory", MemorySettings(), (root,))
    item = WorkItem(entries[0].origin, 0, "target", 2, tuple(entries))
    return origin_replay(plan, item, store, {"bootstrap.servers": "unused:1"}).run()


def _text_root(limit: int) -> RestoreRoot:
    return RestoreRoot(0, "bkt", "", "target", Format.TEXT, limit=limit)


def test_records_without_headers_or_timestamps_use_the_short_produce_call(monkeypatch: pytest.MonkeyPatch) -> None:
    producer = FakeTransactionalProducer()
    _deliver(monkeypatch, _text_root(100), {"src/2/000000000002_1_1.text": b"a\nb\nc\n"}, producer)
    (transaction,) = producer.committed
    assert transaction[:3] == [(("target", b"a", None, 2), {}), (("target", b"b", None, 2), {}), (("target", b"c", None, 2), {})]


def test_each_transaction_holds_at_most_limit_records_and_ends_with_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    producer = FakeTransactionalProducer()
    result = _deliver(monkeypatch, _text_root(2), {"src/2/000000000004_1_1.text": b"a\nb\nc\nd\ne\n"}, producer)
    assert result.records == 5
    values = [[args[1] for args, _ in transaction[:-1]] for transaction in producer.committed]
    assert values == [[b"a", b"b"], [b"c", b"d"], [b"e"]]
    progress = [transaction[-1] for transaction in producer.committed]
    assert all(args == (PROGRESS,) for args, _ in progress)
    lines = [json.loads(kwargs["value"]) for _, kwargs in progress]
    assert [(p["line"], p["complete"]) for p in lines] == [(2, False), (4, False), (5, True)]


def test_envelope_records_carry_their_headers_and_timestamps_passed_by_position(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "object.avro"
    writer = open_writer(Format.AVRO, path, envelope=EnvelopeFields())
    writer.write_many([
        Record("src", 2, 0, 1_700_000_000_000, key="k0", value="v0", headers=(("origin", b"x"),)),
        Record("src", 2, 1, 1_700_000_000_001, key="k1", value="v1", headers=(("origin", b"y"),)),
    ])
    writer.close()
    root = RestoreRoot(0, "bkt", "", "target", Format.AVRO, envelope=True)
    producer = FakeTransactionalProducer()
    _deliver(monkeypatch, root, {"src/2/000000000001_1_1.avro": path.read_bytes()}, producer)
    (transaction,) = producer.committed
    # Producer.produce(topic, value, key, partition, callback, on_delivery, timestamp, headers):
    # by position, as keywords cost the client 0.7 µs a message to parse
    assert transaction[:2] == [
        (("target", b"v0", b"k0", 2, None, None, 1_700_000_000_000, [("origin", b"x")]), {}),
        (("target", b"v1", b"k1", 2, None, None, 1_700_000_000_001, [("origin", b"y")]), {}),
    ]


def test_envelope_topics_route_records_and_an_internal_topic_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``source.topic.from.envelope``: each record to its envelope's topic (the target when it names
    none); a record naming an internal ``__`` topic fails the object."""
    path = tmp_path / "object.avro"
    writer = open_writer(Format.AVRO, path, envelope=EnvelopeFields())
    writer.write_many([
        Record("orders", 2, 0, 1, key="k0", value="v0"),
        Record("", 2, 1, 1, key="k1", value="v1"),
        Record("payments", 2, 2, 1, key="k2", value="v2"),
    ])
    writer.close()
    root = RestoreRoot(0, "bkt", "", "target", Format.AVRO, envelope=True, topic_from_envelope=True)
    producer = FakeTransactionalProducer()
    _deliver(monkeypatch, root, {"src/2/000000000002_1_1.avro": path.read_bytes()}, producer)
    (transaction,) = producer.committed
    assert [call[0][:3] for call in transaction[:3]] == [
        ("orders", b"v0", b"k0"), ("target", b"v1", b"k1"), ("payments", b"v2", b"k2"),
    ]

    internal = tmp_path / "internal.avro"
    writer = open_writer(Format.AVRO, internal, envelope=EnvelopeFields())
    writer.write_many([Record(PROGRESS, 2, 0, 1, key="k", value="v")])
    writer.close()
    with pytest.raises(RecordError, match="names the internal topic '__lakesink_restore_r'"):
        _deliver(monkeypatch, root, {"src/2/000000000000_1_1.avro": internal.read_bytes()}, FakeTransactionalProducer())


def test_a_full_producer_queue_is_drained_and_the_message_sent_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    producer = FakeTransactionalProducer(full_queue=3)
    _deliver(monkeypatch, _text_root(100), {"src/2/000000000001_1_1.text": b"a\nb\n"}, producer)
    (transaction,) = producer.committed
    assert [args[1] for args, _ in transaction[:-1]] == [b"a", b"b"]
    assert producer.polls == 3


class DownloadLog(InMemoryObjectStore):
    """The memory store, noting each download as it finishes."""

    def __init__(self) -> None:
        super().__init__()
        self.downloaded: list[str] = []
        self.second_fetched = threading.Event()

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        info = super().download_file(bucket, key, path)
        self.downloaded.append(key)
        if len(self.downloaded) == 2:
            self.second_fetched.set()
        return info


class WaitingProducer(FakeTransactionalProducer):
    """Holds the first record's ``produce`` until the store has fetched the second object."""

    def __init__(self, store: DownloadLog) -> None:
        super().__init__()
        self.store = store
        self.fetched_while_producing: bool | None = None

    def produce(self, *args: Any, **kwargs: Any) -> None:
        if self.fetched_while_producing is None:
            self.fetched_while_producing = self.store.second_fetched.wait(timeout=5)
        super().produce(*args, **kwargs)


def test_the_next_object_is_fetched_while_the_current_one_is_produced(monkeypatch: pytest.MonkeyPatch) -> None:
    store = DownloadLog()
    producer = WaitingProducer(store)
    objects = {"src/2/000000000001_1_1.text": b"a\nb\n", "src/2/000000000003_1_1.text": b"c\nd\n"}
    result = _deliver(monkeypatch, _text_root(100), objects, producer, store)
    assert producer.fetched_while_producing is True
    assert result.records == 4
    (transaction,) = producer.committed
    assert [args[1] for args, _ in transaction[:-1]] == [b"a", b"b", b"c", b"d"]


def test_an_object_that_vanished_before_it_was_fetched_is_skipped_and_the_next_one_delivered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Vanishing(InMemoryObjectStore):
        def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
            if key.endswith("000000000001_1_1.text"):
                raise ObjectNotFoundError(f"{bucket}/{key} not found")
            return super().download_file(bucket, key, path)

    producer = FakeTransactionalProducer()
    objects = {"src/2/000000000001_1_1.text": b"a\n", "src/2/000000000003_1_1.text": b"c\n"}
    result = _deliver(monkeypatch, _text_root(100), objects, producer, Vanishing())
    assert (result.records, result.skipped_objects) == (1, 1)
    (transaction,) = producer.committed
    assert [args[1] for args, _ in transaction[:-1]] == [b"c"]


def test_a_confluent_object_comes_with_its_keys_and_one_whose_keys_are_missing_is_skipped_when_tolerated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layout = ConfluentLayout("topics", "/", "+", 10, ".json", keys=StoredViewFile(Format.JSON, ".json"))
    root = RestoreRoot(0, "bkt", layout.list_prefix, None, Format.JSON, layout=layout)
    plan = RestorePlan("r", "memory", MemorySettings(), (root,), tolerate_errors=True)
    store = InMemoryObjectStore()
    store.create_bucket("bkt")
    objects = {
        "topics/src/region=eu/src+2+0000000000.json": b'{"a":1}\n',  # its keys object is missing
        "topics/src/region=us/src+2+0000000001.json": b'{"b":1}\n{"b":2}\n',
        "topics/src/region=us/src+2+0000000001.keys.json": b'"k1"\n"k2"\n',
    }
    for key, data in objects.items():
        store.put("bkt", key, data)
    entries = [e for key, data in objects.items() if (e := classify(plan, root, key, len(data))) is not None]
    producer = FakeTransactionalProducer()
    monkeypatch.setattr(delivery, "create_producer", lambda config: producer)
    monkeypatch.setattr(delivery, "partition_count", lambda producer, topic, *_acl: 4)
    monkeypatch.setattr(delivery, "read_progress", lambda *args: None)
    (item,) = group_work(entries)
    result = origin_replay(plan, item, store, {"bootstrap.servers": "unused:1"}).run()
    assert (result.objects, result.skipped_objects, result.records) == (2, 1, 2)
    sent = [args for transaction in producer.committed for args, _ in transaction if args[0] == "src"]
    assert sent == [("src", b'{"b":1}', b'"k1"', 2), ("src", b'{"b":2}', b'"k2"', 2)]
