"""What every restore from a sink config (Confluent, Aiven) shares: its restore-only keys and plan shell.

A sink config restored by ``lakesink restore`` keeps its own validation; around it the restore
adds the same few things whichever dialect it is, so they behave alike: ``producer.*`` keys are
the restore's librdkafka producer settings (stripped before the sink's validation, which does
not know them), ``tasks.max`` caps the Spark parallelism, and each record goes back to the
partition its object key names.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.passthrough import parse_kafka_client
from lakesink.domain.dialects.kafka_connect.config_def import int_setting
from lakesink.domain.dialects.kafka_connect.connector_settings import DialectConfig
from lakesink.domain.restore.lenses_plan import producer_settings
from lakesink.domain.restore.plan import PartitionMode, PartitionRule, RestorePlan, RestoreRoot

_RESTORE_ONLY_PREFIX = "producer."


def sink_settings(props: Mapping[str, str]) -> dict[str, str]:
    """``props`` without the restore-only ``producer.*`` keys: what the sink's validation reads."""
    return {key: value for key, value in props.items() if not key.startswith(_RESTORE_ONLY_PREFIX)}


def sink_restore_plan(
    props: Mapping[str, str],
    root: RestoreRoot,
    config: DialectConfig,
    *,
    tolerate_errors: bool,
    parallelism: int | None,
) -> RestorePlan:
    """The plan restoring ``root`` over S3, records into the partitions the keys name.

    The keys a config provider filled stay secrets among the producer settings; ``parallelism`` (the caller's) wins over ``tasks.max``.
    """
    tasks = int_setting(props, "tasks.max", 0)
    return RestorePlan(
        name=config.name,
        backend="s3",
        storage=config.storage,
        roots=(root,),
        producer=producer_settings(
            config.bootstrap_servers, parse_kafka_client(props, "source", hidden=config.hidden.keys)
        ),
        partition_rule=PartitionRule(PartitionMode.LAYOUT),
        tolerate_errors=tolerate_errors,
        parallelism=parallelism or (tasks if tasks > 0 else None),
    )
