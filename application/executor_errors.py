"""Turn a failure that crossed the Spark boundary back into the lakesink error it started as.

An exception raised in a Python worker reaches the driver as a Spark/Py4J error whose text holds
the worker's traceback. The sink needs the original class to apply ``error.policy``, to stop on
a fencing conflict and to pick the CLI's exit code, so the last lakesink error named in that text
is rebuilt (same class, same message).
"""

from __future__ import annotations

import re

from lakesink.domain import errors

_RAISED = re.compile(r"lakesink\.domain\.errors\.(\w+): ([^\n]*)")


def lakesink_error_of(exc: BaseException) -> errors.LakesinkError | None:
    """The lakesink error ``exc`` is or carries, or None when it is something else."""
    if isinstance(exc, errors.LakesinkError):
        return exc
    matches = _RAISED.findall(str(exc))
    for name, message in reversed(matches):
        cls = getattr(errors, name, None)
        if isinstance(cls, type) and issubclass(cls, errors.LakesinkError) and cls is not errors.KcqlError:
            return cls(message)
    return None
