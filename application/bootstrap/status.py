"""``lakesink status --config FILE [--json]``: the sink config in, its store, cluster and group wired to the report.

The config is validated as ``lakesink sink`` validates it (Lenses KCQL, Confluent or Aiven S3 sink:
in exactly-once mode each has an index on the store), and its buckets are checked the same way.
Kafka is asked with a short timeout (:data:`~.verify_command.KAFKA_TIMEOUT_S`): a cluster that does
not answer is reported (exit 1) beside what the store says.
"""

from __future__ import annotations

from lakesink.adapters.kafka.client_config import connector_client_settings
from lakesink.adapters.kafka.group_offsets import connect_group_id, read_group
from lakesink.application.bootstrap.verify import KAFKA_TIMEOUT_S, kafka_view, opened_verify_plan
from lakesink.application.status import run_status
from lakesink.domain.errors import LakesinkError
from lakesink.domain.verify.status import StatusReport


def run_status_command(config_path: str) -> StatusReport:
    """Load the config, check its buckets answer, then report each partition's offsets and lag.

    Raises:
        ConfigError: an invalid config, a missing bucket or refused credentials.
        StorageError: the store does not answer.
        CommitError: a lock is malformed.
    """
    settings, plan, store = opened_verify_plan(config_path)
    kafka = kafka_view(settings)
    group_id = connect_group_id(settings.name)
    if kafka.error is not None:
        return run_status(plan, store, kafka, group_id=group_id, group=None, group_error="Kafka not reachable")
    try:
        group = read_group(connector_client_settings(settings), group_id, kafka.partitions, timeout_s=KAFKA_TIMEOUT_S)
    except LakesinkError as error:
        return run_status(
            plan, store, kafka, group_id=group_id, group=None, group_error=settings.hidden.scrub(str(error))
        )
    return run_status(plan, store, kafka, group_id=group_id, group=group)
