"""A restore task refused a permission stops the restore with that error, not a Spark traceback.

:class:`~lakesink.adapters.restore.spark_job.SparkTaskRunner` on the session's Spark: a task whose
origin raises :class:`AccessDeniedError` (a store refusing a permission, as
tests/integration/security/test_store_permissions.py makes versitygw do) reaches the driver as that
error with its one-line message, so ``lakesink restore`` exits 2 with it; any other failure still
fails the Spark task, and Spark's task retries apply to it. When they are used up, a lakesink error
that ended the task reaches the driver as that error too (one line, not Spark's traceback); a bug stays
Spark's exception.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from lakesink.adapters.restore.spark_job import SparkTaskRunner
from lakesink.domain.errors import AccessDeniedError, TransientStorageError
from lakesink.domain.restore.index import WorkItem
from lakesink.domain.restore.results import OriginResult

pytestmark = [pytest.mark.integration]

ITEMS = [[WorkItem("orders-0", 0, "orders", 0, ())], [WorkItem("orders-1", 0, "orders", 1, ())]]
REFUSAL = "s3:GetObject denied on s3://bkt/orders/1/000000000009.json (GetObject: AccessDenied: Access Denied.)"


def _refused_on_partition_1(items: Sequence[WorkItem]) -> Iterator[OriginResult]:
    for item in items:
        if item.partition == 1:
            raise AccessDeniedError(REFUSAL)
    yield from ()


def _failing(items: Sequence[WorkItem]) -> Iterator[OriginResult]:
    raise TransientStorageError(f"S3 GetObject failed for {len(items)} origin(s)")


def test_a_refused_permission_reaches_the_driver_as_the_error_it_was(spark) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AccessDeniedError) as refused:
        SparkTaskRunner(spark).run(ITEMS, _refused_on_partition_1)
    assert str(refused.value) == REFUSAL


def _buggy(items: Sequence[WorkItem]) -> Iterator[OriginResult]:
    raise ZeroDivisionError("a bug")


def test_another_lakesink_error_fails_the_task_then_reaches_the_driver_as_itself(spark) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TransientStorageError) as failed:
        SparkTaskRunner(spark).run(ITEMS, _failing)
    assert str(failed.value) == "S3 GetObject failed for 1 origin(s)"


def test_a_bug_stays_sparks_exception(spark) -> None:  # type: ignore[no-untyped-def]
    from pyspark.errors import PythonException

    with pytest.raises(PythonException, match="ZeroDivisionError: a bug"):
        SparkTaskRunner(spark).run(ITEMS, _buggy)
