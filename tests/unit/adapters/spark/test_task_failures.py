"""Reading the lakesink error back out of a Spark task's final failure (the text PySpark hands the driver)."""

from __future__ import annotations

from lakesink.adapters.spark.task_failures import raised_in_task
from lakesink.domain.errors import StorageError, TransientStorageError

SPARK_WORDS = "\n  An exception was thrown from the Python worker. Please see the stack trace below.\n"


def _failure(*tail: str) -> Exception:
    frames = 'Traceback (most recent call last):\n  File "/w/spark_job.py", line 9, in run_group\n    yield from task(items)\n'
    return Exception(SPARK_WORDS + frames + "\n".join(tail) + "\n")


def test_the_last_lakesink_error_of_the_traceback_comes_back_with_its_kind_and_message() -> None:
    failure = _failure(
        "botocore.exceptions.ReadTimeoutError: Read timeout",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        'Traceback (most recent call last):\n  File "/w/x.py", line 1, in f',
        "lakesink.domain.errors.TransientStorageError: S3 GetObject failed for bkt/k after 3 retries",
    )

    raised = raised_in_task(failure)

    assert type(raised) is TransientStorageError
    assert str(raised) == "S3 GetObject failed for bkt/k after 3 retries"


def test_a_message_of_several_lines_is_kept_whole() -> None:
    raised = raised_in_task(_failure("lakesink.domain.errors.StorageError: first line", "second line"))

    assert type(raised) is StorageError and str(raised) == "first line\nsecond line"


def test_a_bug_or_an_unknown_class_is_not_a_lakesink_error() -> None:
    assert raised_in_task(_failure("ZeroDivisionError: division by zero")) is None
    assert raised_in_task(_failure("lakesink.domain.errors.NoSuchThingError: from a newer version")) is None
    assert raised_in_task(Exception("no traceback at all")) is None
