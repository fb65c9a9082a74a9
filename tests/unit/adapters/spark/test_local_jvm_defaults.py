"""The local JVM's memory defaults: applied when lakesink launches the JVM, never over a user's choice."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

from lakesink.adapters.spark.memory_defaults import (
    DRIVER_JAVA_OPTIONS,
    DRIVER_MEMORY,
    LOCAL_JVM_DEFAULTS,
    local_jvm_defaults,
)


def test_all_defaults_apply_when_nothing_else_sets_them() -> None:
    assert local_jvm_defaults({}) == LOCAL_JVM_DEFAULTS
    assert "-XX:+UseSerialGC" in LOCAL_JVM_DEFAULTS[DRIVER_JAVA_OPTIONS]


def test_none_apply_under_spark_submit_whose_jvm_already_runs() -> None:
    assert local_jvm_defaults({"PYSPARK_GATEWAY_PORT": "40123"}) == {}


def test_driver_memory_from_the_environment_wins() -> None:
    assert local_jvm_defaults({"SPARK_DRIVER_MEMORY": "2g"}) == {DRIVER_JAVA_OPTIONS: LOCAL_JVM_DEFAULTS[DRIVER_JAVA_OPTIONS]}


def test_submit_args_win_by_flag_or_by_conf_key() -> None:
    by_flag = local_jvm_defaults({"PYSPARK_SUBMIT_ARGS": "--driver-memory 3g --driver-java-options -Xss4m pyspark-shell"})
    by_key = local_jvm_defaults({"PYSPARK_SUBMIT_ARGS": "--conf spark.driver.memory=3g pyspark-shell"})
    assert by_flag == {}
    assert by_key == {DRIVER_JAVA_OPTIONS: LOCAL_JVM_DEFAULTS[DRIVER_JAVA_OPTIONS]}


def test_spark_defaults_conf_wins_from_the_conf_dir_or_spark_home(tmp_path: Path) -> None:
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "spark-defaults.conf").write_text(
        "# a comment naming spark.driver.memory does not count\n"
        "spark.driver.extraJavaOptions  -XX:+UseG1GC\n"
    )
    expected = {DRIVER_MEMORY: LOCAL_JVM_DEFAULTS[DRIVER_MEMORY]}
    assert local_jvm_defaults({"SPARK_CONF_DIR": str(conf_dir)}) == expected
    assert local_jvm_defaults({"SPARK_HOME": str(tmp_path)}) == expected
    assert local_jvm_defaults({"SPARK_CONF_DIR": str(tmp_path / "missing")}) == LOCAL_JVM_DEFAULTS


def test_the_test_session_jvm_runs_with_the_small_heap_and_serial_gc(spark: SparkSession) -> None:
    jvm = spark.sparkContext._jvm
    assert spark.sparkContext.getConf().get(DRIVER_MEMORY) == "512m"
    assert jvm.java.lang.Runtime.getRuntime().maxMemory() <= 512 * 2**20
    collectors = [bean.getName() for bean in jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()]
    assert "Copy" in collectors  # the young collector of -XX:+UseSerialGC (G1 names its own "G1 Young Generation")
