"""Credentials out of the log at every level: what the SDKs print at DEBUG is redacted before it is written.

lakesink's own messages never hold a secret (a :class:`~lakesink.domain.config.secret.Secret` never
prints), but at DEBUG botocore logs each request's ``Authorization`` header and other clients print
signed URLs or connection strings, so the CLI's log handler formats every line through
:class:`RedactingFormatter`, tracebacks included.
See docs/operations.md, "Credentials: where they go, where they never show".
"""

from __future__ import annotations

import logging
import re

REDACTED = "<redacted>"

_PATTERNS = (
    # a header in a printed dict or request: 'Authorization': b'AWS4-HMAC-SHA256 Credential=...'
    re.compile(r"""(?i)(['"]?(?:authorization|proxy-authorization|x-amz-security-token|x-ms-copy-source-authorization)"""
               r"""['"]?\s*[:=]\s*b?)(['"])(?:(?!\2).)*\2"""),
    # the same header as plain text (HTTP dumps): Authorization: Basic dXNlcjpw...
    re.compile(r"(?im)^((?:proxy-)?authorization:\s*)\S.*$"),
    # signed queries and SAS tokens: X-Amz-Credential=..., X-Amz-Signature=..., sig=..., AWS4 Credential=...
    re.compile(r"(?i)((?:x-amz-credential|x-amz-signature|x-amz-security-token|credential|signature|sig)=)"
               r"[^&\s'\",;]+"),
    # Azure connection strings
    re.compile(r"(?i)((?:accountkey|sharedaccesssignature)=)[^;\s'\"]+"),
)


def redact(text: str) -> str:
    """``text`` with every credential-looking value (headers, signed query parameters, keys) replaced."""
    for pattern in _PATTERNS:
        text = pattern.sub(lambda match: match.group(1) + _quoted(match), text)
    return text


def _quoted(match: re.Match[str]) -> str:
    quote = match.group(2) if (match.re.groups or 0) >= 2 else ""
    return f"{quote}{REDACTED}{quote}"


class RedactingFormatter(logging.Formatter):
    """A :class:`logging.Formatter` whose output (message, arguments and traceback) went through :func:`redact`."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))
