"""The index objects of a sink, listed back: master locks and range plans to their topic-partitions.

The keys are the ones :mod:`lakesink.domain.commit.lock_keys` and
:mod:`lakesink.domain.commit.range_plans` build (``tests/unit/application/test_verify_run.py``
round-trips them); verify lists the whole ``.locks/`` and ``.plans/`` folders of the connector
once per bucket instead of asking per partition, so partitions it has no object of are found too.
Granular locks (deeper under ``.locks/``) and Lenses' sweep marker are not master locks.
"""

from __future__ import annotations

import re

from lakesink.domain.commit.range_plans import plan_start_of_key

_MASTER = re.compile(r"Topic\((?P<topic>[^/]+)\)/(?P<partition>[0-9]+)\.lock")
_PLAN = re.compile(r"Topic\((?P<topic>[^/]+)\)/(?P<partition>[0-9]+)/[^/]+")


def locks_folder(indexes_name: str, connector: str) -> str:
    """The folder holding every lock of a connector."""
    return f"{indexes_name}/{connector}/.locks/"


def old_locks_folder(indexes_name: str) -> str:
    """The folder of Lenses 9.0.0 master locks (no connector name), which a sink's start-up migrates."""
    return f"{indexes_name}/.locks/"


def plans_folder(indexes_name: str, connector: str) -> str:
    """The folder holding every range plan of a connector."""
    return f"{indexes_name}/{connector}/.plans/"


def master_lock_of(folder: str, key: str) -> tuple[str, int] | None:
    """The topic-partition of a master lock listed under :func:`locks_folder`; None for anything else."""
    match = _MASTER.fullmatch(key[len(folder) :]) if key.startswith(folder) else None
    return (match["topic"], int(match["partition"])) if match else None


def plan_of(folder: str, key: str) -> tuple[str, int, int] | None:
    """``(topic, partition, start)`` of a plan listed under :func:`plans_folder`; None for anything else."""
    match = _PLAN.fullmatch(key[len(folder) :]) if key.startswith(folder) else None
    start = plan_start_of_key(key) if match else None
    return (match["topic"], int(match["partition"]), start) if match and start is not None else None
