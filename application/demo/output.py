"""What counts as the sink's output in a bucket, and all its records in key order.

Output is the objects under the prefix with a data-file extension, outside the ``.indexes``
directory. Anything else under the prefix (a staging file left by a killed writer, say) is
never read as data. Only envelope files can be checked record by record, because only they
carry each record's partition and offset; the bucket (:class:`~lakesink.application.demo.ports.Bucket`)
decodes them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from lakesink.application.demo.ports import Bucket, StoredRow

DATA_EXTENSIONS = (".parquet", ".json", ".avro", ".gz")
INDEX_DIRECTORY = ".indexes"


def is_data_key(key: str) -> bool:
    """True for a data file; index objects (under ``.indexes/``) and temp files are not data."""
    if key.split("/", 1)[0] == INDEX_DIRECTORY:
        return False
    return key.endswith(DATA_EXTENSIONS) and not posixpath.basename(key).startswith("%tmp.")


def read_rows(bucket: Bucket, prefix: str = "") -> Iterator[StoredRow]:
    """Every record of every data file under ``prefix``, in key order."""
    for listed in sorted(bucket.list(prefix), key=lambda item: item.key):
        if is_data_key(listed.key):
            yield from bucket.rows(listed.key)
