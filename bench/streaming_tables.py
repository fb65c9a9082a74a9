"""The streaming ladder's table steps (issue 37): format ``iceberg``, written by lakesink and by Apache
Iceberg's Kafka Connect sink, both committing to one Iceberg REST catalog started for the step.

lakesink runs sink-iceberg's statement (sink-parquet's, ``table.format`` ICEBERG) with ``flush.interval``
5 s; the connector (bench/iceberg_connect.py) runs on its Connect worker with
``iceberg.control.commit.interval-ms`` 5,000 into a table created beforehand. Freshness is read through
the table (:class:`bench.table_probe.TableProbe`), commit cadence and table lag by bench/table_metrics.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.iceberg_connect import PLUGIN, create_orders_table, missing_reason
from bench.iceberg_connect_runs import connect_command
from bench.kafka_io import create_topic
from bench.streaming_metrics import percentiles
from bench.table_metrics import coordinator_commits, snapshot_cadence, table_lag
from bench.table_probe import TableProbe
from lakesink.adapters.demo.s3 import S3Endpoint
from tests.support.connect_standalone import install_plugin
from tests.support.iceberg_rest import IcebergRestServer, iceberg_rest_missing_reason

TABLE_FORMAT = "iceberg"
CONNECTOR = "iceberg-connect"
CONNECTOR_TABLE = "bench.orders_iceberg_connect"
STOP_TIMEOUT_S = 60.0
"""The connector's launcher stops its worker on SIGTERM (and keeps the worker's log) within this."""


def start_catalog(endpoint: S3Endpoint) -> IcebergRestServer:
    """Iceberg's REST catalog for one step, its tables on the step's S3 server; the caller closes it.

    Raises:
        RuntimeError: its jars or Java are missing here, or it did not serve.
    """
    reason = iceberg_rest_missing_reason()
    if reason is not None:
        raise RuntimeError(reason)
    server = IcebergRestServer(s3_endpoint=endpoint.url)
    server.start()
    return server


def connector_command(work: Path, log_dir: Path, name: str, *, bootstrap: str, topic: str, bucket: str,
                      endpoint: S3Endpoint, catalog: IcebergRestServer,
                      commit_ms: int) -> tuple[list[str], dict[str, str]]:
    """The connector's continuous launcher for connector ``name`` (group ``connect-<name>``), after its table
    (in ``bucket``) and control topic exist and its plugin directory is built (once, under ``work``).

    Raises:
        RuntimeError: the connector cannot run here (its jars, Java or Kafka's are missing).
    """
    reason = missing_reason()
    if reason is not None:
        raise RuntimeError(reason)
    plugin_path = work / "iceberg-connect-plugins"
    if not plugin_path.is_dir():
        install_plugin(PLUGIN, plugin_path)
    create_orders_table(catalog.catalog(), CONNECTOR_TABLE, location=f"s3://{bucket}/out")
    control = f"{topic}-{name}-control"
    create_topic(bootstrap, control, 1)
    argv, env = connect_command(name, bootstrap=bootstrap, topic=topic, table=CONNECTOR_TABLE,
                                catalog_uri=catalog.uri, control_topic=control, endpoint=endpoint,
                                commit_ms=commit_ms, plugin_path=plugin_path, keep_log=connector_log(log_dir, name))
    return [*argv, "--continuous"], env


def connector_log(log_dir: Path, name: str) -> Path:
    """Where the connector's launcher keeps its worker's log when it stops."""
    return log_dir / f"{name}-connect.log"


def table_figures(probe: TableProbe, samples: list[Any], start: float, end: float) -> dict[str, Any]:
    """Commit cadence during the step (snapshots made between ``start`` and ``end``, epoch seconds), and the
    table lag at each sample of the step: what a reader of the table waits for, whatever the sink reports."""
    during = [s for s in probe.snapshots if start * 1000 <= s.committed_ms <= end * 1000]
    inside = [s for s in samples if start <= s.at <= end]
    lags = table_lag([s.at * 1000 for s in inside], [s.high for s in inside], probe.snapshots, probe.rows_before)
    rows = max((s.total_records for s in probe.snapshots), default=probe.rows_before)
    return {**snapshot_cadence(during, end - start), "table_lag": percentiles(lags), "rows_at_end": rows,
            "produced_at_end": samples[-1].high}


def connector_commits(log: Path, start: float, end: float) -> dict[str, Any]:
    """The connector's commit durations from its coordinator's log lines (bench/table_metrics.py)."""
    return coordinator_commits(log.read_text(errors="replace") if log.exists() else "", start, end)

