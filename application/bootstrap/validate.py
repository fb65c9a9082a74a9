"""``lakesink config validate FILE [--json] [--connect]``: reads the file and wires the checks.

The file is read once as written (the report shows its keys in order and its references as
written) and its config provider references resolved for the checks. ``--connect`` adds the
checks ``sink`` and ``restore`` run before Spark starts (:mod:`.preflight`): every bucket and the
Kafka cluster answer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.adapters.kafka.client_config import connector_client_settings, consumer_config, producer_config
from lakesink.application.bootstrap.config_file import read_config_file, resolve_locally
from lakesink.application.config_validation import Loaded, ValidationReport, validate_config
from lakesink.domain.restore.plan import RestorePlan


def run_validate(config_path: str, *, connect: bool) -> ValidationReport:
    """Validate the config in ``config_path``; with ``connect``, check its bucket and broker too.

    Raises:
        ConfigError: the file cannot be read or parsed, or a reference cannot be resolved (one line).
        LakesinkError: with ``connect``, a service does not answer (exit 1, as ``sink`` does).
    """
    written = read_config_file(config_path)
    resolved = resolve_locally(written)
    return validate_config(
        config_path, written, resolved, clients=_check_clients, connect=_check_environment if connect else None
    )


def _check_clients(loaded: Loaded) -> None:
    """The Kafka client settings of the run, translated for librdkafka as its clients get them."""
    if isinstance(loaded, RestorePlan):
        producer_config(loaded.producer)
    else:
        consumer_config(connector_client_settings(loaded), group_id=loaded.name)


def _check_environment(values: Mapping[str, str], loaded: Loaded, provided: Collection[str]) -> None:
    """The preflight of the run the config is for (imported here: it loads the Kafka and store SDKs)."""
    from lakesink.application.bootstrap.preflight import check_restore_environment, check_sink_environment

    if isinstance(loaded, RestorePlan):
        check_restore_environment(values, loaded, provided)
    else:
        check_sink_environment(loaded)
