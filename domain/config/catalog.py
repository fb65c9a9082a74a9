"""Every connector-level key lakesink knows, in one table.

The parser takes types and defaults from here, the unknown-key check suggests names from here,
and docs/configuration.md is generated from here, so the three cannot drift apart. Names and
defaults are Lenses' (reference §1.6, §6, §7); lakesink additions say so in their doc.

Regenerate the reference with ``.venv/bin/python -m lakesink.domain.config.reference_doc > docs/configuration.md``.
"""

from __future__ import annotations

import re

from lakesink.domain.config.converter_classes import SIMPLE_HEADER
from lakesink.domain.config.framework_keys import NO_EFFECT_KEYS, NO_EFFECT_PREFIXES, framework_note
from lakesink.domain.config.keyspec import KeySpec, Kind, Scope
from lakesink.domain.config.keyspec import ValueType as T

_S3 = frozenset({"s3"})
_GCS = frozenset({"gcs"})
_AZURE = frozenset({"azure"})
_CLOUD = frozenset({"s3", "gcs", "azure"})
_SINK = Scope.SINK
_SOURCE = Scope.SOURCE

#: Kafka Connect's default header converter, and lakesink's.
SIMPLE_HEADER_CONVERTER = SIMPLE_HEADER

CATALOG: tuple[KeySpec, ...] = (
    # --- Kafka Connect keys ------------------------------------------------------------------
    KeySpec("name", T.STRING, None, "Connector name (required); names the index directory .indexes/<name>/.",
            prefixed=False),
    KeySpec("topics", T.LIST, None, "Topics to read; exactly one of topics / topics.regex.",
            scope=_SINK, prefixed=False),
    KeySpec("topics.regex", T.STRING, None, "Regular expression selecting the topics to read (full match).",
            scope=_SINK, prefixed=False),
    KeySpec("bootstrap.servers", T.LIST, None, "Kafka brokers, host:port list.", prefixed=False),
    KeySpec("key.converter", T.CLASS, None, "Converter class for record keys (Kafka Connect name).",
            prefixed=False),
    KeySpec("value.converter", T.CLASS, None, "Converter class for record values (Kafka Connect name).",
            prefixed=False),
    KeySpec("header.converter", T.CLASS, SIMPLE_HEADER_CONVERTER,
            "Converter class for header values, as Kafka Connect applies it: SimpleHeaderConverter "
            "(typed values parsed from UTF-8 text), StringConverter, ByteArrayConverter (raw bytes) or "
            "JsonConverter, or their aliases string, bytes, json. The restore uses its own to write headers back.",
            prefixed=False),
    KeySpec("key.converter.*", T.ANY, None, "Key converter settings (schemas.enable; for AvroConverter schema.registry.url, "
            "basic.auth.*, bearer.auth.*, schema.registry.ssl.*, max.retries: docs/kafka.md); "
            "secret-looking names are masked.", prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("value.converter.*", T.ANY, None, "Value converter settings, as for key.converter.*.",
            prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("header.converter.*", T.ANY, None, "Header converter settings (schemas.enable for JsonConverter, "
            "converter.encoding for StringConverter).", prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("consumer.*", T.ANY, None,
            "librdkafka consumer settings, prefix stripped (consumer.override.* too).",
            scope=_SINK, prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("producer.*", T.ANY, None,
            "librdkafka producer settings, prefix stripped (producer.override.* too).",
            scope=_SOURCE, prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("security.protocol", T.STRING, None, "Kafka client security protocol, handed to librdkafka.",
            prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("sasl.*", T.ANY, None, "Kafka client SASL settings, handed to librdkafka; passwords masked.",
            prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("ssl.*", T.ANY, None, "Kafka client TLS settings, handed to librdkafka; key material masked.",
            prefixed=False, kind=Kind.PASSTHROUGH),
    # --- Kafka Connect error reporting (docs/sink.md, Dead-letter queue) -----------------------
    KeySpec("errors.deadletterqueue.topic.name", T.STRING, None,
            "Topic that receives every record the sink skips (needs errors.tolerance=all or "
            "connect.<backend>.error.policy=NOOP): "
            "its key, value, headers and timestamp as read, in one Kafka transaction per batch committed "
            "before the batch, so each record reaches it once. Not one of the topics read.",
            scope=_SINK, prefixed=False),
    KeySpec("errors.deadletterqueue.context.headers.enable", T.BOOLEAN, "false",
            "Add Kafka Connect's __connect.errors.* headers (source topic, partition, offset, connector, "
            "stage, class, exception class, message and stack trace) to each dead letter.",
            scope=_SINK, prefixed=False),
    KeySpec("errors.deadletterqueue.topic.replication.factor", T.INT, "3",
            "Checked (-1 or 1..32767) and unused: lakesink does not create the dead-letter topic; create it "
            "(or let the broker auto-create it).", scope=_SINK, prefixed=False, kind=Kind.IGNORED),
    KeySpec("errors.tolerance", T.STRING, "none",
            "Kafka Connect's per-record tolerance, none or all. all: a record a converter or a transform "
            "fails on (per-record poison) is skipped, and sent to the dead-letter topic if one is set, while "
            "connect.<backend>.error.policy keeps governing the writes (THROW, RETRY or NOOP for store and "
            "batch failures, and for a record the format cannot hold).",
            scope=_SINK, prefixed=False),
    KeySpec("errors.log.enable", T.BOOLEAN, "false",
            "Log each skipped record at ERROR in Kafka Connect's words (stage, class, error) instead of "
            "lakesink's WARNING line.", scope=_SINK, prefixed=False),
    KeySpec("errors.log.include.messages", T.BOOLEAN, "false",
            "With errors.log.enable: add the record's topic, partition, offset and timestamp (never its data).",
            scope=_SINK, prefixed=False),
    # --- config providers (Kafka Connect worker keys, read before the settings are parsed) ---
    KeySpec("config.providers", T.LIST, None,
            "Aliases of the config providers that ${ALIAS:path:key} references in other values use.",
            prefixed=False, kind=Kind.PROVIDER),
    KeySpec("config.providers.*", T.ANY, None,
            "ALIAS.class (FileConfigProvider, DirectoryConfigProvider or EnvVarConfigProvider) and "
            "ALIAS.param.allowed.paths (file, directory) or ALIAS.param.allowlist.pattern (env).",
            prefixed=False, kind=Kind.PROVIDER),
    # --- accepted for compatibility, no effect ------------------------------------------------
    KeySpec("connector.class", T.CLASS, None,
            "Picks the backend when no connect.<backend>.* key does and must be a sink's or a source's class as "
            "the run; a class lakesink does not run is refused.",
            prefixed=False, kind=Kind.IGNORED),
    KeySpec("task.index", T.STRING, None, "Injected per task by Lenses' connector; Spark assigns the work.",
            kind=Kind.IGNORED),
    KeySpec("seek.max.files", T.INT, "5",
            "Vestigial in Lenses too (v1 indexes).", scope=_SINK, kind=Kind.IGNORED),
    KeySpec("transforms", T.LIST, None,
            "Single Message Transform aliases, applied in this order after the converters (docs/transforms.md).",
            scope=_SINK, prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("transforms.*", T.ANY, None,
            "transforms.<alias>.type names the class, the other transforms.<alias>.* keys configure it; "
            "transforms.<alias>.predicate / .negate guard it. Unknown classes and options are errors.",
            scope=_SINK, prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("predicates", T.LIST, None, "Predicate aliases the transforms' .predicate settings refer to.",
            scope=_SINK, prefixed=False, kind=Kind.PASSTHROUGH),
    KeySpec("predicates.*", T.ANY, None, "predicates.<alias>.type names the class; the other keys configure it.",
            scope=_SINK, prefixed=False, kind=Kind.PASSTHROUGH),
    # --- Kafka Connect framework keys without effect here (framework_keys.py) ----------------
    *(KeySpec(name, T.ANY, None, framework_note(name) or "", prefixed=False, kind=Kind.IGNORED)
      for name in NO_EFFECT_KEYS),
    *(KeySpec(prefix + "*", T.ANY, None, framework_note(prefix) or "", prefixed=False, kind=Kind.IGNORED)
      for prefix in NO_EFFECT_PREFIXES),
    # --- deprecated Lenses names (hard error, as in Lenses) -------------------------------
    KeySpec("aws.auth.mode", T.STRING, None, "Old S3 auth mode key.", prefixed=False, kind=Kind.DEPRECATED,
            backends=_S3, replacement="connect.s3.aws.auth.mode"),
    KeySpec("aws.access.key", T.PASSWORD, None, "Old S3 access key.", prefixed=False, secret=True,
            kind=Kind.DEPRECATED, backends=_S3, replacement="connect.s3.aws.access.key"),
    KeySpec("aws.secret.key", T.PASSWORD, None, "Old S3 secret key.", prefixed=False, secret=True,
            kind=Kind.DEPRECATED, backends=_S3, replacement="connect.s3.aws.secret.key"),
    KeySpec("aws.vhost.bucket", T.BOOLEAN, None,
            "Old virtual-host key.", prefixed=False, kind=Kind.DEPRECATED,
            backends=_S3, replacement="connect.s3.vhost.bucket"),
    KeySpec("aws.custom.endpoint", T.STRING, None, "Old endpoint key.", prefixed=False, kind=Kind.DEPRECATED,
            backends=_S3, replacement="connect.s3.custom.endpoint"),
    KeySpec("partition.search.recurse.levels", T.INT, None, "Old source key.", scope=_SOURCE,
            kind=Kind.DEPRECATED, replacement="source.partition.search.recurse.levels"),
    KeySpec("partition.search.interval", T.LONG, None, "Old source key.", scope=_SOURCE,
            kind=Kind.DEPRECATED, replacement="source.partition.search.interval"),
    KeySpec("partition.search.continuous", T.BOOLEAN, None, "Old source key.", scope=_SOURCE,
            kind=Kind.DEPRECATED, replacement="source.partition.search.continuous"),
    # --- every backend --------------------------------------------------------------------
    KeySpec("kcql", T.STRING, None, "KCQL statement(s), separated by ';' (required)."),
    KeySpec("error.policy", T.STRING, "THROW",
            "NOOP, THROW or RETRY, case-insensitive; anything else is an error."),
    KeySpec("max.retries", T.INT, "20", "Error-policy retries before the task fails (RETRY only)."),
    KeySpec("retry.interval", T.LONG, "60000", "Milliseconds between error-policy retries (RETRY only)."),
    KeySpec("compression.codec", T.STRING, "UNCOMPRESSED",
            "UNCOMPRESSED, SNAPPY, GZIP, LZO, LZ4, BROTLI, BZIP2, ZSTD, DEFLATE or XZ; unknown is an error."),
    KeySpec("compression.level", T.INT, "-1",
            "Codec level, -1 = codec default; Avro DEFLATE/XZ/ZSTD use it."),
    KeySpec("delete.mode", T.STRING, "BatchDelete", "BatchDelete or SeparateDelete (one call per key).", kind=Kind.NOT_YET),
    KeySpec("log.metrics", T.BOOLEAN, "false", "Log per-flush metrics.", kind=Kind.NOT_YET),
    # --- sink -----------------------------------------------------------------------------
    KeySpec("disable.flush.count", T.BOOLEAN, "false", "Ignore flush.count entirely.", scope=_SINK),
    KeySpec("local.tmp.directory", T.STRING, None,
            "Staging directory (not set = a fresh temporary directory).",
            scope=_SINK),
    KeySpec("padding.strategy", T.STRING, None, "Legacy offset padding: LeftPad, RightPad or NoOp; "
            "cannot be combined with KCQL padding.*.", scope=_SINK),
    KeySpec("padding.length", T.INT, "-1", "Legacy offset padding length, -1 = 12.", scope=_SINK),
    KeySpec("exactly.once.enable", T.BOOLEAN, "true", "false = at-least-once, no index.", scope=_SINK),
    KeySpec("exactly.once.single.writer", T.BOOLEAN, "false",
            "lakesink: true = run exactly-once on a store that ignores conditional writes (If-None-Match, "
            "If-Match), which is otherwise refused at start: locks, plans and objects are overwritten in place "
            "(deterministic keys make a redo idempotent) and nothing fences a second sink of the same name; "
            "run only one. A store that enforces the conditions still fences (docs/sink.md, Start-up).",
            scope=_SINK),
    KeySpec("range.split.offsets", T.LONG, "250000",
            "lakesink: split one topic-partition's range of a micro-batch into sub-ranges of at most this "
            "many offsets, each written by its own Spark task, so a one-partition backfill uses every core; "
            "0 = one task per topic-partition. Files are rolled at sub-range ends: a multiple of flush.count "
            "adds no file with the default layout, while each PARTITIONBY writer gets a file per sub-range.",
            scope=_SINK),
    KeySpec("metrics.port", T.INT, None,
            "lakesink: serve the sink's Prometheus metrics over HTTP on this port (0 = any free port, logged at "
            "INFO), at http://HOST:PORT/metrics (HOST: metrics.host); not set = no endpoint. lakesink sink --metrics-port "
            "wins over it (docs/operations.md, Metrics).", scope=_SINK),
    KeySpec("metrics.host", T.STRING, "127.0.0.1",
            "lakesink: the address the metrics endpoint listens on; 0.0.0.0 (or ::) opens it to other machines. "
            "lakesink sink --metrics-host wins over it.", scope=_SINK),
    KeySpec("table.catalog.type", T.STRING, "sql",
            "lakesink: the Iceberg catalog of statements with 'table.format'='ICEBERG': sql (pyiceberg's SQL "
            "catalog; a SQLite file by default, no server to run), rest or glue (docs/tables.md).", scope=_SINK),
    KeySpec("table.catalog.name", T.STRING, "lakesink", "lakesink: the Iceberg catalog's name.", scope=_SINK),
    KeySpec("table.catalog.uri", T.STRING, None,
            "lakesink: sql: a SQLAlchemy URL (not set = sqlite:///~/.local/share/lakesink/iceberg-catalog.db); "
            "rest: the catalog server's URL (required); glue: not used.", scope=_SINK),
    KeySpec("table.catalog.warehouse", T.STRING, None,
            "lakesink: the catalog's warehouse (REST catalogs that need one); tables live at their "
            "statement's bucket:prefix whatever it says.", scope=_SINK),
    KeySpec("table.catalog.*", T.ANY, None,
            "lakesink: further pyiceberg catalog properties, prefix stripped (table.catalog.credential, "
            "table.catalog.token, table.catalog.glue.region...); secret-looking names are masked.",
            scope=_SINK, kind=Kind.PASSTHROUGH),
    KeySpec("table.maintenance.every.batches", T.INT, None,
            "lakesink: maintain the tables (expire snapshots, compact closed partitions, delete orphans) after "
            "every this many batches, in the driver between batches; not set (nor interval) = no maintenance "
            "(docs/tables.md, Maintenance).", scope=_SINK),
    KeySpec("table.maintenance.interval", T.STRING, None,
            "lakesink: maintain the tables when this long passed since the last run (90s, 30m, 12h, 1d), "
            "checked after each batch.", scope=_SINK),
    KeySpec("table.maintenance.snapshots.keep", T.INT, "100",
            "lakesink: the newest Iceberg snapshots never expired (at least 1).", scope=_SINK),
    KeySpec("table.maintenance.snapshots.max.age", T.STRING, None,
            "lakesink: beyond snapshots.keep, expire only snapshots older than this (not set: every older one).",
            scope=_SINK),
    KeySpec("table.maintenance.compaction.target.file.size", T.LONG, "134217728",
            "lakesink: the size in bytes compaction packs a closed partition's small files into; 0 = no compaction.",
            scope=_SINK),
    KeySpec("table.maintenance.compaction.closed.after", T.STRING, "1h",
            "lakesink: a partition no file was added to for this long is closed: its small files are compacted.",
            scope=_SINK),
    KeySpec("table.maintenance.orphans.enable", T.BOOLEAN, "true",
            "lakesink: maintenance also deletes the files no table version references (as lakesink table clean).",
            scope=_SINK),
    KeySpec("table.maintenance.orphans.older.than", T.STRING, "3d",
            "lakesink: the grace period of orphan removal, as table clean --older-than.", scope=_SINK),
    KeySpec("indexes.name", T.STRING, ".indexes", "Index directory at the bucket root; relative, no '..'.",
            scope=_SINK),
    KeySpec("indexes.gc.interval.seconds", T.INT, "300", "Seconds between index garbage collections.",
            scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("indexes.gc.batch.size", T.INT, "1000", "Index objects deleted per GC call.", scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("indexes.gc.sweep.enabled", T.BOOLEAN, "true", "Sweep orphaned index objects.", scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("indexes.gc.sweep.interval.seconds", T.INT, "86400", "Seconds between sweeps.", scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("indexes.gc.sweep.min.age.seconds", T.INT, "86400",
            "Minimum age of a swept object.", scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("indexes.gc.sweep.max.reads", T.INT, "1000", "Objects read per sweep.", scope=_SINK, kind=Kind.NOT_YET),
    KeySpec("schema.change.detector", T.STRING, "default", "default (equality), version or compatibility.",
            scope=_SINK),
    KeySpec("skip.null.values", T.BOOLEAN, "false", "Drop records whose value is null (tombstones).",
            scope=_SINK),
    KeySpec("latest.schema.optimization.enabled", T.BOOLEAN, "false",
            "Do not roll files for older backward-compatible schemas (Avro/Parquet).", scope=_SINK),
    # --- source (restore) -------------------------------------------------------------------
    KeySpec("source.partition.search.continuous", T.BOOLEAN, "true",
            "Keep looking for new directories; a restore without --once always does "
            "(lakesink restore --once runs one pass).",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.partition.search.interval", T.LONG, "300000", "Milliseconds between directory searches.",
            scope=_SOURCE),
    KeySpec("source.partition.search.recurse.levels", T.INT, "0",
            "Directory levels to descend below the prefix.",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.partition.search.excludes", T.LIST, ".indexes", "Directory names never searched.",
            scope=_SOURCE),
    KeySpec("ordering.type", T.STRING, "AlphaNumeric", "AlphaNumeric (key order) or LastModified.",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.extension.includes", T.LIST, None,
            "Only read files with these extensions.", scope=_SOURCE),
    KeySpec("source.extension.excludes", T.LIST, None,
            "Never read files with these extensions.", scope=_SOURCE),
    KeySpec("source.empty.results.backoff.initial.delay", T.LONG, "1000",
            "Milliseconds to wait after an empty listing (> 0).", scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.empty.results.backoff.max.delay", T.LONG, "10000",
            "Longest empty-listing wait, ms (> 0).",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.empty.results.backoff.multiplier", T.DOUBLE, "2.0", "Backoff growth factor (> 1).",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.partition.extractor.type", T.STRING, "layout",
            "layout (lakesink: envelope metadata, else the partition the key layout names), none "
            "(lakesink: the producer's partitioner), hierarchical (…/<partition>/<file>) or regex.",
            scope=_SOURCE),
    KeySpec("source.partition.extractor.regex", T.STRING, None, "Regex whose group 1 is the partition.",
            scope=_SOURCE),
    KeySpec("source.partition.remap", T.STRING, "none",
            "lakesink: none (a target topic with too few partitions is an error) or modulo "
            "(partition p goes to p % partitions).", scope=_SOURCE),
    KeySpec("source.transaction.timeout.ms", T.INT, "60000",
            "lakesink: producer transaction timeout, ms (1000..900000); also the longest a restart "
            "waits for a transaction a crashed run left open.", scope=_SOURCE),
    KeySpec("source.write.watermark.headers", T.BOOLEAN, "false",
            "Add the source position as record headers.",
            scope=_SOURCE, kind=Kind.NOT_YET),
    KeySpec("source.late.arrival.interval", T.INT, "300",
            "Seconds between late-arrival passes.", scope=_SOURCE, kind=Kind.NOT_YET),
    # --- cloud HTTP clients -------------------------------------------------------------------
    KeySpec("http.max.retries", T.INT, "5",
            "Retries the storage SDK makes of a failed HTTP request, after the first attempt "
            "(docs/storage.md, Retries).", backends=_CLOUD),
    KeySpec("http.retry.interval", T.LONG, "50",
            "Retry delay base, ms. GCS: the first backoff, grown by http.retry.timeout.multiplier; "
            "Azure: the wait before every retry (+/- half); S3: not used (botocore's own base: "
            "50 ms, 1 s after throttling).", backends=_CLOUD),
    KeySpec("http.socket.timeout", T.LONG, "60000", "Socket (read) timeout, ms.", backends=_CLOUD),
    KeySpec("http.connection.timeout", T.LONG, "60000", "Connection timeout, ms.", backends=_CLOUD),
    KeySpec("http.retry.timeout.multiplier", T.DOUBLE, "3.0", "Growth of the GCS retry backoff per retry (capped at 20 s).",
            backends=_GCS),
    KeySpec("pool.max.connections", T.INT, "-1",
            "HTTP connection pool size; -1 = 50 for S3, SDK default for Azure.",
            backends=frozenset({"s3", "azure"})),
    # --- S3 ---------------------------------------------------------------------------------
    KeySpec("aws.auth.mode", T.STRING, "Default", "Credentials or Default (SDK chain), case-insensitive.",
            backends=_S3),
    KeySpec("aws.access.key", T.PASSWORD, None, "Access key (Credentials mode).", secret=True, backends=_S3),
    KeySpec("aws.secret.key", T.PASSWORD, None, "Secret key (Credentials mode).", secret=True, backends=_S3),
    KeySpec("aws.region", T.STRING, None, "Region (not set = SDK default chain).", backends=_S3),
    KeySpec("custom.endpoint", T.STRING, None, "Endpoint URL for S3-compatible stores (MinIO, ...).",
            backends=_S3),
    KeySpec("ca.bundle", T.STRING, None,
            "lakesink: absolute path of a PEM file holding the CA certificates that sign the endpoint's TLS "
            "certificate (a private CA, a self-signed MinIO); the same path on every executor. Not set = "
            "botocore's default: AWS_CA_BUNDLE, else its own bundle of public CAs.", backends=_S3),
    KeySpec("path.style.access", T.BOOLEAN, None,
            "true = path-style URLs; wins over vhost.bucket.", backends=_S3),
    KeySpec("vhost.bucket", T.BOOLEAN, "false", "Deprecated and inverted: true enables path-style access.",
            backends=_S3),
    KeySpec("checksum.calculation", T.STRING, None,
            "lakesink: when the S3 client adds checksums: when_supported (boto3's default since 1.36: a CRC32 "
            "on every upload, checksums asked for on every read) or when_required (only where the S3 API "
            "requires one, as before 1.36), case-insensitive. Not set = decided at start: a small probe "
            "object is written and read with boto3's default, and a store that refuses it but takes it "
            "without the checksums gets when_required, said in one INFO line (docs/storage.md, "
            "Request checksums).", backends=_S3),
    KeySpec("multipart.threshold", T.LONG, str(16 * 1024 * 1024), "lakesink: bytes above which uploads are "
            "multipart.", backends=_S3),
    KeySpec("multipart.part.size", T.LONG, str(8 * 1024 * 1024), "lakesink: multipart part size, bytes "
            "(>= 5 MiB).", backends=_S3),
    # --- GCS --------------------------------------------------------------------------------
    KeySpec("gcp.auth.mode", T.STRING, "Default", "Credentials, File, Default or None, case-insensitive.",
            backends=_GCS),
    KeySpec("gcp.credentials", T.PASSWORD, None, "Service-account JSON text (Credentials mode).", secret=True,
            backends=_GCS),
    KeySpec("gcp.file", T.STRING, None, "Path of a service-account JSON file (File mode).", backends=_GCS),
    KeySpec("gcp.project.id", T.STRING, None, "Project id.", backends=_GCS),
    KeySpec("gcp.quota.project.id", T.STRING, None, "Project billed for quota.", backends=_GCS, kind=Kind.NOT_YET),
    KeySpec("endpoint", T.STRING, None, "Endpoint URL (emulators, private endpoints).",
            backends=frozenset({"gcs", "azure"})),
    KeySpec("avoid.resumable.upload", T.BOOLEAN, "false", "Single-request uploads only.", backends=_GCS, kind=Kind.NOT_YET),
    # --- Azure ------------------------------------------------------------------------------
    KeySpec("azure.auth.mode", T.STRING, "Default",
            "Credentials, ConnectionString or Default, case-insensitive.",
            backends=_AZURE),
    KeySpec("azure.account.name", T.STRING, None, "Storage account (Credentials mode).", backends=_AZURE),
    KeySpec("azure.account.key", T.PASSWORD, None, "Account key (Credentials mode).", secret=True,
            backends=_AZURE),
    KeySpec("azure.connection.string", T.PASSWORD, None, "Connection string (ConnectionString mode).",
            secret=True, backends=_AZURE),
    # --- local and memory (lakesink backends) ---------------------------------------------
    KeySpec("root", T.STRING, None, "lakesink: directory holding the buckets (required).",
            backends=frozenset({"local"})),
    KeySpec("name", T.STRING, "default", "lakesink: name of the in-process store.",
            backends=frozenset({"memory"})),
)

_SECRET_NAME = re.compile(r"password|secret|token|jaas|credentials?$|user\.info|(^|\.)key(\.pem)?$|\.key\.")


def looks_secret(name: str) -> bool:
    """Whether a pass-through key (``sasl.password``, ``ssl.key.pem``, ``*.user.info``) holds a secret."""
    return bool(_SECRET_NAME.search(name.lower()))


def setting(name: str, *, prefixed: bool = True) -> KeySpec:
    """The SETTING entry called ``name``; a KeyError means a parser asked for a key the catalog lacks."""
    for spec in CATALOG:
        if spec.kind in (Kind.SETTING, Kind.NOT_YET) and spec.prefixed == prefixed and spec.name == name:
            return spec
    raise KeyError(name)


def find_spec(key: str, *, prefix: str, backend: str) -> KeySpec | None:
    """The entry a (normalised) config key falls under for ``backend``, or None if unknown.

    Exact names win over families, so ``key.converter`` is the class and ``key.converter.x`` a
    sub-setting.
    """
    if key.startswith(prefix + "."):
        name, prefixed = key[len(prefix) + 1 :], True
    else:
        name, prefixed = key, False
    candidates = [s for s in CATALOG if s.prefixed == prefixed and s.applies_to(backend)]
    for spec in sorted(candidates, key=lambda s: s.is_family):
        if spec.matches(name):
            return spec
    return None


def known_keys(*, prefix: str, backend: str) -> list[str]:
    """Every exact key valid for ``backend``, for "did you mean" suggestions."""
    return [
        spec.full_key(prefix)
        for spec in CATALOG
        if not spec.is_family and spec.applies_to(backend) and spec.kind is not Kind.DEPRECATED
    ]
