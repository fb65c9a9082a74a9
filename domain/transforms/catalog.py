"""Every transform and predicate class lakesink runs, by the class name Kafka Connect configs use."""

from __future__ import annotations

from lakesink.domain.transforms import (
    kafka_cast,
    kafka_fields,
    kafka_headers,
    kafka_predicates,
    kafka_routing,
    kafka_shape,
    kafka_time,
)
from lakesink.domain.transforms.chain import PredicateFactory, TransformFactory

TRANSFORMS: dict[str, TransformFactory] = {
    **kafka_fields.TRANSFORMS,
    **kafka_shape.TRANSFORMS,
    **kafka_cast.TRANSFORMS,
    **kafka_time.TRANSFORMS,
    **kafka_routing.TRANSFORMS,
    **kafka_headers.TRANSFORMS,
}
"""Transform classes by their Connect class name (``…InsertField$Value`` for a part's variant)."""

PREDICATES: dict[str, PredicateFactory] = {**kafka_predicates.PREDICATES}
"""Predicate classes by their Connect class name."""
