"""The throw-away services ``lakesink demo`` (and the slow tests) run against, all on 127.0.0.1.

A fresh machine has no Kafka broker and no S3 account, so the demo brings its own: librdkafka's
mock cluster (:class:`~lakesink.adapters.kafka.embedded_broker.EmbeddedKafka`) and moto's S3
server. Both live in this process and die with it; :class:`DemoServices` stops them on any exit,
Ctrl-C included, because it is a context manager and every start is undone in reverse order.
"""

from __future__ import annotations

import logging
import socket
from contextlib import ExitStack
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka

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


class MotoS3:
    """moto's S3 server on a free 127.0.0.1 port, in a thread of this process."""

    def __init__(self) -> None:
        self._server: Any = None
        self._endpoint: S3Endpoint | None = None

    def start(self) -> S3Endpoint:
        """Start the server; raises RuntimeError naming the package when moto is missing."""
        try:
            from moto.server import ThreadedMotoServer
        except ImportError as missing:
            raise RuntimeError("moto[server] is not installed; run `make install`.") from missing
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

    def create_bucket(self, bucket: str) -> None:
        self.endpoint.client().create_bucket(Bucket=bucket)


class DemoServices:
    """Embedded Kafka plus moto S3; use as a context manager so both always stop."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self.kafka = EmbeddedKafka()
        self.s3 = MotoS3()

    def __enter__(self) -> DemoServices:
        with ExitStack() as starting:
            starting.enter_context(self.kafka)
            self.s3.start()
            starting.callback(self.s3.stop)
            self._stack = starting.pop_all()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stack.close()
