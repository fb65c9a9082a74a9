"""The parsed forms of a KCQL statement, for the sink and for the source (restore).

Both are frozen values: two statements are equal when they mean the same thing, whatever the
spelling (``text``, the statement as written, is kept for messages but not compared).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lakesink.domain.formats import Format
from lakesink.domain.kcql.sink_properties import SinkProperties
from lakesink.domain.kcql.source_properties import SourceProperties


@dataclass(frozen=True, slots=True)
class KcqlStatement:
    """``INSERT INTO bucket[:prefix] SELECT * FROM topic ...``: where one topic's records go.

    Attributes:
        text: this statement's source text, stripped (not compared).
        bucket: target bucket (container).
        prefix: key prefix inside the bucket, None when not given.
        topic: source topic, None for ``*`` (every topic the connector subscribes to).
        partition_by: each PARTITIONBY spec as written (backticks kept, single-quoted pieces
            rewritten in backticks); empty when not given.
        no_partition: True for NOPARTITION.
        format: the STOREAS format (JSON when not given).
        csv_headers: True for ``CSV_WITHHEADERS``.
        properties: the PROPERTIES entries, keys lower-cased, values unquoted as written.
        options: the same PROPERTIES, typed and validated.
    """

    text: str = field(compare=False)
    bucket: str
    prefix: str | None
    topic: str | None
    partition_by: tuple[str, ...]
    no_partition: bool
    format: Format
    csv_headers: bool
    properties: Mapping[str, str]
    options: SinkProperties


@dataclass(frozen=True, slots=True)
class SourceStatement:
    """``INSERT INTO topic SELECT * FROM bucket[:prefix] ...``: which objects restore into a topic.

    Attributes:
        text: this statement's source text, stripped (not compared).
        topic: the Kafka topic records are written to.
        bucket: bucket (container) to read.
        prefix: key prefix to read under, None for the bucket root.
        format: the STOREAS format of the stored files (JSON when not given).
        csv_headers: True for ``CSV_WITHHEADERS``.
        batch: BATCH, the number of keys per listing call; None when not given.
        limit: LIMIT, the maximum records per poll; None when not given.
        properties: the PROPERTIES entries, keys lower-cased, values unquoted as written.
        options: the same PROPERTIES, typed and validated.
    """

    text: str = field(compare=False)
    topic: str
    bucket: str
    prefix: str | None
    format: Format
    csv_headers: bool
    batch: int | None
    limit: int | None
    properties: Mapping[str, str]
    options: SourceProperties
