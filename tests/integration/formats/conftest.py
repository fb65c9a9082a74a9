from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakesink.domain.records import Record


def make_records(count: int = 20) -> list[Record]:
    """Realistic records: nested values, logical types, keys of several types, every header type."""
    records = []
    for offset in range(count):
        records.append(
            Record(
                topic="orders",
                partition=2,
                offset=100 + offset,
                timestamp=1_700_000_000_000 + offset,
                key=f"k{offset}".encode() if offset % 3 else None,
                value={
                    "id": offset,
                    "name": f"item \"{offset}\", ok",
                    "price": Decimal(f"{offset}.25"),
                    "at": datetime(2024, 1, 1, 12, 0, offset, 123000, tzinfo=UTC),
                    "day": date(2024, 2, 1 + offset % 28),
                    "tags": ["a", "b"][: offset % 3],
                    "nested": {"x": offset * 1.5, "y": None},
                },
                headers=(("str", "s"), ("bytes", b"\x00\xff"), ("int", offset), ("float", 0.5), ("bool", True),
                         ("null", None), ("nested", {"a": [1, 2]})),
            )
        )
    return records


@pytest.fixture
def records() -> list[Record]:
    return make_records()
