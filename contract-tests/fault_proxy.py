"""A tiny HTTP reverse proxy that fails the first N requests, to prove the adapters' retry logic.

It forwards every request to the real emulator, except that while ``failures_left > 0`` a request
is answered with 503 ``SlowDown`` (a throttling reply every SDK classifies as retryable) or has its
connection reset (TCP RST, the classic flaky-network failure).
"""

from __future__ import annotations

import http.client
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
               "content-length"}
_SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
              b"<Message>Please reduce your request rate.</Message></Error>")


class FaultProxy:
    """Start with :meth:`start`; point an adapter at :attr:`url`; arm faults with :meth:`fail_next`."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.upstream_path = parts.path.rstrip("/")
        self._lock = threading.Lock()
        self._failures_left = 0
        self._mode = "503"
        self.requests_seen = 0
        self.faults_served = 0
        self._match = ""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.upstream_path}"

    def start(self) -> FaultProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail_next(self, count: int, mode: str = "503", *, path_contains: str = "") -> None:
        """Fail the next ``count`` requests whose path contains ``path_contains``.

        ``mode`` is "503" (SlowDown) or "reset". Filtering by path keeps background calls an SDK
        makes on its own (google-cloud-storage fetches bucket metadata) from eating the faults.
        """
        with self._lock:
            self._failures_left, self._mode, self._match = count, mode, path_contains
            self.requests_seen = self.faults_served = 0

    def _take_fault(self, path: str) -> str | None:
        with self._lock:
            self.requests_seen += 1
            if self._failures_left <= 0 or self._match not in path:
                return None
            self._failures_left -= 1
            self.faults_served += 1
            return self._mode

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def _handle(self) -> None:
                body = self._read_body()
                fault = proxy._take_fault(self.path)
                if fault == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if fault is not None:
                    self._reply(503, [("Content-Type", "application/xml")], _SLOW_DOWN)
                    return
                upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                    headers["Content-Length"] = str(len(body))
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    payload = response.read()
                    kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _HOP_BY_HOP]
                    self._reply(response.status, kept, payload, declared=response.getheader("Content-Length"))
                finally:
                    upstream.close()

            def _read_body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _reply(self, status: int, headers: list[tuple[str, str]], payload: bytes,
                       declared: str | None = None) -> None:
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                # HEAD answers keep the upstream's declared length but carry no body.
                length = declared if self.command == "HEAD" and declared is not None else str(len(payload))
                self.send_header("Content-Length", length)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = _handle

        return Handler
