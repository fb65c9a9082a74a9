"""Sample order events for the demo and the crash tests: JSON values, string keys, headers, timestamps.

The events look like a shop's order stream so the PARTITIONBY layout in the demo means
something (``country`` and the order day). Every value has the same fields with the same types
and no empty list: schema inference for Parquet then finds one schema, and the files roll only
on count, not on a schema change. Generation is seeded, so a run can be reproduced.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_COUNTRIES = {"DE": ("EUR", "eu"), "FR": ("EUR", "eu"), "GB": ("GBP", "eu"),
              "US": ("USD", "us"), "CA": ("CAD", "us"), "JP": ("JPY", "apac")}
_CHANNELS = ("web", "ios", "android", "store")
_STATUSES = ("PLACED", "PAID", "SHIPPED")
_SKUS = tuple(f"SKU-{n:04d}" for n in range(1, 60))
DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class OrderMessage:
    """One order event as a Kafka message; the producer's partitioner picks its partition from the key."""

    value: bytes
    key: bytes
    headers: tuple[tuple[str, bytes], ...]
    timestamp_ms: int


def order_value(number: int, rng: random.Random, timestamp_ms: int) -> dict[str, Any]:
    """One order: the ``number``-th of the run, fields drawn from ``rng``."""
    country = rng.choice(tuple(_COUNTRIES))
    currency, _region = _COUNTRIES[country]
    lines = [
        {"sku": rng.choice(_SKUS), "quantity": rng.randint(1, 5), "unit_price": round(rng.uniform(2, 250), 2)}
        for _ in range(rng.randint(1, 3))
    ]
    return {
        "order_id": f"ord-{number:08d}",
        "customer": {"id": f"cus-{rng.randint(1, 5000):06d}", "tier": rng.choice(("basic", "plus", "pro"))},
        "country": country,
        "currency": currency,
        "status": rng.choice(_STATUSES),
        "lines": lines,
        "total": round(sum(line["quantity"] * line["unit_price"] for line in lines), 2),
        "placed_at_ms": timestamp_ms,
    }


def order_events(
    count: int, *, seed: int, start_ms: int, span_ms: int = 2 * DAY_MS
) -> Iterator[OrderMessage]:
    """``count`` order events with timestamps spread evenly over ``span_ms`` from ``start_ms``.

    Keys are the order ids (the producer's partitioner spreads them over the partitions);
    headers carry the sales region, the channel and a trace id, as a gateway would add them.
    """
    rng = random.Random(seed)
    step = max(span_ms // max(count, 1), 1)
    for number in range(count):
        timestamp_ms = start_ms + number * step
        value = order_value(number, rng, timestamp_ms)
        _currency, region = _COUNTRIES[value["country"]]
        headers = (
            ("region", region.encode()),
            ("channel", rng.choice(_CHANNELS).encode()),
            ("trace-id", f"{rng.getrandbits(64):016x}".encode()),
        )
        yield OrderMessage(
            value=json.dumps(value, separators=(",", ":")).encode(),
            key=value["order_id"].encode(),
            headers=headers,
            timestamp_ms=timestamp_ms,
        )
