"""One benchmark result, the table printed at the end, and the JSON file under bench/results/."""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

OK = "ok"
FAILED = "FAILED"


@dataclass
class Result:
    """One scenario's outcome. ``seconds``/``peak_rss`` are None when nothing trustworthy was measured."""

    scenario: str
    status: str
    records: int
    input_bytes: int
    seconds: float | None = None
    peak_rss: int | None = None
    note: str = ""
    ceiling: str | None = None
    """The ceiling scenario this run is compared with (lakesink/ceiling)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float | None:
        return self.records / self.seconds if self.status == OK and self.seconds else None

    @property
    def mb_per_s(self) -> float | None:
        return self.input_bytes / self.seconds / 1e6 if self.status == OK and self.seconds else None


def failed(scenario: str, records: int, input_bytes: int, why: str, **kwargs: Any) -> Result:
    return Result(scenario, FAILED, records, input_bytes, note=why, **kwargs)


def _ratio(result: Result, other_name: str | None, by_name: dict[str, Result]) -> str:
    other = by_name.get(other_name or "")
    if result.rate is None or other is None or other.rate is None:
        return "-"
    return f"{result.rate / other.rate:.2f}"


def _fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def table(results: list[Result]) -> str:
    """The summary table: one row per scenario, FAILED rows carry their reason instead of numbers."""
    by_name = {r.scenario: r for r in results}
    header = ("scenario", "status", "records", "seconds", "records/s", "MB/s", "peak RSS MB", "vs ceiling")
    rows = [header]
    for r in results:
        rows.append((
            r.scenario, r.status, f"{r.records:,}",
            _fmt(r.seconds if r.status == OK else None, ".1f"), _fmt(r.rate, ",.0f"), _fmt(r.mb_per_s, ".1f"),
            _fmt(r.peak_rss / 1e6 if r.peak_rss else None, ",.0f"),
            _ratio(r, r.ceiling, by_name),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    notes = [f"  {r.scenario}: {r.note}" for r in results if r.note]
    return "\n".join(lines + (["", "notes:", *notes] if notes else []))


def machine() -> dict[str, Any]:
    """What the numbers depend on: cores, memory, CPU model and library versions."""
    import pyarrow
    import pyspark

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    return {"nproc": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1), "cpu": cpu,
            "python": platform.python_version(), "spark": pyspark.__version__, "pyarrow": pyarrow.__version__,
            "load_average_at_end": os.getloadavg()}


def write_json(directory: Path, results: list[Result], run: dict[str, Any]) -> Path:
    """``<directory>/<UTC timestamp>.json`` with the run's settings, the machine and every result."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / time.strftime("%Y%m%dT%H%M%SZ.json", time.gmtime())
    rows = [{**asdict(r), "records_per_s": r.rate, "mb_per_s": r.mb_per_s} for r in results]
    path.write_text(json.dumps({"run": run, "machine": machine(), "results": rows}, indent=2) + "\n")
    return path
