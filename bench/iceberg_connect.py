"""Apache Iceberg's Kafka Connect sink as a peer (issue 37): the connector Iceberg users run, from its Central
jars (tools/iceberg-connect/pom.xml), on a real Kafka Connect worker (tests/support/connect_standalone.py),
committing to the same Iceberg REST catalog as lakesink's ``table.catalog.type=rest``.

Nothing is compiled: the plugin directory holds the published jars, and the connector jar's ServiceLoader
manifest names ``IcebergSinkConnector``. Each task writes Parquet data files; one task, the coordinator,
collects the others' files over the control topic (``iceberg.control.topic``, transactional) every
``iceberg.control.commit.interval-ms`` and commits them to the table in one snapshot, whose summary records
the control group's offsets. Shared by the benchmark (bench/iceberg_connect_runs.py) and its tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import Plugin, connect_missing_reason
from tests.support.kafka_broker import REPO

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

JARS = REPO / ".tools" / "maven" / "iceberg-connect"
CONNECTOR = "org.apache.iceberg.connect.IcebergSinkConnector"
PLUGIN = Plugin("iceberg-kafka-connect", None, CONNECTOR, jars=(JARS,))
LABEL = "Apache Iceberg's Kafka Connect sink (iceberg-kafka-connect from Maven Central)"
_JSON = "org.apache.kafka.connect.json.JsonConverter"


def missing_reason() -> str | None:
    """Why the Iceberg connector cannot run here (one line naming what to install), or None."""
    reason = connect_missing_reason()
    if reason is None and not (JARS / "VERSION").is_file():
        reason = (f"Apache Iceberg's Kafka Connect sink is not in {JARS.relative_to(REPO)}: run `make install` "
                  "(needs Maven 3.8+ and Maven Central)")
    return reason


def connector_config(topic: str, table: str, catalog_uri: str, *, control_topic: str, commit_interval_ms: int,
                     tasks: int, session_timeout_ms: int | None = None,
                     s3: S3Endpoint | None = None) -> dict[str, str]:
    """The connector's settings as an Iceberg user writes them for schemaless JSON values into an existing
    table ``table`` (``namespace.name``) of the REST catalog at ``catalog_uri``: fields matched by name,
    one commit every ``commit_interval_ms``. ``control_topic`` is the connector's own (one per connector, so
    runs of the same broker never read each other's events); ``session_timeout_ms`` the task consumers'
    ``session.timeout.ms`` (Kafka's default, 45 s, when None: a killed worker keeps its partitions that long);
    ``s3`` the S3 server of a table on S3 (its FileIO's endpoint and keys, as ``iceberg.catalog.s3.*``)."""
    fields = {} if session_timeout_ms is None else {"consumer.override.session.timeout.ms": str(session_timeout_ms)}
    if s3 is not None:
        fields |= {"iceberg.catalog.s3.endpoint": s3.url, "iceberg.catalog.s3.path-style-access": "true",
                   "iceberg.catalog.s3.access-key-id": s3.access_key,
                   "iceberg.catalog.s3.secret-access-key": s3.secret_key, "iceberg.catalog.client.region": s3.region}
    return {**fields,
        "connector.class": CONNECTOR, "topics": topic, "tasks.max": str(tasks),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": _JSON, "value.converter.schemas.enable": "false",
        "iceberg.tables": table, "iceberg.catalog.type": "rest", "iceberg.catalog.uri": catalog_uri,
        "iceberg.catalog.io-impl": "org.apache.iceberg.io.ResolvingFileIO",
        "iceberg.control.topic": control_topic,
        "iceberg.control.commit.interval-ms": str(commit_interval_ms),
    }



def create_orders_table(catalog: Catalog, identifier: str, location: str | None = None) -> None:
    """Create ``identifier`` (at ``location``, else in the catalog's warehouse) for the benchmark's order events
    (bench/events.py), as a user creates the table the connector is pointed at: the JSON fields by name and
    type, ``customer`` a struct."""
    from pyiceberg.schema import Schema
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, StructType

    strings = ("order_id", "country", "currency", "status", "channel")
    fields = [NestedField(i + 1, name, StringType(), required=False) for i, name in enumerate(strings)]
    fields += [
        NestedField(6, "customer", StructType(NestedField(7, "id", StringType(), required=False),
                                              NestedField(8, "tier", StringType(), required=False)), required=False),
        NestedField(9, "amount", DoubleType(), required=False),
        NestedField(10, "items", LongType(), required=False),
        NestedField(11, "created_at", LongType(), required=False),
        NestedField(12, "updated_at", LongType(), required=False),
    ]
    namespace = identifier.rsplit(".", 1)[0]
    catalog.create_namespace_if_not_exists(namespace)
    catalog.create_table(identifier, Schema(*fields), location=location)
