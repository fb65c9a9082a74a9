"""A command's metrics endpoint served for the length of a block, or none: the sink's, the restore's and verify's.

Binding the address is the one thing that can go wrong, and it is the operator's choice of port or
host: a :class:`~lakesink.domain.errors.ConfigError` naming the flags (exit 2), before any work starts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

from lakesink.domain.errors import ConfigError

DEFAULT_HOST = "127.0.0.1"
FLAGS = "--metrics-port / --metrics-host"


class Endpoint(Protocol):
    """Metrics that can be served over HTTP (:class:`~lakesink.adapters.metrics.endpoint.MetricsEndpoint`)."""

    def serve(self, port: int, host: str) -> None:
        """Listen on ``host:port``."""

    def close(self) -> None:
        """Stop listening."""


E = TypeVar("E", bound=Endpoint)


def serve_or_refuse(endpoint: Endpoint, port: int, host: str, *, flags: str = FLAGS) -> None:
    """Serve ``endpoint`` on ``host:port``.

    Raises:
        ConfigError: the address cannot be listened on (taken, or not this machine's), naming ``flags``.
    """
    try:
        endpoint.serve(port, host)
    except OSError as error:
        raise ConfigError(
            f"Cannot serve the metrics on {host}:{port} ({error.strerror or error}): choose another {flags}."
        ) from None


@contextmanager
def serving(make: Callable[[], E], port: int | None, host: str | None) -> Iterator[E | None]:
    """The endpoint ``make`` builds, served on ``host`` (default 127.0.0.1) and ``port`` while the block
    runs; None, and nothing built, when no port is given.

    Raises:
        ConfigError: the address cannot be listened on.
    """
    if port is None:
        yield None
        return
    endpoint = make()
    serve_or_refuse(endpoint, port, host or DEFAULT_HOST)
    try:
        yield endpoint
    finally:
        endpoint.close()
