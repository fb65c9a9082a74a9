"""Builds one-step transform chains from a Connect class name and its options, as a config would."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lakesink.domain.transforms.chain import TransformChain
from lakesink.domain.transforms.registry import build_chain
from tests.support.clocks import ManualClock

KAFKA = "org.apache.kafka.connect.transforms."
NOW_MS = 1_717_243_200_000  # 2024-06-01T12:00:00Z: two-digit years read within 1944-2043


Build = Callable[..., TransformChain]


@pytest.fixture
def smt() -> Build:
    """``smt("InsertField$Value", **{"topic.field": "t"})``: a chain with that one Kafka transform."""

    def build(class_name: str, /, **options: str) -> TransformChain:
        props = {"transforms": "x", "transforms.x.type": KAFKA + class_name}
        props.update({f"transforms.x.{name}": value for name, value in options.items()})
        return build_chain(props, ManualClock(NOW_MS))

    return build
