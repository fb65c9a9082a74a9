"""TEST DOUBLE of a Confluent Schema Registry: only the calls lakesink's client makes.

Serves ``GET /schemas/ids/{id}`` from schemas registered in memory, on 127.0.0.1 and a free
port, optionally behind HTTP basic auth or a bearer token (Confluent Cloud's: ``Authorization:
Bearer <token>`` with the logical cluster in ``target-sr-cluster``). It counts requests so tests
can prove caching. It is not a registry: no subjects, versions or compatibility checks.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import fastavro


class SchemaRegistryDouble:
    """Start with ``with SchemaRegistryDouble(user_info="u:p") as registry: registry.url``;
    ``bearer=(token, logical_cluster)`` asks for a bearer token instead."""

    def __init__(self, *, user_info: str | None = None, bearer: tuple[str, str] | None = None) -> None:
        self._user_info = user_info
        self._bearer = bearer
        self._schemas: dict[int, str] = {}
        self.requests: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> SchemaRegistryDouble:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def register(self, schema: dict[str, Any]) -> int:
        """Store ``schema`` and return its new id (ids start at 1 like the real registry)."""
        schema_id = len(self._schemas) + 1
        self._schemas[schema_id] = json.dumps(schema)
        return schema_id

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                double.requests.append(self.path)
                if (double._user_info is not None or double._bearer is not None) and not self._authorised():
                    self._reply(401, {"error_code": 401, "message": "Unauthorized"})
                    return
                prefix = "/schemas/ids/"
                if not self.path.startswith(prefix) or not self.path[len(prefix):].isdigit():
                    self._reply(404, {"error_code": 404, "message": "HTTP 404 Not Found"})
                    return
                schema = double._schemas.get(int(self.path[len(prefix):]))
                if schema is None:
                    self._reply(404, {"error_code": 40403, "message": "Schema not found"})
                    return
                self._reply(200, {"schema": schema})

            def _authorised(self) -> bool:
                if double._bearer is not None:
                    token, cluster = double._bearer
                    return (self.headers.get("Authorization"), self.headers.get("target-sr-cluster")) == (
                        f"Bearer {token}", cluster
                    )
                expected = "Basic " + base64.b64encode(str(double._user_info).encode()).decode()
                return self.headers.get("Authorization") == expected

            def _reply(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        return Handler


def confluent_avro(schema_id: int, schema: dict[str, Any], datum: Any) -> bytes:
    """``datum`` in the Confluent wire format, as a producer's AvroSerializer writes it."""
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(schema), datum)
    return struct.pack(">bI", 0, schema_id) + body.getvalue()
