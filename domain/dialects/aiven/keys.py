"""How lakesink treats each key of an Aiven S3 sink config: its
:class:`~lakesink.domain.dialects.kafka_connect.key_policy.KeyPolicy` table.

Aiven's legacy ``aws_s3_*`` / ``output_*`` spellings count as their keys (the dotted name wins when
both are set, as in Aiven). See docs/dialects.md, "Aiven S3 sink", "Keys" (the same table in prose).
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
        "aws.access.key.id",
        "aws.secret.access.key",
        "aws.s3.bucket.name",
        "aws.s3.region",
        "aws.s3.endpoint",
        "aws.s3.prefix",
        "aws.s3.backoff.max.retries",
        "file.name.template",
        "file.compression.type",
        "file.max.records",
        "file.name.timestamp.timezone",
        "file.name.timestamp.source",
        "timestamp.timezone",
        "timestamp.source",
        "format.output.type",
        "format.output.fields",
        "format.output.fields.value.encoding",
        "format.output.envelope",
        "avro.codec",
        "key.converter",
        "value.converter",
        "header.converter",
        "transforms",
        "offset.flush.interval.ms",
        "predicates",
        "security.protocol",
    }
)
#: Aiven's deprecated spellings and the key each one stands for.
LEGACY: Mapping[str, str] = {
    "aws_s3_bucket": "aws.s3.bucket.name",
    "aws_s3_endpoint": "aws.s3.endpoint",
    "aws_s3_region": "aws.s3.region",
    "aws_s3_prefix": "aws.s3.prefix",
    "output_fields": "format.output.fields",
    "output_compression": "file.compression.type",
}

#: Accepted without effect, and why.
NO_EFFECT: Mapping[str, str] = {
    "aws.s3.part.size.bytes": "lakesink's S3 store sizes its own multipart parts; keys and contents do not depend on it.",
    "aws.s3.backoff.delay.ms": "A delay of the AWS SDK for Java's retry policy; lakesink's S3 store has its own.",
    "aws.s3.backoff.max.delay.ms": "A delay of the AWS SDK for Java's retry policy; lakesink's S3 store has its own.",
    "kafka.retry.backoff.ms": "Kafka Connect's pause after a retriable error; Spark retries failed tasks.",
    "file.prefix.template": "Defined by Aiven but never read by its sinks.",
    "aws.s3.fetch.page.size": "An S3 source setting; Aiven's sink defines it but never reads it.",
    "aws.s3.fetch.buffer.size": "An S3 source setting; Aiven's sink defines it but never reads it.",
}

_STS = "STS role assumption is not implemented in lakesink's S3 store yet"
#: Features lakesink does not have yet: accepted unset or at Aiven's default (first item), and why.
DEFAULT_ONLY: Mapping[str, tuple[str, str]] = {
    "aws.s3.sse.algorithm": ("", "server-side encryption is not implemented in lakesink's S3 store yet"),
    "aws.credentials.provider": (
        "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
        "only the default credential chain (or aws.access.key.id/aws.secret.access.key) can be used",
    ),
    "aws.sts.role.arn": ("", _STS),
    "aws.sts.role.session.name": ("", _STS),
    "aws.sts.role.external.id": ("", _STS),
    "aws.sts.role.session.duration": ("3600", _STS),
    "aws.sts.config.endpoint": ("https://sts.amazonaws.com", _STS),
}
#: Keys refused with what to do instead (Aiven's S3 sink ignores them, so they cannot mean what they say).
REJECTED: Mapping[str, str] = {
    "aws_access_key_id": "Aiven's S3 sink ignores this old name ('not supported for this Connector') and uses the "
    "default credential chain; use aws.access.key.id",
    "aws_secret_access_key": "Aiven's S3 sink ignores this old name ('not supported for this Connector') and uses "
    "the default credential chain; use aws.secret.access.key",
    "file.name.prefix": "a GCS/Azure sink setting; Aiven's S3 sink ignores it. Put directories in "
    "file.name.template (or use aws.s3.prefix, which also changes the file names)",
}
REJECTED_PREFIXES: Mapping[str, str] = {
    "connect.parquet.": "Hadoop settings of Aiven's Java Parquet writer; lakesink writes Parquet with its own writer",
}

#: Keys whose values are never shown.
SECRET_KEYS = frozenset({"aws.access.key.id", "aws.secret.access.key", "aws_access_key_id", "aws_secret_access_key"})

POLICY = KeyPolicy(
    "Aiven S3 sink", USED, CONNECT_PREFIXES, NO_EFFECT, DEFAULT_ONLY, SECRET_KEYS, legacy=LEGACY,
    rejected=REJECTED, rejected_prefixes=REJECTED_PREFIXES,
    default_aliases={"aws.credentials.provider": frozenset({"com.amazonaws.auth.DefaultAWSCredentialsProviderChain"})},
    empty_means_default=True,
    bounds={
        "tasks.max": Bound(int_setting, 1, 1),
        "aws.s3.part.size.bytes": Bound(int_setting, 5 * 1024 * 1024, 1, 2_000_000_000, "Part size must be greater than 0",
                                        "Part size must be no more: 2000000000 bytes (2GB)"),
        "aws.s3.backoff.delay.ms": Bound(long_setting, 100, 1),
        "aws.s3.backoff.max.delay.ms": Bound(long_setting, 20_000, 1),
        "kafka.retry.backoff.ms": Bound(long_setting, 0, 0, 86_400_000),
        "aws.sts.role.session.duration": Bound(int_setting, 3600, 900, 43_200),
    },
)
