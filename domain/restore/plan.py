"""The restore plan: one value that says what to read, how to parse keys and where to produce.

Every config form ends here: a Lenses source config (:mod:`lakesink.domain.restore.lenses_plan`), an
Aiven S3 source config (:mod:`lakesink.domain.dialects.aiven.source_config`), a Confluent S3 sink
config (:mod:`lakesink.domain.dialects.confluent.restore_plan`) and an Aiven S3 sink config
(:mod:`lakesink.domain.dialects.aiven.restore_plan`). Listing, reading and delivery see only this
model, so the forms behave the same wherever they overlap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lakesink.domain.config.backends import BackendSettings
from lakesink.domain.config.enums import PartitionExtractorType
from lakesink.domain.config.passthrough import ClientValue, ConverterSettings
from lakesink.domain.dialects.stored_layout import StoredLayout
from lakesink.domain.formats import Format
from lakesink.domain.restore.template import KeyTemplate

#: Directories a restore never reads: the sink's index/locks, upload staging and plans.
INTERNAL_DIRECTORIES = (".indexes", ".temp-upload", ".plans")
DEFAULT_PAGE_SIZE = 1000
DEFAULT_LIMIT = 10_000
MAX_PAGE_SIZE = 1000
_ILLEGAL_TOPIC_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class PartitionMode:
    """How a restored record's Kafka partition is chosen.

    The values of ``source.partition.extractor.type`` (:class:`PartitionExtractorType` says
    what each means), so a Lenses config's choice is the plan's mode as it stands; the Aiven
    form picks ``LAYOUT`` or ``NONE`` from its template.
    """

    LAYOUT = PartitionExtractorType.LAYOUT.value
    NONE = PartitionExtractorType.NONE.value
    HIERARCHICAL = PartitionExtractorType.HIERARCHICAL.value
    REGEX = PartitionExtractorType.REGEX.value


@dataclass(frozen=True, slots=True)
class PartitionRule:
    """The partition choice and what happens when the target topic has too few partitions.

    ``remap_modulo`` (``source.partition.remap=modulo``): partition ``p`` goes to
    ``p % partitions``; otherwise a missing partition is a ConfigError before anything is sent.
    """

    mode: str = PartitionMode.LAYOUT
    regex: str | None = None
    remap_modulo: bool = False


@dataclass(frozen=True, slots=True)
class PostProcess:
    """``post.process.action``: Delete, or Move to ``bucket``/``prefix`` (``retain_dirs`` keeps a ``dir/`` marker)."""

    action: str
    bucket: str | None = None
    prefix: str | None = None
    retain_dirs: bool = False


DETECT = "detect"
"""``RestoreRoot.compression`` when each object's first bytes decide (gzip or zstd magic, else as stored)."""


@dataclass(frozen=True, slots=True)
class RestoreRoot:
    """One listing root: a KCQL statement, the Aiven bucket/prefix or the Confluent sink's bucket.

    Attributes:
        number: position in the config (names the root in progress records).
        bucket / list_prefix: what is listed (``list_prefix`` as sent to the store).
        topic: the target topic; None = the topic named by each key (Aiven without ``topic``).
        template: Aiven's compiled ``file.name.template``; None = the Lenses layouts (or Confluent's).
        topic_from_envelope: ``source.topic.from.envelope``: a record goes to its envelope's
            ``metadata.topic``, ``topic`` when it names none.
        key_from_object_key: Aiven: the Kafka key is the object key (UTF-8).
        bytes_chunk_size: Aiven ``input.format=bytes``: one record per chunk of this size.
        compression: Aiven ``file.compression.type`` (gzip, zstd; Aiven's snappy framing is not read): the whole object is
            decompressed before it is read (never for Parquet, as in Aiven); None = as stored; :data:`DETECT` =
            by each object's magic bytes.
        header_converter: the restore's ``header.converter``, which writes stored header values back as bytes.
        layout: a dialect's stored objects (:mod:`lakesink.domain.dialects.stored_layout`): a Confluent
            S3 sink's key layout and stored keys/headers, an Aiven S3 sink's key pattern and file
            contents, Quix Streams FileSink objects (``store.layout=quix``); None = Lenses' layouts.
        record_separator: Confluent ``format.bytearray.separator``: a BYTES object holds records each
            followed by it; None = the whole object (or its chunks) is the record.
    """

    number: int
    bucket: str
    list_prefix: str
    topic: str | None
    format: Format
    csv_headers: bool = False
    envelope: bool = False
    topic_from_envelope: bool = False
    page_size: int = DEFAULT_PAGE_SIZE
    limit: int = DEFAULT_LIMIT
    template: KeyTemplate | None = None
    post_process: PostProcess | None = None
    key_from_object_key: bool = False
    bytes_chunk_size: int | None = None
    compression: str | None = None
    header_converter: ConverterSettings = ConverterSettings()
    layout: StoredLayout | None = None
    record_separator: bytes | None = None

    def companions(self, key: str) -> tuple[tuple[str, str], ...]:
        """``(marker, object key)`` of the objects read together with ``key`` (Confluent's keys and
        headers siblings); none for the other layouts."""
        return self.layout.siblings(key) if self.layout is not None else ()

    def stored_topic(self, topic: str) -> str:
        """How the root's keys spell ``topic``."""
        return self.layout.stored_topic(topic) if self.layout is not None else topic

    def relative(self, key: str) -> str:
        """``key`` without the listing prefix (what an Aiven template is matched against)."""
        return key[len(self.list_prefix) :] if key.startswith(self.list_prefix) else key


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """Everything a restore run needs; picklable (credentials stay :class:`Secret`)."""

    name: str
    backend: str
    storage: BackendSettings = field(repr=False)
    roots: tuple[RestoreRoot, ...]
    producer: Mapping[str, ClientValue] = field(repr=False, default_factory=dict)
    partition_rule: PartitionRule = PartitionRule()
    poll_interval_ms: int = 300_000
    full_relist_every: int = 10
    tolerate_errors: bool = False
    parallelism: int | None = None
    start_after: str | None = None
    excluded_directories: tuple[str, ...] = INTERNAL_DIRECTORIES
    extension_includes: tuple[str, ...] = ()
    extension_excludes: tuple[str, ...] = ()
    transaction_timeout_ms: int = 60_000

    @property
    def progress_topic(self) -> str:
        """The compacted topic holding this restore's progress: ``__lakesink_restore_<name>``."""
        return ("__lakesink_restore_" + _ILLEGAL_TOPIC_CHARS.sub("_", self.name))[:249]


def page_size(batch: int | None) -> int:
    """KCQL BATCH as a listing page size: Lenses' default below 1, the store's 1000 cap above."""
    if batch is None or batch < 1:
        return DEFAULT_PAGE_SIZE
    return min(batch, MAX_PAGE_SIZE)
