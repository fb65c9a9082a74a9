"""The connector configs of the demo (and of the slow tests): the files a user would write.

Every config stores envelopes (``store.envelope=true``): each row then carries its topic,
partition and offset, which is what lets the demo prove exactly-once record by record.
See docs/operations.md, "`make demo`".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

_CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    # Headers stored as the text they are: Connect's default SimpleHeaderConverter would type a
    # trace id such as 0123456789012345 as a number (and store 123456789012345), so the audit
    # could not compare it with the topic.
    "header.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def _properties(values: Mapping[str, object]) -> str:
    return ", ".join(f"'{name}'={value}" for name, value in values.items())


def s3_parquet_config(
    name: str, *, topic: str, bootstrap_servers: str, s3_settings: Mapping[str, str], bucket: str, prefix: str,
    flush_count: int, flush_interval_s: int | None = None,
) -> dict[str, str]:
    """Orders → Snappy Parquet in S3, partitioned by the order's country and day (UTC).

    ``s3_settings`` are the ``connect.s3.*`` keys naming the server and its credentials
    (:meth:`~lakesink.application.demo.ports.ObjectServer.connector_settings`).
    """
    properties: dict[str, object] = {"store.envelope": "true", "flush.count": flush_count}
    if flush_interval_s is not None:
        properties["flush.interval"] = flush_interval_s
    kcql = (
        f"INSERT INTO {bucket}:{prefix} SELECT * FROM {topic} PARTITIONBY _value.country, _date.uuuu-MM-dd "
        f"STOREAS `PARQUET` PROPERTIES({_properties(properties)})"
    )
    return {
        "name": name,
        "topics": topic,
        "bootstrap.servers": bootstrap_servers,
        **_CONVERTERS,
        "connect.s3.kcql": kcql,
        "connect.s3.compression.codec": "SNAPPY",
        **s3_settings,
    }


def s3_table_config(
    name: str, *, topic: str, bootstrap_servers: str, s3_settings: Mapping[str, str], bucket: str, prefix: str,
    flush_count: int, table: str, table_name: str, catalog_uri: str | None = None, flush_interval_s: int | None = None,
) -> dict[str, str]:
    """:func:`s3_parquet_config`'s orders committed to an Iceberg or a Delta table (``table``) at
    ``bucket:prefix``; an Iceberg table is named in the SQL catalog at ``catalog_uri``."""
    settings = s3_parquet_config(name, topic=topic, bootstrap_servers=bootstrap_servers, s3_settings=s3_settings,
                                 bucket=bucket, prefix=prefix, flush_count=flush_count,
                                 flush_interval_s=flush_interval_s)
    table_properties = _properties({"table.format": f"'{table}'", "table.name": f"'{table_name}'"})
    settings["connect.s3.kcql"] = settings["connect.s3.kcql"].replace("PROPERTIES(", f"PROPERTIES({table_properties}, ")
    if catalog_uri is not None:
        settings["connect.s3.table.catalog.uri"] = catalog_uri
    return settings


def local_json_config(
    name: str, *, topic: str, bootstrap_servers: str, root: Path, bucket: str, prefix: str, flush_count: int,
) -> dict[str, str]:
    """Orders → JSON lines in a local directory, partitioned by the ``region`` header.

    The local backend wants the bucket directory to exist; it is created here.
    """
    (Path(root) / bucket).mkdir(parents=True, exist_ok=True)
    kcql = (
        f"INSERT INTO {bucket}:{prefix} SELECT * FROM {topic} PARTITIONBY _header.region STOREAS `JSON` "
        f"PROPERTIES({_properties({'store.envelope': 'true', 'flush.count': flush_count})})"
    )
    return {
        "name": name,
        "topics": topic,
        "bootstrap.servers": bootstrap_servers,
        **_CONVERTERS,
        "connect.local.kcql": kcql,
        "connect.local.root": str(root),
    }


def write_config(directory: Path, settings: Mapping[str, str]) -> Path:
    """Write ``settings`` as ``<directory>/<name>.json`` in Kafka Connect's REST form; returns the path.

    That is the body of a ``POST /connectors`` request (``{"name": …, "config": {…}}``), so no
    ``.properties`` escaping can change a KCQL statement, and ``lakesink sink --config FILE`` reads
    it exactly as it reads a user's file.
    """
    name = settings["name"]
    path = Path(directory) / f"{name}.json"
    path.write_text(json.dumps({"name": name, "config": dict(settings)}, indent=2) + "\n", encoding="utf-8")
    return path
