"""``python -m bench.verify_store`` on a few objects: the synthesised bucket verifies clean, for each format."""

from __future__ import annotations

import pytest

from bench import verify_store


@pytest.mark.parametrize("fmt", ["PARQUET", "JSON", "BYTES"])
def test_a_small_synthesised_bucket_verifies_clean(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        verify_store.main(["--objects", "203", "--partitions", "3", "--store", "memory", "--format", fmt])
        == 0
    )
    out = capsys.readouterr().out
    assert "verify: 203 listed" in out and "clean=True, problems=0" in out
