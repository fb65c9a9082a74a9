"""How lakesink treats each key of a Confluent S3 sink config: its
:class:`~lakesink.domain.dialects.kafka_connect.key_policy.KeyPolicy` table.

``errors.*`` is held (``errors.tolerance=all`` skips records that cannot be written, to
``errors.deadletterqueue.topic.name`` if set); keys that only tune Confluent's Java code have no
effect; features the stores lack (SSE, canned ACLs, tagging, proxies) are default only.
See docs/dialects.md, "Confluent S3 sink", "Keys" (the same table in prose).
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.dialects.kafka_connect.config_def import int_setting, long_setting
from lakesink.domain.dialects.kafka_connect.key_policy import CONNECT_PREFIXES, Bound, KeyPolicy

#: Keys read into the config (exact names).
USED = frozenset(
    {
        "name",
        "connector.class",
        "topics",
        "topics.regex",
        "bootstrap.servers",
        "s3.bucket.name",
        "s3.region",
        "store.url",
        "s3.path.style.access.enabled",
        "aws.access.key.id",
        "aws.secret.access.key",
        "s3.credentials.provider.class",
        "storage.class",
        "format.class",
        "parquet.codec",
        "avro.codec",
        "json.decimal.format",
        "s3.compression.type",
        "s3.compression.level",
        "format.bytearray.extension",
        "format.bytearray.separator",
        "topics.dir",
        "directory.delim",
        "file.delim",
        "filename.offset.zero.pad.width",
        "partitioner.class",
        "partition.field.name",
        "partition.duration.ms",
        "path.format",
        "locale",
        "timezone",
        "timestamp.extractor",
        "timestamp.field",
        "flush.size",
        "rotate.interval.ms",
        "rotate.schedule.interval.ms",
        "rotate.file.on.partition.change",
        "schema.compatibility",
        "behavior.on.null.values",
        "tombstone.encoded.partition",
        "store.kafka.keys",
        "store.kafka.headers",
        "keys.format.class",
        "headers.format.class",
        "key.converter",
        "value.converter",
        "header.converter",
        "transforms",
        "predicates",
    }
)
USED_CLIENT_KEYS = frozenset({"security.protocol"})

#: Accepted without effect, and why.
NO_EFFECT: Mapping[str, str] = {
    "s3.part.size": "lakesink's S3 store sizes its own multipart parts; keys and contents do not depend on it.",
    "s3.part.retries": "lakesink's S3 store has its own retry policy.",
    "s3.retry.backoff.ms": "lakesink's S3 store has its own retry policy.",
    "retry.backoff.ms": "Kafka Connect's pause after a retriable error; Spark retries failed tasks.",
    "s3.elastic.buffer.enable": "Memory tuning of Confluent's upload buffers.",
    "s3.elastic.buffer.init.capacity": "Memory tuning of Confluent's upload buffers.",
    "s3.http.send.expect.continue": "An HTTP detail of the AWS SDK for Java.",
    "s3.send.digest": "lakesink's S3 store decides its own request checksums.",
    "shutdown.timeout.ms": "Confluent's executor shutdown wait.",
    "schemas.cache.size": "A cache size of Confluent's converters.",
    "enable.conditional.writes": "lakesink's commit protocol keeps every offset exactly once without it.",
    "max.files.scan.limit": "Only used by Confluent's conditional writes.",
    "schema.generator.class": "Deprecated in Confluent; only Hive integration used it.",
}

#: Features lakesink does not have yet: accepted at Confluent's default (second item), and why.
DEFAULT_ONLY: Mapping[str, tuple[str, str]] = {
    "s3.ssea.name": ("", "server-side encryption is not implemented in lakesink's S3 store yet"),
    "s3.sse.kms.key.id": ("", "server-side encryption is not implemented in lakesink's S3 store yet"),
    "s3.sse.customer.key": ("", "server-side encryption is not implemented in lakesink's S3 store yet"),
    "s3.acl.canned": ("", "canned ACLs are not implemented in lakesink's S3 store yet"),
    "s3.object.tagging": ("false", "object tagging is not implemented in lakesink's S3 store yet"),
    "s3.object.tagging.key.value.pairs": ("", "object tagging is not implemented in lakesink's S3 store yet"),
    "s3.object.behavior.on.tagging.error": (
        "ignore",
        "object tagging is not implemented in lakesink's S3 store yet",
    ),
    "s3.wan.mode": ("false", "S3 Transfer Acceleration endpoints are not supported"),
    "s3.proxy.url": ("", "HTTP proxies are not supported by lakesink's S3 store yet"),
    "s3.proxy.user": ("", "HTTP proxies are not supported by lakesink's S3 store yet"),
    "s3.proxy.password": ("", "HTTP proxies are not supported by lakesink's S3 store yet"),
    "s3.schema.partition.affix.type": ("NONE", "the schema-name partition affix is not implemented yet"),
    "hive.integration": ("false", "lakesink has no Hive metastore integration"),
    "allow.optional.map.keys": ("false", "optional map keys are not implemented yet"),
    "partitioner.max.open.files": ("-1", "rotation by the number of open files is not implemented yet"),
    "enhanced.avro.schema.support": ("true", "lakesink's Avro schemas follow Confluent's default"),
    "connect.meta.data": ("true", "lakesink's Avro schemas follow Confluent's default"),
}

#: Keys whose values are never shown (wrapped in Secret, masked in errors).
SECRET_KEYS = frozenset(
    {"aws.access.key.id", "aws.secret.access.key", "s3.sse.customer.key", "s3.proxy.password"}
)

POLICY = KeyPolicy(
    "Confluent S3 sink", USED | USED_CLIENT_KEYS, CONNECT_PREFIXES, NO_EFFECT, DEFAULT_ONLY, SECRET_KEYS,
    held=frozenset({"report.null.values.to.dlq"}), no_effect_prefixes=("hive.",),
    rejected_prefixes={
        "s3.credentials.": "only the default AWS credential chain (or aws.access.key.id/aws.secret.access.key) can be used"
    },
    defaults_ignore_case=True,
    bounds={  # ConfigDef ranges of keys without effect here
        "tasks.max": Bound(int_setting, 1, 1),
        "s3.part.size": Bound(int_setting, 5 * 1024 * 1024, 5 * 1024 * 1024),
        "s3.part.retries": Bound(int_setting, 0, 0),
        "s3.retry.backoff.ms": Bound(long_setting, 0, 0),
        "retry.backoff.ms": Bound(long_setting, 0, 0),
    },
)
