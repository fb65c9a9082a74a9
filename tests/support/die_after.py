"""Run the ``lakesink`` command and SIGKILL its whole process group the moment a named function returns.

``python -m tests.support.die_after lakesink.adapters.kafka.dead_letter_queue:KafkaDeadLetterQueue.send
-- sink --config F --once`` dies right after the dead-letter transaction committed and before the
store's locks are written: the narrowest dangerous moment, hit every time, which a kill timed from
outside would hit only by luck. The kill is the machine failure kill -9 stands for: the driver, the
Spark JVM and its workers at once, no ``finally`` or ``atexit`` runs.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any


def _killing_after(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        print(f"die_after: {function.__qualname__} returned; SIGKILL", file=sys.stderr, flush=True)
        os.killpg(os.getpgid(0), signal.SIGKILL)
        return result  # never reached

    return wrapper


def main(argv: list[str]) -> int:
    target, separator, *command = argv
    assert separator == "--", "usage: die_after module:Class.function -- <lakesink arguments>"
    module_name, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    setattr(owner, name, _killing_after(getattr(owner, name)))
    from lakesink.application.cli import main as lakesink

    return lakesink(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
