"""Record counts read the short way agree with what the restore's readers produce from the same object."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.restore.batches import read_batches
from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.adapters.verify import contents
from lakesink.adapters.verify.contents import record_count
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import IndexEntry
from lakesink.domain.restore.plan import RestoreRoot


def _avro(rows: int) -> bytes:
    out = io.BytesIO()
    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "long"}]}
    fastavro.writer(out, schema, ({"id": i} for i in range(rows)), sync_interval=64)
    return out.getvalue()


def _parquet(rows: int) -> bytes:
    out = io.BytesIO()
    pq.write_table(pa.table({"id": list(range(rows))}), out, row_group_size=3)
    return out.getvalue()


CASES = [
    (Format.JSON, False, "t/0/000000000002_0_0.json", b'{"a":1}\n\n  \n{"a":2}\r\n{"a":3}'),
    (Format.JSON, False, "t/0/000000000001_0_0.gz", gzip.compress(b'{"a":1}\n{"a":2}\n')),
    (Format.TEXT, False, "t/0/000000000003_0_0.text", b"one\ntwo\n\nthree\n\n"),
    (Format.CSV, True, "t/0/000000000001_0_0.csv", b"id,name\n1,a\n2,b\n"),
    (Format.CSV, False, "t/0/000000000001_0_0.csv", b"1,a\n2,b"),
    (Format.JSON, False, "t/0/000000000000_0_0.json", b""),
    (Format.AVRO, False, "t/0/000000000049_0_0.avro", _avro(50)),
    (Format.PARQUET, False, "t/0/000000000009_0_0.parquet", _parquet(10)),
]


@pytest.mark.parametrize(
    ("fmt", "headers", "key", "data"), CASES, ids=[f"{c[0].value}-{c[2][-8:]}" for c in CASES]
)
@pytest.mark.parametrize("in_memory", [True, False], ids=["in-memory", "downloaded"])
def test_the_short_count_is_what_the_restore_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fmt: Format,
    headers: bool,
    key: str,
    data: bytes,
    in_memory: bool,
) -> None:
    if not in_memory:
        monkeypatch.setattr(contents, "IN_MEMORY_BYTES", -1)
    store = InMemoryObjectStore()
    store.create_bucket("b")
    store.put("b", key, data)
    root = RestoreRoot(0, "b", "", "t", fmt, csv_headers=headers)
    entry = IndexEntry(0, key, len(data), "t", 0, 0)
    path = tmp_path / "object"
    counted = record_count(store, root, entry, path)
    assert not path.exists()  # a download is removed again
    path.write_bytes(data)
    assert counted == sum(len(batch) for batch in read_batches(root, entry, path))
