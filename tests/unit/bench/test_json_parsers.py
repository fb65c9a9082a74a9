"""bench/json_parsers.py compares like with like: both parsers give the same rows."""

from __future__ import annotations

import json

from bench.events import order_events
from bench.json_parsers import parsers
from lakesink.adapters.formats.arrow_schema import arrow_schema
from lakesink.domain.schema import infer


def test_both_parsers_read_the_same_rows_with_the_first_values_schema() -> None:
    values = [event.value for event in order_events(50)]
    schema = arrow_schema(infer(json.loads(values[0])))
    tables = {name: parse() for name, parse in parsers(b"\n".join(values), schema).items()}
    rows = [table.to_pylist() for table in tables.values()]
    assert rows[0] == rows[1] == [json.loads(value) for value in values]
