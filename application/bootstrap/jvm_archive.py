"""``lakesink jvm-archive`` wired: the class archive built for this JVM and PySpark (docs/operations.md)."""

from __future__ import annotations

from lakesink.adapters.spark.class_archive import ArchiveError, build


def build_archive(*, force: bool) -> tuple[bool, str]:
    """Whether an archive is in place, and the line to print: what was built or found, or why none is."""
    try:
        return True, build(force=force).describe()
    except ArchiveError as error:
        return False, f"lakesink: no JVM class archive: {error}"
