"""Every transform and predicate class lakesink runs, by the class name Kafka Connect configs use."""

from __future__ import annotations

from lakesink.domain.transforms import kafka_cast, kafka_fields, kafka_shape
from lakesink.domain.transforms.chain import PredicateFactory, TransformFactory

TRANSFORMS: dict[str, TransformFactory] = {
    **kafka_fields.TRANSFORMS,
    **kafka_shape.TRANSFORMS,
    **kafka_cast.TRANSFORMS,
}
"""Transform classes by their Connect class name (``…InsertField$Value`` for a part's variant)."""

PREDICATES: dict[str, PredicateFactory] = {}
"""Predicate classes by their Connect class name."""
