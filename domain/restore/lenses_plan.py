"""A Lenses source config (KCQL + ``connect.<p>.*``) as a :class:`RestorePlan`."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.config.passthrough import ClientValue, ConverterSettings
from lakesink.domain.dialects.quix.naming import StoreLayout
from lakesink.domain.dialects.quix.restore_keys import QuixLayout
from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql import SourceStatement
from lakesink.domain.layout.key_segments import normalise_prefix
from lakesink.domain.restore.plan import (
    DEFAULT_LIMIT,
    INTERNAL_DIRECTORIES,
    PartitionRule,
    PostProcess,
    RestorePlan,
    RestoreRoot,
    page_size,
)


def lenses_restore_plan(
    props: Mapping[str, str], *, parallelism: int | None = None, provided: Collection[str] = frozenset()
) -> RestorePlan:
    """Validate a Lenses-style source config and build the plan.

    ``provided`` names the keys a config provider filled (see ``ConnectorSettings.from_properties``).

    Raises:
        ConfigError: any invalid setting or statement, or no ``bootstrap.servers``.
    """
    settings = ConnectorSettings.from_properties(props, role="source", provided=provided)
    source = settings.source
    if source is None:  # from_properties always sets it for role="source"
        raise ConfigError("The restore needs a source config.")
    statements: tuple[SourceStatement, ...] = tuple(
        s for s in settings.statements if isinstance(s, SourceStatement)
    )
    return RestorePlan(
        name=settings.name,
        backend=settings.backend,
        storage=settings.storage,
        roots=tuple(restore_root(number, statement, settings.header_converter) for number, statement in enumerate(statements)),
        producer=producer_settings(settings.bootstrap_servers, settings.kafka_client),
        partition_rule=PartitionRule(
            mode=source.partition_extractor.value,
            regex=source.partition_extractor_regex,
            remap_modulo=source.partition_remap_modulo,
        ),
        poll_interval_ms=source.partition_search_interval_ms,
        tolerate_errors=settings.error_policy is ErrorPolicy.NOOP,
        parallelism=parallelism,
        excluded_directories=tuple(
            dict.fromkeys((*INTERNAL_DIRECTORIES, settings.indexes_name, *source.partition_search_excludes))
        ),
        extension_includes=source.extension_includes,
        extension_excludes=source.extension_excludes,
        transaction_timeout_ms=source.transaction_timeout_ms,
    )


def producer_settings(
    bootstrap_servers: str | None, client: Mapping[str, ClientValue]
) -> dict[str, ClientValue]:
    """The producer's librdkafka settings; the brokers are required."""
    if not bootstrap_servers:
        raise ConfigError("bootstrap.servers is required for a restore (the Kafka brokers to produce to).")
    return {**client, "bootstrap.servers": bootstrap_servers}


def restore_root(number: int, statement: SourceStatement, header_converter: ConverterSettings) -> RestoreRoot:
    """The listing root of one source statement: what is listed, read and produced where."""
    options = statement.options
    post = None
    if options.post_process_action is not None:
        post = PostProcess(
            action=options.post_process_action,
            bucket=options.post_process_bucket,
            prefix=options.post_process_prefix,
            retain_dirs=bool(options.post_process_retain_dirs),
        )
    prefix = normalise_prefix(statement.prefix)
    return RestoreRoot(
        number=number,
        bucket=statement.bucket,
        list_prefix=prefix + "/" if prefix else "",
        topic=statement.topic,
        format=statement.format,
        csv_headers=statement.csv_headers,
        envelope=options.store_envelope,
        topic_from_envelope=options.topic_from_envelope,
        page_size=page_size(statement.batch),
        limit=statement.limit if statement.limit and statement.limit > 0 else DEFAULT_LIMIT,
        post_process=post,
        header_converter=header_converter,
        layout=QuixLayout() if options.store_layout is StoreLayout.QUIX else None,
    )

