"""Format writer throughput: records/s and MB/s per format and codec.

Writes N realistic ~200-byte JSON events (default 200,000) through each writer into a temp
directory and prints one line per format/codec: records/s, input MB/s (JSON size of the
events) and the output size. "raw" rows feed the events as bytes (the passthrough path); the
other rows feed them as parsed dicts, as a JSON converter would (CSV without the nested field).

    .venv/bin/python -m bench.formats [--records N]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lakesink.adapters.formats import open_writer
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

C = CompressionCodec
CASES: list[tuple[str, Format, CompressionCodec, bool, bool]] = [
    ("JSON raw", Format.JSON, C.UNCOMPRESSED, True, False),
    ("JSON raw", Format.JSON, C.GZIP, True, False),
    ("JSON", Format.JSON, C.UNCOMPRESSED, False, False),
    ("JSON envelope", Format.JSON, C.UNCOMPRESSED, True, True),
    ("TEXT raw", Format.TEXT, C.UNCOMPRESSED, True, False),
    ("CSV (flat)", Format.CSV, C.UNCOMPRESSED, False, False),
    *[("PARQUET", Format.PARQUET, codec, False, False) for codec in (C.UNCOMPRESSED, C.SNAPPY, C.ZSTD, C.GZIP)],
    ("PARQUET envelope", Format.PARQUET, C.SNAPPY, True, True),
    *[("AVRO", Format.AVRO, codec, False, False) for codec in (C.UNCOMPRESSED, C.SNAPPY, C.ZSTD, C.DEFLATE)],
]


def events(count: int) -> list[bytes]:
    """Deterministic click-stream events of about 200 bytes of JSON each."""
    rng = random.Random(7)
    pages = ["/", "/cart", "/checkout", "/product/123", "/search?q=boots"]
    out = []
    for index in range(count):
        event = {
            "event_id": f"{index:012d}",
            "user_id": f"user-{rng.randrange(100_000):06d}",
            "type": rng.choice(["view", "click", "purchase"]),
            "page": rng.choice(pages),
            "ts": 1_700_000_000_000 + index * 7,
            "amount": round(rng.random() * 100, 2),
            "device": {"os": rng.choice(["ios", "android", "web"]), "version": rng.randrange(1, 20)},
            "session": f"s-{rng.randrange(10**9):09d}",
        }
        out.append(json.dumps(event, separators=(",", ":")).encode())
    return out


@dataclass(frozen=True, slots=True)
class EncodeResult:
    """One writer run: how many records, how long, how many bytes came out."""

    records: int
    seconds: float
    output_bytes: int


def encode(format: Format, codec: CompressionCodec, records: list[Record], path: Path,
           envelope: bool = False) -> EncodeResult:
    """Write ``records`` through lakesink's writer into ``path`` in batches of 10,000 and time it.

    This is the single-core encode ceiling the end-to-end benchmark (``python -m bench``) compares
    the sink with, so both tools measure the same code path.
    """
    started = time.perf_counter()
    writer = open_writer(format, path, codec=codec, envelope=EnvelopeFields() if envelope else None)
    written = 0
    for start in range(0, len(records), 10_000):
        written += writer.write_many(records[start : start + 10_000])
    writer.close()
    elapsed = time.perf_counter() - started
    size = path.stat().st_size
    path.unlink()
    if written != len(records):
        raise RuntimeError(f"{format.value} writer accepted {written} of {len(records)} records")
    return EncodeResult(written, elapsed, size)


def run(name: str, format: Format, codec: CompressionCodec, records: list[Record], directory: Path,
        envelope: bool) -> str:
    path = directory / f"out-{name.replace(' ', '_')}-{codec.value}"
    result = encode(format, codec, records, path, envelope)
    rate, size = result.records / result.seconds, result.output_bytes
    return f"{name:18} {codec.value:12} {rate:>12,.0f} {size / result.seconds / 1e6:>10.1f} {size / 1e6:>10.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    count = parser.parse_args().records
    raw = events(count)
    parsed = [json.loads(event) for event in raw]
    flat = [{k: v for k, v in event.items() if k != "device"} for event in parsed]  # CSV holds no nesting
    input_mb = sum(map(len, raw)) / 1e6
    makers: dict[bool, Callable[[int], object]] = {True: raw.__getitem__, False: parsed.__getitem__}
    print(f"{count:,} events, {input_mb:.1f} MB of JSON ({input_mb * 1e6 / count:.0f} B/event)")
    print(f"{'format':18} {'codec':12} {'records/s':>12} {'out MB/s':>10} {'out MB':>10}")
    with tempfile.TemporaryDirectory() as temp:
        for name, format, codec, raw_values, envelope in CASES:
            make = flat.__getitem__ if format is Format.CSV else makers[raw_values]
            records = [Record("events", 0, i, 1_700_000_000_000 + i, key=None, value=make(i)) for i in range(count)]
            print(run(name, format, codec, records, Path(temp), envelope), flush=True)


if __name__ == "__main__":
    main()
