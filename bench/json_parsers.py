"""Schemaless JSON values into Arrow columns, pyarrow's parser against polars': the columnar PARQUET
path's parse (adapters/formats/columnar_parquet.py), measured alone.

    python -m bench.json_parsers --records 200000

The batch scenarios' order events (bench/events.py) joined by ``\\n``, parsed with the schema the
first value infers, one thread each (Spark runs a task per core), as the sink parses them:
``pyarrow.json.read_json`` with ``explicit_schema`` and unknown fields an error, against
``polars.read_ndjson`` with the same schema then ``to_arrow()``. Prints one line per parser: the
least CPU seconds of ``--rounds`` parses, over the records. BENCHMARKS.md ("Next levers") quotes it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from collections.abc import Callable

os.environ.setdefault("POLARS_MAX_THREADS", "1")  # before polars starts its pool

import polars as pl  # noqa: E402 - after the thread setting
import pyarrow as pa  # noqa: E402
import pyarrow.json as pa_json  # noqa: E402

from bench.events import order_events  # noqa: E402
from lakesink.adapters.formats.arrow_schema import arrow_schema  # noqa: E402
from lakesink.domain.schema import infer  # noqa: E402


def parsers(buffer: bytes, schema: pa.Schema) -> dict[str, Callable[[], pa.Table]]:
    """Each parser as a call that parses ``buffer`` into a table of ``schema``."""
    options = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
    reading = pa_json.ReadOptions(use_threads=False, block_size=len(buffer) + 1)
    polars_schema = pl.from_arrow(schema.empty_table()).schema  # type: ignore[union-attr]
    return {
        "pyarrow.json": lambda: pa_json.read_json(pa.BufferReader(pa.py_buffer(buffer)), read_options=reading,
                                                  parse_options=options),
        "polars.read_ndjson": lambda: pl.read_ndjson(io.BytesIO(buffer), schema=polars_schema).to_arrow(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    values = [event.value for event in order_events(args.records)]
    buffer = b"\n".join(values)
    schema = arrow_schema(infer(json.loads(values[0])))
    print(f"{args.records:,} values of {len(buffer) / args.records:.0f} bytes; one thread; least of {args.rounds}")
    for name, parse in parsers(buffer, schema).items():
        seconds = []
        for _ in range(args.rounds):
            began = time.process_time()
            table = parse()
            seconds.append(time.process_time() - began)
        assert table.num_rows == args.records
        print(f"{name:20s} {min(seconds) * 1e6 / args.records:5.2f} µs of CPU a record")


if __name__ == "__main__":
    main()
