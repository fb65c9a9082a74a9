"""A Spark task's final failure, read back as the lakesink error it raised on the executor.

After Spark's retries, PySpark hands the driver a ``PythonException`` wrapping the executor's whole
traceback. A lakesink error there already says in one line what to do; this finds and rebuilds it
(:func:`~lakesink.domain.errors.error_of_kind`), so the CLI prints that line and picks its exit code
as if raised on the driver. Anything else (a bug) stays Spark's exception.
"""

from __future__ import annotations

import re

from lakesink.domain.errors import LakesinkError, error_of_kind

_RAISED = re.compile(r"^lakesink\.[\w.]+\.(?P<kind>\w+): (?P<message>.*)$")
"""A traceback's last line when a lakesink error ended it: ``lakesink.domain.errors.StorageError: …``."""


def raised_in_task(failure: Exception) -> LakesinkError | None:
    """The lakesink error that ended the task's Python traceback in ``failure``'s text, or None."""
    lines = str(failure).rstrip().splitlines()
    for index in range(len(lines) - 1, -1, -1):
        found = _RAISED.match(lines[index])
        if found is not None:
            message = "\n".join([found["message"], *lines[index + 1:]]).strip()
            error = error_of_kind(found["kind"], message)
            return error if type(error).__name__ == found["kind"] else None
        if lines[index].startswith("Traceback (most recent call last):"):
            return None
    return None
