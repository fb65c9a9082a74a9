"""``python -m bench.ceilings``: the single-core encode ceiling of one format, in its own process.

Builds the records the sink's writer would receive (raw bytes for passthrough JSON, decoded
dicts for Parquet and Avro, key and headers for the envelope), then times only lakesink's
writer through :func:`bench.formats.encode`: the best one core can do for that format, with
no Kafka, no Spark and no upload. Prints ``{"records": n, "seconds": s, "output_bytes": b}``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import asdict
from pathlib import Path

from bench.events import order_events
from bench.formats import encode
from lakesink.domain.formats import CompressionCodec, Format
from lakesink.domain.records import Record

ENCODE_SAMPLE = 200_000
"""Encode ceilings use at most this many records: a rate, and decoded dicts of 1M events would
take gigabytes of RAM that the sink itself never holds at once."""
WARM_UP = 1_000


def build_records(count: int, *, decoded: bool) -> list[Record]:
    """``count`` order events as records: values as bytes (passthrough) or decoded dicts."""
    return [
        Record("orders", 0, offset, event.timestamp_ms, key=event.key.decode(),
               value=json.loads(event.value) if decoded else event.value, headers=event.headers)
        for offset, event in enumerate(order_events(count))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", required=True, choices=[f.value for f in Format])
    parser.add_argument("--codec", default="UNCOMPRESSED", choices=[c.value for c in CompressionCodec])
    parser.add_argument("--decoded", action="store_true", help="feed decoded dicts (a JSON converter ran)")
    parser.add_argument("--envelope", action="store_true")
    parser.add_argument("--records", type=int, default=ENCODE_SAMPLE)
    args = parser.parse_args()
    records = build_records(min(args.records, ENCODE_SAMPLE), decoded=args.decoded)
    with tempfile.TemporaryDirectory(prefix="bench-encode-") as temp:
        # Warm-up: the first write imports and initialises the writer's libraries; time steady state.
        encode(Format(args.format), CompressionCodec(args.codec), records[:WARM_UP], Path(temp) / "warm-up",
               envelope=args.envelope)
        result = encode(Format(args.format), CompressionCodec(args.codec), records, Path(temp) / "out",
                        envelope=args.envelope)
    print(json.dumps(asdict(result)))


if __name__ == "__main__":
    main()
