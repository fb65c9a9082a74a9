"""How lakesink treats each key of a Confluent S3 sink config (``io.confluent.connect.s3.S3SinkConnector``).

Every key of a Confluent config falls in exactly one class, and docs/dialects.md is the same
table in prose:

* **used**: parsed into :class:`~lakesink.domain.config.confluent_sink.ConfluentSinkConfig`
  (object keys, formats, rotation, null values, converters, transforms...);
* **held**: validated and kept for the run: Kafka Connect's ``errors.*`` handling
  (``errors.tolerance=all`` skips records that cannot be written and sends them to the
  ``errors.deadletterqueue.topic.name`` topic, if set; ``errors.log.*`` logs them);
* **no effect**: accepted because it only tunes how Confluent's Java code does its work (part
  sizes, retries, buffers), never what is written or where;
* **default only**: a feature lakesink's stores do not have yet (SSE, canned ACLs, tagging,
  proxies...): the key is accepted at Confluent's default, any other value is an error;
* anything else is an error naming the key.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.key_check import did_you_mean
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.config.secret import MASK
from lakesink.domain.dialects.kafka_connect.config_def import int_setting, long_setting, string_setting
from lakesink.domain.errors import ConfigError

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
#: Key families read into the config: converter settings, transforms, Kafka client settings.
USED_PREFIXES = (
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "transforms.",
    "predicates.",
    "consumer.",
    "sasl.",
    "ssl.",
)
USED_CLIENT_KEYS = frozenset({"security.protocol"})

#: Kafka Connect error handling: validated and held (tolerance, dead-letter queue and error log are acted on).
HELD_PREFIXES = ("errors.",)
HELD = frozenset({"report.null.values.to.dlq"})

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

#: Every exact key name of the table (for "did you mean" hints).
KNOWN_KEYS = sorted({*USED, *USED_CLIENT_KEYS, *HELD, *NO_EFFECT, *DEFAULT_ONLY})


def key_class(key: str) -> str | None:
    """``used``, ``held``, ``no effect``, ``default only``, or None for a key Confluent's sink does not take here."""
    if framework_no_effect(key) is not None:
        return "no effect"
    if key in USED or key in USED_CLIENT_KEYS or key.startswith(USED_PREFIXES) or is_provider_key(key):
        return "used"
    if key in HELD or key.startswith(HELD_PREFIXES):
        return "held"
    if key in NO_EFFECT or (key.startswith("hive.") and key != "hive.integration"):
        return "no effect"
    if key in DEFAULT_ONLY:
        return "default only"
    return None


def check_keys(props: Mapping[str, str], provided: Collection[str]) -> None:
    """Refuse the first key (in name order) that is unknown or set away from its only accepted default.

    Raises:
        ConfigError: naming the key; a secret's or provided value is masked.
    """
    for key in sorted(props):
        kind = key_class(key)
        if kind is None:
            if key.startswith("s3.credentials."):
                raise ConfigError(
                    f"{key} is not supported: only the default AWS credential chain (or aws.access.key.id/aws.secret.access.key) can be used."
                )
            raise ConfigError(f"Unknown Confluent S3 sink setting {key}{did_you_mean(key, KNOWN_KEYS, cutoff=0.7)}.")
        if kind == "default only":
            default, why = DEFAULT_ONLY[key]
            value = string_setting(props, key, default)
            if value.lower() != default.lower():
                shown = MASK if key in SECRET_KEYS or key in provided else repr(value)
                raise ConfigError(
                    f"{key}={shown} is not supported yet: {why}; only its default {default!r} is accepted."
                )


#: Accepted-without-effect keys Confluent still validates: (INT or LONG, minimum).
_TUNING_BOUNDS = {
    "tasks.max": (int_setting, 1),
    "s3.part.size": (int_setting, 5 * 1024 * 1024),
    "s3.part.retries": (int_setting, 0),
    "s3.retry.backoff.ms": (long_setting, 0),
    "retry.backoff.ms": (long_setting, 0),
}


def check_tuning(props: Mapping[str, str]) -> None:
    """Confluent's bounds on keys that have no effect here, so a config Confluent refuses is refused.

    Raises:
        ConfigError: naming the key.
    """
    for key, (read, minimum) in _TUNING_BOUNDS.items():
        value = read(props, key, minimum)
        if value < minimum:
            raise ConfigError(f"Invalid value {value} for configuration {key}: must be at least {minimum}.")
