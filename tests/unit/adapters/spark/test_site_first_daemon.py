"""Python workers import pyspark from the installed package, not from the bundled pyspark.zip."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession

from lakesink.adapters.spark.site_first_daemon import installed_lib, site_first


def test_the_bundled_zips_move_behind_the_installed_package(tmp_path: Path) -> None:
    lib = tmp_path / "site-packages" / "pyspark" / "python" / "lib"
    zips = [str(lib / "pyspark.zip"), str(lib / "py4j-0.10.9.9-src.zip")]
    path = [*zips, "/work/app", str(tmp_path / "site-packages")]

    assert site_first(path, lib) == ["/work/app", str(tmp_path / "site-packages"), *zips]


def test_zips_of_another_spark_home_stay_where_they_are(tmp_path: Path) -> None:
    lib = tmp_path / "site-packages" / "pyspark" / "python" / "lib"
    path = ["/opt/spark/python/lib/pyspark.zip", str(tmp_path / "site-packages")]

    assert site_first(path, lib) == path
    assert site_first(path, None) == path


def test_the_installed_lib_is_found_only_where_pyspark_zip_exists(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    lib = site / "pyspark" / "python" / "lib"
    lib.mkdir(parents=True)

    assert installed_lib([str(site)]) is None
    (lib / "pyspark.zip").write_bytes(b"")
    assert installed_lib(["/nowhere", str(site)]) == lib


def _pyspark_file(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    import pyspark

    for _ in batches:
        yield pa.RecordBatch.from_pylist([{"file": pyspark.__file__}])


def test_the_test_sessions_workers_import_pyspark_from_the_installed_package(spark: SparkSession) -> None:
    files = {row.file for row in spark.range(2).repartition(2).mapInArrow(_pyspark_file, "file string").collect()}

    assert files and all(".zip" not in file and file.endswith("pyspark/__init__.py") for file in files)


def _frozen_objects(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    import gc

    for _ in batches:
        yield pa.RecordBatch.from_pylist([{"frozen": gc.get_freeze_count()}])


def test_the_workers_start_with_the_preloaded_modules_out_of_the_collectors_reach(spark: SparkSession) -> None:
    """Frozen by the daemon before it forks (``preload``): a full collection in a worker no longer walks
    pyarrow's, botocore's and PySpark's objects for every task."""
    counts = {row.frozen for row in spark.range(2).repartition(2).mapInArrow(_frozen_objects, "frozen long").collect()}

    assert counts and min(counts) > 100_000, counts
