"""Quix's Parquet rows on the executors, and reading its objects back for the restore."""
