"""The benchmark's data set: deterministic order events of about 200 bytes of JSON.

Realistic on purpose: nested objects, a low-cardinality ``country`` to partition by, amounts,
epoch-millis timestamps, a string key and two headers, so JSON parsing, PARTITIONBY and the
envelope all do the work they do in production.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass

COUNTRIES = ("DE", "FR", "GB", "US", "NL", "ES", "IT", "PL", "SE", "BR")
CURRENCIES = {"GB": "GBP", "US": "USD", "PL": "PLN", "SE": "SEK", "BR": "BRL"}
STATUSES = ("created", "paid", "shipped", "delivered", "cancelled")
CHANNELS = ("web", "ios", "android", "partner")
TIERS = ("basic", "silver", "gold")
BASE_TS = 1_763_000_000_000
HEADER_NAMES = ("origin", "trace_id")


@dataclass(frozen=True, slots=True)
class Event:
    """One message to produce: string key, JSON value and two headers."""

    key: bytes
    value: bytes
    headers: tuple[tuple[str, bytes], ...]
    timestamp_ms: int


def order_events(count: int, *, start: int = 0, seed: int = 7, zones: int = 0) -> Iterator[Event]:
    """``count`` events numbered from ``start``; the same arguments always give the same bytes.

    ``zones > 0`` adds a ``zone`` field with that many values (``z00``, ``z01``…), drawn from a
    generator of its own so every other field stays byte for byte what ``zones=0`` gives: the
    memory scenario partitions by it without changing the other scenarios' data.
    """
    rng = random.Random(seed * 1_000_003 + start)
    zone_rng = random.Random(seed * 2_000_003 + start)
    for index in range(start, start + count):
        country = COUNTRIES[rng.randrange(len(COUNTRIES))]
        created = BASE_TS + index * 13
        order = {
            "order_id": f"o-{index:012d}",
            "customer": {"id": f"c-{rng.randrange(1_000_000):07d}", "tier": TIERS[rng.randrange(3)]},
            "country": country,
            "currency": CURRENCIES.get(country, "EUR"),
            "amount": round(rng.uniform(1, 500), 2),
            "items": rng.randrange(1, 9),
            "status": STATUSES[rng.randrange(len(STATUSES))],
            "channel": CHANNELS[rng.randrange(len(CHANNELS))],
            "created_at": created,
            "updated_at": created + rng.randrange(60_000),
        }
        if zones:
            order["zone"] = f"z{zone_rng.randrange(zones):02d}"
        value = json.dumps(order, separators=(",", ":")).encode()
        # "t-" keeps every trace id a string: Connect's SimpleHeaderConverter types an all-digit one
        # (1 in ~1,850 of 16 hex digits) as a long, and an Avro envelope then rolls its file twice
        # (1,401 objects for 1M records instead of 24, which the benchmarks would measure instead).
        headers = (("origin", b"bench"), ("trace_id", f"t-{rng.getrandbits(64):016x}".encode()))
        yield Event(order["order_id"].encode(), value, headers, created)
