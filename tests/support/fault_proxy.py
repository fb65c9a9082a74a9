"""A tiny HTTP reverse proxy that fails chosen requests: the SDK retries the adapters configure
(contract-tests/) and the sink riding through a faulty network (the fault matrix:
tests/integration/sink/test_store_faults.py and the tests named in RELIABILITY.md).

It forwards every request to the real emulator, except the ones picked by :meth:`FaultProxy.fail_next`
(the next N matching requests), :meth:`FaultProxy.fail_every` (every n-th matching request) or
:meth:`FaultProxy.fail_randomly` (each request with a probability, the fault drawn from several).
A picked request meets one of these faults:

- ``"503"``: answered with 503 ``ServiceUnavailable`` without reaching the emulator (a reply every
  SDK classifies as transient; botocore does not count it as throttling, so it backs off from its
  short base);
- ``"throttle"``: answered with 503 ``SlowDown`` (S3's throttling reply: botocore backs off from 1 s);
- ``"reset"``: the connection is reset (TCP RST) before the request reaches the emulator;
- ``"lose-response"``: the request *is* forwarded and applied, then the connection is reset instead
  of sending the answer: a response lost on the way back, the case that makes a retried
  conditional write meet its own first attempt;
- ``"slow"``: the request is forwarded and applied, and its answer held back for a while (up to
  :attr:`FaultProxy.slow_s`) before it is sent;
- ``"not-implemented"``: answered with 501 ``NotImplemented`` (what S3-compatible stores answer to a
  feature they lack, e.g. a conditional write): a 5xx that is no transient failure.
"""

from __future__ import annotations

import http.client
import random
import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Collection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
               "content-length"}
_MODES = ("503", "throttle", "reset", "lose-response", "slow", "not-implemented")
_ERROR_BODY = {
    "503": (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code>'
            b"<Message>Service is unable to handle request.</Message></Error>"),
    "throttle": (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
                 b"<Message>Please reduce your request rate.</Message></Error>"),
    "not-implemented": (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code>'
                        b"<Message>A header you provided implies functionality that is not implemented.</Message>"
                        b"</Error>"),
}
_STATUS = {"503": 503, "throttle": 503, "not-implemented": 501}


class _QuietServer(ThreadingHTTPServer):
    """A client that drops its connection (an SDK giving up on a slow answer) is no error to print."""

    def handle_error(self, request: object, client_address: object) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class FaultProxy:
    """Start with :meth:`start`; point an adapter at :attr:`url`; arm faults with :meth:`fail_next`
    or :meth:`fail_every`."""

    def __init__(self, upstream: str, *, slow_s: float = 2.0) -> None:
        parts = urlsplit(upstream)
        self.slow_s = slow_s
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.upstream_path = parts.path.rstrip("/")
        self._lock = threading.Lock()
        self._failures_left = 0
        self._every = 0
        self._mode = "503"
        self._rate = 0.0
        self._random_modes: tuple[str, ...] = ()
        self._rng = random.Random(0)
        self._matched = 0
        self.requests_seen = 0
        self.faults_served = 0
        self.served: Counter[tuple[str, str]] = Counter()  # (fault, HTTP method) -> faults served
        self._match = ""
        self._methods: Collection[str] = ()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
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

    def fail_next(self, count: int, mode: str = "503", *, path_contains: str = "",
                  methods: Collection[str] = ()) -> None:
        """Fail the next ``count`` requests that mention ``path_contains`` (in the path or the body)
        and, when ``methods`` is given, use one of those HTTP methods.

        Filtering keeps background calls an SDK makes on its own (google-cloud-storage fetches bucket
        metadata) from eating the faults; the body counts because some uploads name the object
        there (GCS multipart uploads) rather than in the path.
        """
        self._arm(mode, match=path_contains, methods=methods, failures=count, every=0)

    def fail_every(self, every: int, mode: str = "503", *, path_contains: str = "",
                   methods: Collection[str] = ()) -> None:
        """Fail every ``every``-th request that mentions ``path_contains``, until re-armed.

        With ``every >= 2`` the retry of a failed request is never failed itself (requests are
        sequential in the tests), so an SDK that retries at least once rides through.
        """
        if every < 2:
            raise ValueError("every must be at least 2, or no request would get through")
        self._arm(mode, match=path_contains, methods=methods, failures=0, every=every)

    def fail_randomly(self, rate: float, modes: Collection[str], *, seed: int) -> None:
        """Fail each request with probability ``rate``, with a fault drawn evenly from ``modes``.

        Picks come from a generator seeded with ``seed``, in the order requests arrive: concurrent
        clients make the order, so a seed replays the mix of faults, not which request met which.
        """
        if not 0 < rate < 1:
            raise ValueError("rate must be between 0 and 1")
        self._arm(*modes, match="", methods=(), failures=0, every=0)
        with self._lock:
            self._rate, self._random_modes, self._rng = rate, tuple(modes), random.Random(seed)

    def heal(self) -> None:
        """Stop failing requests (what was served stays counted)."""
        with self._lock:
            self._failures_left = self._every = 0
            self._rate = 0.0

    def _arm(self, *modes: str, match: str, methods: Collection[str], failures: int, every: int) -> None:
        unknown = [mode for mode in modes if mode not in _MODES]
        if unknown or not modes:
            raise ValueError(f"unknown fault mode {unknown}; one of {', '.join(_MODES)}")
        with self._lock:
            self._failures_left, self._every, self._mode, self._match = failures, every, modes[0], match
            self._methods = frozenset(m.upper() for m in methods)
            self._rate = 0.0
            self._matched = self.requests_seen = self.faults_served = 0
            self.served.clear()

    def _take_fault(self, method: str, path: str, body: bytes) -> str | None:
        with self._lock:
            self.requests_seen += 1
            if self._methods and method not in self._methods:
                return None
            if self._match not in path and self._match.encode() not in body:
                return None
            self._matched += 1
            if self._rate:
                if self._rng.random() >= self._rate:
                    return None
                mode = self._rng.choice(self._random_modes)
                self.faults_served += 1
                self.served[mode, method] += 1
                return mode
            if self._every:
                picked = self._matched % self._every == 0
            else:
                picked = self._failures_left > 0
                self._failures_left -= picked
            if not picked:
                return None
            self.faults_served += 1
            self.served[self._mode, method] += 1
            return self._mode

    def _refusal(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes] | None:
        """A store's own answer (status, XML body) to a request it refuses, before any fault; None
        forwards it. Stores that differ from the emulator override this (see checksum_rejecting_s3.py)."""
        return None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def _handle(self) -> None:
                body = self._read_body()
                refusal = proxy._refusal(self.command, self.path, dict(self.headers.items()))
                if refusal is not None:
                    self._reply(refusal[0], [("Content-Type", "application/xml")], refusal[1])
                    return
                fault = proxy._take_fault(self.command, self.path, body)
                if fault == "reset":
                    self._reset()
                    return
                if fault in _ERROR_BODY:
                    self._reply(_STATUS[fault], [("Content-Type", "application/xml")], _ERROR_BODY[fault])
                    return
                upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                    headers["Content-Length"] = str(len(body))
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    payload = response.read()
                    if fault == "lose-response":  # applied upstream; the client never hears of it
                        self._reset()
                        return
                    if fault == "slow":
                        time.sleep(random.uniform(proxy.slow_s / 2, proxy.slow_s))
                    kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _HOP_BY_HOP]
                    self._reply(response.status, kept, payload, declared=response.getheader("Content-Length"))
                finally:
                    upstream.close()

            def _reset(self) -> None:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True

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
