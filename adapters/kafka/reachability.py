"""Is the Kafka cluster there, and does it accept the client? One metadata request, before Spark starts.

librdkafka retries an unreachable broker for the whole timeout, a line per attempt, and a wrong
password looks like a timeout. This asks for metadata once, with a short timeout and the client's
log kept quiet, and names the settings to fix: unreachable is the environment's problem
(:class:`~lakesink.domain.errors.KafkaUnavailableError`, exit 1), rejected credentials or TLS the
config's (:class:`~lakesink.domain.errors.ConfigError`, exit 2).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from lakesink.adapters.kafka.client_config import error_text
from lakesink.domain.errors import ConfigError, KafkaUnavailableError

PROBE_TIMEOUT_S = 10.0
_STEP_S = 0.5
"""The metadata request is re-sent this often: between tries the client's error callback says whether
the cluster refused the credentials. librdkafka retries a failed login for as long as a call waits,
so without that a wrong password took the whole timeout to surface."""
_DETAIL = re.compile(r"\]: (?:[^ ]+/(?:bootstrap|\d+): )?(.*)$")
# librdkafka's own phrases (matched in what it says, never in a broker's host name)
_AUTH = re.compile(r"SASL authentication error|Authentication failed|SASL handshake failed|"
                   r"SASL_AUTHENTICATION_FAILED|_AUTHENTICATION|authorization failed", re.IGNORECASE)
_TLS = re.compile(r"SSL handshake failed|certificate verify failed|SSL routines|_SSL\b", re.IGNORECASE)


class _Lines(logging.Handler):
    """The probe client's log lines, kept (not printed): the error quotes the last one."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def kafka_topics(config: Mapping[str, Any], *, timeout_s: float | None = None) -> frozenset[str]:
    """The names of the cluster's topics (waiting at most ``timeout_s``, default :data:`PROBE_TIMEOUT_S`).

    Raises:
        KafkaUnavailableError: no broker answered within ``timeout_s``.
        ConfigError: the cluster refused the client's credentials or its TLS settings.
    """
    timeout_s = PROBE_TIMEOUT_S if timeout_s is None else timeout_s
    lines = _Lines()
    probe_logger = logging.getLogger("lakesink.kafka.probe")
    probe_logger.propagate = False
    probe_logger.setLevel(logging.DEBUG)
    probe_logger.addHandler(lines)
    refused: list[KafkaError] = []

    def on_error(error: KafkaError) -> None:
        if error.code() == KafkaError._AUTHENTICATION:
            refused.append(error)

    try:
        admin = AdminClient({**config, "error_cb": on_error}, logger=probe_logger)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                metadata = admin.list_topics(timeout=max(0.1, min(_STEP_S, deadline - time.monotonic())))
                return frozenset(metadata.topics)
            except KafkaException as exc:
                admin.poll(0)  # serves the log lines and errors queued during the request
                if refused or time.monotonic() >= deadline:
                    raise _problem(config, exc, lines.lines, timeout_s) from None
    finally:
        probe_logger.removeHandler(lines)


def _problem(config: Mapping[str, Any], exc: KafkaException, lines: list[str], timeout_s: float) -> Exception:
    servers = config.get("bootstrap.servers", "")
    error = exc.args[0] if exc.args else None
    logged = [text for text in map(_detail, lines) if text]
    final = error_text(exc)
    said = [*logged, final]
    cause = logged[-1] if logged else final  # what the client saw ("Connection refused"), else its verdict
    codes = f" {error.name()}" if hasattr(error, "name") else ""
    text = " ".join(said) + codes
    if _AUTH.search(text):
        user = config.get("sasl.username")
        whose = f"user '{user}' and its password" if user else "the user and password"
        return ConfigError(
            f"Kafka at bootstrap.servers={servers} refused the client ({cause}); check {whose} in sasl.jaas.config "
            "(or sasl.username / sasl.password), sasl.mechanism and security.protocol."
        )
    if _TLS.search(text):
        return ConfigError(
            f"TLS to Kafka at bootstrap.servers={servers} failed ({cause}); check security.protocol and "
            "ssl.ca.location (and ssl.certificate.location / ssl.key.location for client certificates)."
        )
    return KafkaUnavailableError(
        f"No Kafka broker at bootstrap.servers={servers} answered within {timeout_s:g} s ({cause}); check "
        "bootstrap.servers, and security.protocol if the cluster uses TLS or SASL."
    )


def _detail(line: str) -> str:
    """What a librdkafka line says, without its facility, client and thread prefix."""
    match = _DETAIL.search(line)
    return (match.group(1) if match else line).strip()
