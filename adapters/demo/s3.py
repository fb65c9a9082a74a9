"""The S3 side of ``lakesink demo`` (and of the slow tests and the benchmark), all on 127.0.0.1.

A fresh machine has no S3 account, so the demo brings moto's S3 server (:class:`MotoS3`), which
lives in a thread of this process, and reads the sink's output back through plain boto3
(:class:`S3Bucket`), never through lakesink's own S3 adapter.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lakesink.adapters.demo.readback import ListedObject, StoredRow, rows_of_object
from lakesink.domain.extras import needs_extra

DEMO_ACCESS_KEY = "demo-access-key"
"""moto accepts any credentials; these are fixed, public, and guard nothing."""
DEMO_SECRET_KEY = "demo-secret-key"
DEMO_REGION = "us-east-1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True, slots=True)
class S3Endpoint:
    """Where an S3-compatible server answers and the credentials it accepts."""

    url: str
    access_key: str = DEMO_ACCESS_KEY
    secret_key: str = DEMO_SECRET_KEY
    region: str = DEMO_REGION

    def client(self) -> Any:
        """A plain boto3 S3 client for this endpoint (path-style, as moto and MinIO want).

        Deliberately not lakesink's S3 adapter: the demo and the tests read the output back
        with code that shares nothing with the writer.
        """
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.url,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name=self.region,
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3}),
        )

    def connector_settings(self) -> dict[str, str]:
        """The ``connect.s3.*`` keys a sink config needs to write here."""
        return {
            "connect.s3.aws.auth.mode": "Credentials",
            "connect.s3.aws.access.key": self.access_key,
            "connect.s3.aws.secret.key": self.secret_key,
            "connect.s3.aws.region": self.region,
            "connect.s3.custom.endpoint": self.url,
            "connect.s3.path.style.access": "true",
        }


class S3Bucket:
    """An S3 bucket read through plain boto3."""

    def __init__(self, endpoint: S3Endpoint, bucket: str) -> None:
        self.name = bucket
        self._client = endpoint.client()

    def list(self, prefix: str = "") -> list[ListedObject]:
        found: list[ListedObject] = []
        for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self.name, Prefix=prefix):
            found.extend(ListedObject(item["Key"], int(item["Size"])) for item in page.get("Contents", []))
        return found

    def read(self, key: str) -> bytes:
        return bytes(self._client.get_object(Bucket=self.name, Key=key)["Body"].read())

    def rows(self, key: str) -> Iterator[StoredRow]:
        """The envelope rows of the object ``key`` (see :func:`~lakesink.adapters.demo.readback.rows_of_object`)."""
        return rows_of_object(key, self.read(key))


class MotoS3:
    """moto's S3 server on a free 127.0.0.1 port, in a thread of this process."""

    name = "S3 (moto)"

    def __init__(self) -> None:
        self._server: Any = None
        self._endpoint: S3Endpoint | None = None

    def start(self) -> S3Endpoint:
        """Start the server; without moto (a core install) :class:`MissingExtraError` names the demo extra."""
        with needs_extra("demo"):
            from moto.server import ThreadedMotoServer
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one INFO line per request otherwise
        port = free_port()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        self._server.start()
        self._endpoint = S3Endpoint(f"http://127.0.0.1:{port}")
        return self._endpoint

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None
        self._endpoint = None

    @property
    def endpoint(self) -> S3Endpoint:
        if self._endpoint is None:
            raise RuntimeError("MotoS3 is not started")
        return self._endpoint

    @property
    def url(self) -> str:
        return self.endpoint.url

    def connector_settings(self) -> dict[str, str]:
        """The ``connect.s3.*`` keys a sink config needs to write here."""
        return self.endpoint.connector_settings()

    def create_bucket(self, bucket: str) -> None:
        self.endpoint.client().create_bucket(Bucket=bucket)

    def bucket(self, bucket: str) -> S3Bucket:
        """The bucket ``bucket`` of this server, read through plain boto3."""
        return S3Bucket(self.endpoint, bucket)
