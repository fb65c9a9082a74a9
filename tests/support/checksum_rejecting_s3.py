"""An S3 endpoint that refuses boto3's default checksums, as many S3-compatible stores do: a proxy to moto.

Since botocore 1.36 the S3 client sends a CRC32 with every upload (``x-amz-checksum-crc32`` and
``x-amz-sdk-checksum-algorithm``, or an ``x-amz-trailer`` over HTTPS) and asks for checksums on
reads (``x-amz-checksum-mode``). This proxy answers such a request the way the chosen store does,
without forwarding it, and forwards every other request to the moto server untouched:

* ``"b2"``: 400 ``InvalidArgument`` "Unsupported header '<name>' received for this API call."
  (Backblaze B2);
* ``"r2"``: 501 ``NotImplemented`` "Header '<name>' with value '<value>' not implemented"
  (Cloudflare R2 until early 2025).

Operations whose checksum the S3 API requires (``DeleteObjects``: ``POST ?delete``) pass: botocore
sends a CRC32 there in every mode, so a store refusing it cannot be reached by any setting.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length"}
_CHECKSUM_HEADERS = ("x-amz-checksum-", "x-amz-sdk-checksum-algorithm", "x-amz-trailer")
_STYLES = {
    "b2": (400, "InvalidArgument", "Unsupported header '{name}' received for this API call."),
    "r2": (501, "NotImplemented", "Header '{name}' with value '{value}' not implemented"),
}


class ChecksumRejectingS3:
    """Start with :meth:`start`, point a client at :attr:`url`; :attr:`refused` counts the refusals."""

    def __init__(self, upstream: str, style: str = "b2") -> None:
        parts = urlsplit(upstream)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._style = _STYLES[style]
        self._lock = threading.Lock()
        self.refused: list[str] = []
        """``METHOD path`` of every request refused, in order."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> ChecksumRejectingS3:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _refusal(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes] | None:
        if method == "POST" and "delete" in urlsplit(path).query.split("&"):
            return None
        offending = next((name for name in headers if name.lower().startswith(_CHECKSUM_HEADERS)), None)
        if offending is None:
            return None
        with self._lock:
            self.refused.append(f"{method} {urlsplit(path).path}")
        status, code, message = self._style
        text = message.format(name=offending.lower(), value=headers[offending])
        body = f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{text}</Message></Error>'
        return status, body.encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def _handle(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                refusal = proxy._refusal(self.command, self.path, headers)
                if refusal is not None:
                    self._reply(refusal[0], [("Content-Type", "application/xml")], refusal[1])
                    return
                upstream = http.client.HTTPConnection(*proxy._upstream, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers={**headers, "Content-Length": str(len(body))})
                    response = upstream.getresponse()
                    payload = response.read()
                    kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _HOP_BY_HOP]
                    self._reply(response.status, kept, payload, declared=response.getheader("Content-Length"))
                finally:
                    upstream.close()

            def _reply(self, status: int, headers: list[tuple[str, str]], payload: bytes,
                       declared: str | None = None) -> None:
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                length = declared if self.command == "HEAD" and declared is not None else str(len(payload))
                self.send_header("Content-Length", length)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        return Handler
