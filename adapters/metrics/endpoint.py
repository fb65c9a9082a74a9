"""One command's Prometheus registry served over HTTP: what the sink's, the restore's and verify's metrics share.

Each command's metrics live in a :class:`~prometheus_client.CollectorRegistry` of their own (not the
process-wide one, so two runs in one process, tests, and a library user's own metrics never clash);
:meth:`MetricsEndpoint.serve` exposes it on ``http://HOST:PORT/metrics`` from a daemon thread.
"""

from __future__ import annotations

import logging
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server

logger = logging.getLogger(__name__)


class MetricsEndpoint:
    """A registry of its own and, once :meth:`serve` is called, the HTTP endpoint that exposes it."""

    def __init__(self, connector: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._connector = connector
        self._server: WSGIServer | None = None

    def serve(self, port: int, host: str) -> None:
        """Serve the registry on ``http://host:port/metrics`` (port 0: any free port, see :attr:`port`).

        Raises:
            OSError: the address is taken or cannot be bound.
        """
        self._server, _thread = start_http_server(port, addr=host, registry=self.registry)
        logger.info("Prometheus metrics of %s on http://%s:%d/metrics", self._connector, host, self.port)

    @property
    def port(self) -> int:
        """The port the endpoint listens on (the one chosen for port 0)."""
        if self._server is None:
            raise RuntimeError("the metrics endpoint is not served")
        return int(self._server.server_port)

    def close(self) -> None:
        """Stop serving (a no-op when not serving)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
