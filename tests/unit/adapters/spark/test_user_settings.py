"""What the user told Spark wins over lakesink's defaults; a conflicting ``--master`` under spark-submit is refused.

The system properties below are those measured in a driver JVM (docs/operations.md, "spark-submit and
lakesink's defaults"): spark-submit records the submission, makes an application name up from the script
and, for the shell PySpark launches itself, turns the console progress bar on.
"""

from __future__ import annotations

import pytest

from lakesink.adapters.spark.user_settings import GivenSettings, given_settings, resolve_master
from lakesink.domain.errors import ConfigError

SUBMITTED = {
    "spark.app.name": "spark_submit.py",
    "spark.app.submitTime": "1795840019299",
    "spark.default.parallelism": "7",
    "spark.master": "spark://127.0.0.1:7077",
    "spark.submit.deployMode": "client",
    "spark.submit.pyFiles": "",
}
SHELL = {
    "spark.app.name": "pyspark-shell",
    "spark.app.submitTime": "1795840027755",
    "spark.master": "local[*,4]",
    "spark.submit.deployMode": "client",
    "spark.submit.pyFiles": "",
    "spark.ui.showConsoleProgress": "true",
    "spark.driver.memory": "512m",
}


def test_under_spark_submit_its_flags_are_the_users_and_its_records_are_not() -> None:
    given = given_settings(SUBMITTED, {}, under_submit=True, script="spark_submit.py")

    assert given.values == {"spark.default.parallelism": "7"}
    assert given.master == "spark://127.0.0.1:7077"


def test_a_jvm_lakesink_launched_keeps_neither_the_shells_progress_bar_nor_lakesinks_launch_settings() -> None:
    given = given_settings(SHELL, {"spark.driver.memory": "512m"}, under_submit=False, script="lakesink")

    assert given.values == {}
    assert given.master == "local[*,4]"


def test_a_launch_setting_the_user_replaced_and_a_named_application_are_the_users() -> None:
    properties = {**SUBMITTED, "spark.app.name": "orders-nightly", "spark.driver.memory": "4g",
                  "spark.ui.showConsoleProgress": "true"}

    given = given_settings(properties, {"spark.driver.memory": "512m"}, under_submit=True, script="spark_submit.py")

    assert given.values["spark.app.name"] == "orders-nightly"
    assert given.values["spark.driver.memory"] == "4g"
    assert given.values["spark.ui.showConsoleProgress"] == "true"


def test_spark_submits_master_is_final_and_a_different_command_line_master_is_refused() -> None:
    given = GivenSettings(values={}, master="local[2]", under_submit=True)

    assert resolve_master(None, given, "local[*,4]") == "local[2]"
    assert resolve_master("local[2]", given, "local[*,4]") == "local[2]"
    with pytest.raises(ConfigError, match=r"--master spark://h:7077 conflicts with spark-submit's master local\[2\]"):
        resolve_master("spark://h:7077", given, "local[*,4]")


def test_without_spark_submit_the_command_line_wins_then_the_configuration_then_lakesinks_master(
    caplog: pytest.LogCaptureFixture,
) -> None:
    configured = GivenSettings(values={}, master="local[3]", under_submit=False)
    unconfigured = GivenSettings(values={}, master="local[2,4]", under_submit=False)  # the master lakesink passed

    assert resolve_master("local[2]", unconfigured, "local[2,4]") == "local[2]"
    assert caplog.text == ""
    assert resolve_master(None, configured, "local[2,4]") == "local[3]"
    assert resolve_master(None, unconfigured, "local[2,4]") == "local[2,4]"
    assert resolve_master("local[2]", configured, "local[2,4]") == "local[2]"
    assert "--master local[2] overrides spark.master local[3] of the Spark configuration" in caplog.text
