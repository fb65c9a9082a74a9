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
    lenses_rename_header,
    lenses_timestamp_converter,
    lenses_timestamp_headers,
    lenses_wallclock,
)
from lakesink.domain.transforms.chain import PredicateFactory, TransformFactory
from lakesink.domain.transforms.lenses_rename_header import RenameHeader
from lakesink.domain.transforms.lenses_timestamp_converter import TimestampConverter
from lakesink.domain.transforms.lenses_wallclock import InsertWallclock, InsertWallclockDateTimePart

TRANSFORMS: dict[str, TransformFactory] = {
    **kafka_fields.TRANSFORMS,
    **kafka_shape.TRANSFORMS,
    **kafka_cast.TRANSFORMS,
    **kafka_time.TRANSFORMS,
    **kafka_routing.TRANSFORMS,
    **kafka_headers.TRANSFORMS,
    # Lenses' header SMTs (io.lenses.connect.smt.header.*)
    lenses_timestamp_converter.CLASS_NAME: TimestampConverter.from_options,
    lenses_wallclock.WALLCLOCK_CLASS: InsertWallclock.from_options,
    lenses_wallclock.ROLLING_WALLCLOCK_CLASS: InsertWallclock.rolling_from_options,
    lenses_wallclock.DATE_TIME_PART_CLASS: InsertWallclockDateTimePart.from_options,
    **lenses_timestamp_headers.factories(),
    lenses_rename_header.CLASS_NAME: RenameHeader.from_options,
}
"""Transform classes by their Connect class name (``…InsertField$Value`` for a part's variant)."""

PREDICATES: dict[str, PredicateFactory] = {**kafka_predicates.PREDICATES}
"""Predicate classes by their Connect class name."""
