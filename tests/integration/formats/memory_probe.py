"""Writes a large file in a fresh process and prints the resident-memory growth (for the slow test).

Usage: python memory_probe.py FORMAT PATH TARGET_BYTES
"""

from __future__ import annotations

import json
import resource
import sys

from lakesink.adapters.formats import open_writer
from lakesink.domain.formats import Format
from lakesink.domain.records import Record


def main() -> None:
    format, path, target = Format(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    value = {"id": 0, "user": "u" * 40, "event": "click", "payload": "p" * 800, "amount": 12.5}
    raw = json.dumps(value).encode()
    make = (lambda offset: raw) if format is Format.JSON else (lambda offset: {**value, "id": offset, "payload": f"{offset:010d}" * 80})
    writer = open_writer(format, path)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    offset = 0
    while writer.bytes_written < target:
        batch = [Record("t", 0, offset + i, value=make(offset + i)) for i in range(5000)]
        writer.write_many(batch)
        offset += len(batch)
    writer.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"records": offset, "growth_kib": peak - baseline}))


if __name__ == "__main__":
    main()
