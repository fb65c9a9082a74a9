"""What a reader that only lists the prefix sees (Athena, DuckDB, Trino over ``s3://bucket/prefix/``):
every object under it, read with pyarrow (or as JSON lines), counted offset by offset against the topic.

Independent of the writers: plain boto3 listing, pyarrow and ``json``, no Spark and none of lakesink's
readers. A row's Kafka coordinates come from lakesink's envelope (``metadata.partition``/``offset``),
from the plain Spark job's ``partition``/``offset`` columns, or, for Aiven's jsonl files
(:func:`aiven_coordinates`), from the file name's partition and the row's ``offset`` field. ``committed`` narrows the count to
the objects a sink's own commit record names (Spark's ``_spark_metadata`` log), the view Spark's
reader has; users listing the prefix do not get it.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

import pyarrow.parquet as pq

from lakesink.adapters.demo.s3 import S3Bucket

SPARK_LOG = "_spark_metadata/"


@dataclass(frozen=True, slots=True)
class PrefixCount:
    """Offsets of the topic against the rows found: missing, stored more than once, and the files
    behind them (unreadable, or not named by the sink's commit record)."""

    objects: int
    rows: int
    missing: int
    duplicated: int
    unreadable: int
    uncommitted: int | None

    def facts(self) -> dict[str, int | None]:
        return {"objects": self.objects, "rows": self.rows, "missing": self.missing, "duplicated": self.duplicated,
                "unreadable": self.unreadable, "uncommitted": self.uncommitted}


def parquet_coordinates(key: str, body: bytes) -> Iterable[tuple[int, int]]:
    """(partition, offset) of every row of a Parquet object (lakesink's envelope or Spark's columns)."""
    return _coordinates(pq.read_table(io.BytesIO(body)).to_pylist())


_AIVEN_NAME = re.compile(r"-(\d+)-\d+\.jsonl$")


def aiven_coordinates(key: str, body: bytes) -> Iterable[tuple[int, int]]:
    """(partition, offset) of every line of an Aiven jsonl file named ``<topic>-<partition>-<start>.jsonl``
    and written with ``offset`` among its ``format.output.fields``."""
    match = _AIVEN_NAME.search(key)
    assert match is not None, f"not an Aiven file name: {key}"
    return [(int(match[1]), int(json.loads(line)["offset"])) for line in body.decode("utf-8").splitlines()]


def count_prefix(output: S3Bucket, prefix: str, expected: Iterable[tuple[int, int]],
                 committed: Collection[str] | None = None, *, only_committed: bool = False,
                 suffix: str = ".parquet",
                 rows: Callable[[str, bytes], Iterable[tuple[int, int]]] = parquet_coordinates) -> PrefixCount:
    """Count ``expected`` (partition, offset) pairs in the objects under ``prefix`` ending in ``suffix``,
    each read by ``rows`` (Parquet by default).

    ``committed`` (the keys the sink's commit record names; None for a sink without such a list)
    gives ``uncommitted``, the data objects outside it; ``only_committed`` reads just those keys
    (the sink's intended view) instead of every object, as a lister does.
    """
    keys = [item.key for item in output.list(prefix) if item.key.endswith(suffix)]
    read = [key for key in keys if not only_committed or committed is None or key in committed]
    seen: Counter[tuple[int, int]] = Counter()
    unreadable = 0
    for key in read:
        try:
            seen.update(rows(key, output.read(key)))
        except Exception:  # a partial or corrupt object: what the count is about, not an error of the test
            unreadable += 1
    wanted = set(expected)
    return PrefixCount(objects=len(keys), rows=sum(seen.values()), missing=len(wanted - seen.keys()),
                       duplicated=sum(n - 1 for pair, n in seen.items() if n > 1),
                       unreadable=unreadable,
                       uncommitted=None if committed is None else sum(key not in committed for key in keys))


def _coordinates(rows: list[dict[str, object]]) -> Iterable[tuple[int, int]]:
    for row in rows:
        source = row["metadata"] if isinstance(row.get("metadata"), dict) else row
        assert isinstance(source, dict)
        yield int(source["partition"]), int(source["offset"])


def spark_committed_keys(output: S3Bucket, prefix: str) -> set[str]:
    """The object keys Spark's file sink committed: every ``path`` of its ``_spark_metadata`` log
    (batch files and compactions; a file sink never deletes), as keys of ``output``."""
    keys: set[str] = set()
    for item in output.list(prefix + SPARK_LOG):
        for line in output.read(item.key).decode("utf-8").splitlines()[1:]:  # the first line is the version
            path = str(json.loads(line)["path"])
            keys.add(path.split(f"s3a://{output.name}/", 1)[1])
    return keys
