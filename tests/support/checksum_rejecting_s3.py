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

import threading
from urllib.parse import urlsplit

from tests.support.fault_proxy import FaultProxy

_CHECKSUM_HEADERS = ("x-amz-checksum-", "x-amz-sdk-checksum-algorithm", "x-amz-trailer")
_STYLES = {
    "b2": (400, "InvalidArgument", "Unsupported header '{name}' received for this API call."),
    "r2": (501, "NotImplemented", "Header '{name}' with value '{value}' not implemented"),
}


class ChecksumRejectingS3(FaultProxy):
    """Start with :meth:`start`, point a client at :attr:`url`; :attr:`refused` counts the refusals.

    A :class:`~tests.support.fault_proxy.FaultProxy` whose store refuses checksum headers (and which
    serves no faults unless armed).
    """

    def __init__(self, upstream: str, style: str = "b2") -> None:
        super().__init__(upstream)
        self._style = _STYLES[style]
        self._refusals = threading.Lock()
        self.refused: list[str] = []
        """``METHOD path`` of every request refused, in order."""

    def _refusal(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, bytes] | None:
        """The chosen store's refusal of a request carrying a checksum header; None forwards it."""
        if method == "POST" and "delete" in urlsplit(path).query.split("&"):
            return None
        offending = next((name for name in headers if name.lower().startswith(_CHECKSUM_HEADERS)), None)
        if offending is None:
            return None
        with self._refusals:
            self.refused.append(f"{method} {urlsplit(path).path}")
        status, code, message = self._style
        text = message.format(name=offending.lower(), value=headers[offending])
        body = f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{text}</Message></Error>'
        return status, body.encode()
