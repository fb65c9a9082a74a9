"""Apache Iceberg's own REST catalog server for the tests, from the jars ``make install`` fetched into
``.tools/maven/iceberg-rest`` (tools/iceberg-rest/pom.xml pins the version).

It is the server of Iceberg's REST compatibility kit: the REST routes of Iceberg's own
``RESTCatalogAdapter`` in front of a ``JdbcCatalog`` on an in-memory SQLite
database, which lives as long as the server, through one pooled connection (a second one, which the
pool opens when two requests overlap, would see an empty database: "no such table: iceberg_tables").
Its ``ResolvingFileIO`` writes each table's metadata
where the table lives: a local directory (``file:``, Hadoop's local file system) or S3 (``s3:``,
Iceberg's S3FileIO) at the moto server it was started for. Tests share one server and keep apart by
table names (:func:`tests.conftest.unique_name`).

Iceberg's ``RESTCatalogServer`` binds every interface (Jetty's ``Server(port)``), which the class does
not let one narrow, so the fixture runs the same routes from ``IcebergRestLoopback.java`` beside this
file, which binds 127.0.0.1 only, with the catalog's properties in a file of the server's directory.
The JVM dies with the pytest that started it (:func:`tests.support.jvm_process.dies_with_pytest`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from lakesink.adapters.demo.s3 import free_port
from tests.support.jvm_process import dies_with_pytest, keep_log, stop_gracefully
from tests.support.kafka_broker import REPO

if TYPE_CHECKING:
    from pyiceberg.catalog.rest import RestCatalog

JARS = REPO / ".tools" / "maven" / "iceberg-rest"

#: The launcher: Iceberg's REST routes on 127.0.0.1 (run from source by Java's single-file launcher).
LAUNCHER = Path(__file__).with_name("IcebergRestLoopback.java")


def iceberg_rest_missing_reason() -> str | None:
    """Why the REST catalog server cannot start here (one line naming what to install), or None."""
    if not (JARS / "VERSION").is_file():
        return (
            f"Apache Iceberg's REST catalog jars are not in {JARS.relative_to(REPO)}: run `make install` (needs "
            "Java 17 and Maven 3.8+ with access to Maven Central)"
        )
    if shutil.which("java") is None:
        return "no `java` on PATH: Apache Iceberg's REST catalog needs Java 17"
    return None


def iceberg_version() -> str:
    """The Apache Iceberg version of the server (tools/iceberg-rest/pom.xml)."""
    return (JARS / "VERSION").read_text().strip()


class IcebergRestServer:
    """Iceberg's REST catalog server on a free port of 127.0.0.1; use as a context manager.

    With ``s3_endpoint`` (a moto server's URL), its S3FileIO reaches tables there (``s3://bucket/...``,
    moto's ``testing`` credentials); tables in a local directory (``file:``) are reached either way.
    """

    def __init__(self, s3_endpoint: str | None = None) -> None:
        self._s3_endpoint = s3_endpoint
        self._dir = Path(tempfile.mkdtemp(prefix="lakesink-iceberg-rest-"))
        self._port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> IcebergRestServer:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    @property
    def uri(self) -> str:
        """The catalog's base URL, ``http://127.0.0.1:PORT`` (what ``table.catalog.uri`` names)."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def pid(self) -> int | None:
        """The server JVM's process id while it runs (the benchmark counts its CPU)."""
        return None if self._process is None else self._process.pid

    @property
    def log_path(self) -> Path:
        return self._dir / "server.log"

    def catalog(self) -> RestCatalog:
        """A pyiceberg client of this catalog, reaching the tables' files as the server does (pyiceberg
        is imported here: every test session loads this module, few tests ask for a catalog)."""
        from pyiceberg.catalog.rest import RestCatalog

        return RestCatalog("lakesink", uri=self.uri, **self._s3_io())

    def start(self, timeout_s: float = 60.0) -> None:
        """Start the JVM and wait until ``GET /v1/config`` answers."""
        if self._process is not None:
            return
        command = [
            "java", "-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
            "-cp", f"{JARS}/*", str(LAUNCHER), str(self._write_properties()),
        ]
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=dies_with_pytest(),
            )
        self._wait_until_serving(timeout_s)

    def close(self, keep_log_in: Path | None = None) -> None:
        """Stop the server (its catalog goes with it) and remove its directory; with ``keep_log_in``,
        copy its log there first."""
        if self._process is not None:
            stop_gracefully(self._process)
            self._process = None
        keep_log(self.log_path, keep_log_in)
        shutil.rmtree(self._dir, ignore_errors=True)

    def _write_properties(self) -> Path:
        """The catalog's properties for the launcher, in a file only this user reads (the S3 keys)."""
        properties = {
            "rest.port": str(self._port),
            "catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
            "uri": "jdbc:sqlite::memory:",
            "clients": "1",  # every pooled connection to :memory: opens an empty database of its own
            "jdbc.schema-version": "V1",
            "warehouse": (self._dir / "warehouse").as_uri(),
            "io-impl": "org.apache.iceberg.io.ResolvingFileIO",
            **self._s3_io(),
        }
        path = self._dir / "catalog.properties"
        path.touch(mode=0o600)
        path.write_text("".join(f"{name}={value}\n" for name, value in properties.items()))
        return path

    def _s3_io(self) -> dict[str, str]:
        if self._s3_endpoint is None:
            return {}
        return {
            "s3.endpoint": self._s3_endpoint, "s3.path-style-access": "true", "s3.access-key-id": "testing",
            "s3.secret-access-key": "testing", "s3.region": "us-east-1", "client.region": "us-east-1",
        }

    def _wait_until_serving(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process is not None and self._process.poll() is not None:
                output = self.log_path.read_text(errors="replace")[-4000:]
                raise RuntimeError(f"Iceberg's REST catalog exited with {self._process.returncode}: {output}")
            try:
                with urllib.request.urlopen(f"{self.uri}/v1/config", timeout=1):
                    return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Iceberg's REST catalog did not serve within {timeout_s:.0f} s; see {self.log_path}")
            time.sleep(0.1)
