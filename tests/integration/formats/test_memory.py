"""Big files are written with small resident memory (each run in a fresh process)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]
PROBE = Path(__file__).parent / "memory_probe.py"


def _probe(format: str, path: Path, target: int) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, str(PROBE), format, str(path), str(target)],
            capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, f"the probe failed (free disk {shutil.disk_usage(path.parent).free >> 20} MiB):\n{done.stderr}"
        assert path.stat().st_size >= target * 0.9
    finally:
        path.unlink(missing_ok=True)
    return json.loads(done.stdout)


def test_a_one_gigabyte_json_file_is_written_with_small_memory(tmp_path):
    result = _probe("JSON", tmp_path / "big.json", 1_000_000_000)
    assert result["growth_kib"] < 300 * 1024


def test_a_400_megabyte_parquet_file_is_written_with_bounded_memory(tmp_path):
    result = _probe("PARQUET", tmp_path / "big.parquet", 400_000_000)
    assert result["growth_kib"] < 300 * 1024
