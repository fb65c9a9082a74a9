"""One SDK client per storage settings per process, shared by every adapter instance.

Spark ships a fresh store to every task, and a boto3 client costs ~0.4 s of CPU (botocore's service
model), more than a small task's write: the first task of an executor process builds it, later
tasks reuse it (SDK clients are thread-safe, hold no per-task state). The process id is part of the
key: a client inherited through ``fork`` must not be used by the child.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import Any

from lakesink.domain.extras import needs_extra

_CLIENTS: dict[tuple[int, str, Hashable], Any] = {}
_LOCK = threading.Lock()


def shared_client(kind: str, settings: Hashable, build: Callable[[Hashable], Any]) -> Any:
    """The ``kind`` client for ``settings`` in this process, built with ``build(settings)`` once.

    ``settings`` is a frozen settings dataclass: equal settings (secrets compared by value)
    share a client, any difference (endpoint, credentials, timeouts) gets its own. ``kind`` is
    also the extra of lakesink that installs its SDK (``s3``, ``gcs``, ``azure``): the adapters
    import their SDK in ``build``, so without it this raises :class:`MissingExtraError` naming it.
    """
    key = (os.getpid(), kind, settings)
    with _LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            with needs_extra(kind):
                client = _CLIENTS[key] = build(settings)
        return client
