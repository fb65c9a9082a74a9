"""What one sink task needs, decided on the driver and shipped (pickled) with the task's closure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from lakesink.adapters.formats.record_decoding import canonical_converter, headers_decoded
from lakesink.domain.config.catalog import SIMPLE_HEADER_CONVERTER
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.config.error_reporting import ErrorReporting
from lakesink.domain.config.passthrough import ConverterSettings
from lakesink.domain.dead_letters import Stage
from lakesink.domain.ports import ObjectStore
from lakesink.domain.records import TopicPartition
from lakesink.domain.statement_plan import SinkPlan
from lakesink.domain.transforms.chain import BatchClock, TransformChain


@dataclass(frozen=True)
class SinkTaskSpec:
    """Everything a task needs, built on the driver and shipped (pickled) with the closure."""

    plan: SinkPlan
    store: ObjectStore
    connector: str
    indexes_name: str
    setting_prefix: str
    run_id: str
    exactly_once: bool
    skip_null_values: bool
    skip_poison: bool
    """``error.policy=NOOP`` (a Confluent or Aiven sink's ``errors.tolerance=all``): every poison record is skipped."""
    staging_root: str | None
    key_converter: ConverterSettings
    value_converter: ConverterSettings
    header_converter: ConverterSettings = ConverterSettings()
    floors: Mapping[TopicPartition, int] = field(default_factory=dict)
    granular: Mapping[TopicPartition, Mapping[str, int]] = field(default_factory=dict)
    chain: TransformChain = field(default_factory=TransformChain)
    clock_ms: int | None = None
    """The batch clock the chain's wall-clock transforms read, recorded in the range plans; None: none does."""
    reporting: ErrorReporting = ErrorReporting()
    """Where skipped poison records are reported: kept as dead letters when there is a dead-letter topic."""
    tolerate_record_errors: bool = False
    """A Lenses config's ``errors.tolerance=all``: a record a converter or a transform fails on is
    skipped, as Kafka Connect skips it before the connector's ``put``; a record the writer refuses
    still follows ``error.policy``."""

    @cached_property
    def dialect_config(self) -> bool:
        """Whether the config is a Confluent or Aiven sink's (its settings, its files), not a Lenses one."""
        return any(statement.writing is not None for statement in self.plan.statements)

    def skips(self, stage: Stage) -> bool:
        """Whether a record that fails at ``stage`` is skipped rather than failing the batch."""
        return self.skip_poison or (self.tolerate_record_errors and stage is not Stage.TASK_PUT)

    def skip_setting(self, stage: Stage) -> str:
        """The setting that skips a record failing at ``stage``: Kafka Connect's tolerance where it
        reaches (a Confluent or Aiven sink's writes too), else Lenses' error policy."""
        if self.dialect_config or stage is not Stage.TASK_PUT:
            return "errors.tolerance=all"
        return f"{self.setting_prefix}.error.policy=NOOP"

    @property
    def staging_setting(self) -> str:
        """What moves the staging directory: Lenses' setting, or (a Confluent or Aiven config has
        none) the executors' temporary directory."""
        return "the executors' TMPDIR" if self.dialect_config else f"{self.setting_prefix}.local.tmp.directory"

    @property
    def columnar(self) -> bool:
        """Whether batches may take the columnar paths: not under a Confluent or Aiven config,
        whose files are placed record by record."""
        return not self.dialect_config

    @cached_property
    def chain_headers(self) -> bool:
        """Whether the chain sees converted headers: when some statement it may route to uses them
        (else it sees the bytes, which the ``list`` layout stores exactly)."""
        return any(headers_decoded(statement) for statement in self.plan.statements)

    @classmethod
    def for_settings(
        cls,
        settings: ConnectorSettings,
        *,
        plan: SinkPlan,
        store: ObjectStore,
        run_id: str,
        staging_root: str | None = None,
        floors: Mapping[TopicPartition, int] | None = None,
        granular: Mapping[TopicPartition, Mapping[str, int]] | None = None,
        clock_ms: int = 0,
    ) -> SinkTaskSpec:
        """The spec of one batch: what the connector settings decide, plus this run's state.

        ``clock_ms`` is the batch clock the settings' transforms read. Any chain records it in the
        range plans, not only one that reads the wall clock on purpose: a transform may fall back to
        the clock (Lenses' timestamp headers do for a record without a timestamp), and a replay must
        see the same time.
        """
        chain = settings.transform_chain(BatchClock(clock_ms))
        reads_clock = bool(chain) or (settings.writing is not None and settings.writing.reads_clock)
        return cls(
            plan=plan,
            store=store,
            connector=settings.name,
            indexes_name=settings.indexes_name,
            setting_prefix=settings.prefix,
            run_id=run_id,
            exactly_once=settings.exactly_once,
            skip_null_values=settings.skip_null_values,
            skip_poison=settings.error_policy is ErrorPolicy.NOOP,
            staging_root=staging_root or settings.local_tmp_directory,
            key_converter=settings.key_converter,
            value_converter=settings.value_converter,
            header_converter=settings.header_converter,
            floors=floors or {},
            granular=granular or {},
            chain=chain,
            clock_ms=clock_ms if reads_clock else None,
            reporting=settings.error_reporting,
            tolerate_record_errors=settings.tolerate_record_errors,
        )

    def stage_class(self, stage: Stage) -> str:
        """The Connect class name of a converter stage (the ``class.name`` header of a dead letter)."""
        if stage is Stage.KEY_CONVERTER:
            return canonical_converter(self.key_converter) or _BYTES_CONVERTER
        if stage is Stage.VALUE_CONVERTER:
            return canonical_converter(self.value_converter) or _BYTES_CONVERTER
        return canonical_converter(self.header_converter) or SIMPLE_HEADER_CONVERTER


_BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
"""lakesink's converter when none is set: the bytes as read."""


_BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
"""lakesink's converter when none is set: the bytes as read."""
