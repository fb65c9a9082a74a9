"""A poison record in a sink task: which stage refused it (for the dead letter's headers), and skipping
it: logged in Kafka Connect's words, and kept as a dead letter when the sink has a dead-letter topic."""

from __future__ import annotations

import logging
import traceback

from lakesink.adapters.formats.record_decoding import Converters, RawRow
from lakesink.adapters.spark.sink_task_spec import SinkTaskSpec
from lakesink.adapters.spark.task_ranges import RangeState, Route
from lakesink.domain.dead_letters import DeadLetter, Stage
from lakesink.domain.errors import RecordError

logger = logging.getLogger(__name__)

_TASK = "lakesink.adapters.spark.sink_task.run_task"
"""The class name of a dead letter no statement takes: the task itself refused it."""


def skip_poison_record(
    spec: SinkTaskSpec,
    state: RangeState,
    row: RawRow,
    error: RecordError,
    stage: Stage,
    route: Route | None,
) -> None:
    """Skip a poison record: log it (in Kafka Connect's words under ``errors.log.enable``) and keep
    it as a dead letter when the sink has a dead-letter topic."""
    state.poison += 1
    reporting = spec.reporting
    if not reporting.log and reporting.dlq_topic is None:
        logger.warning("Skipping record %s (%s): %s", row.describe(), spec.skip_setting(stage), error)
        return
    if stage is Stage.TRANSFORMATION:
        class_name = qualified_name(spec.chain)
    elif stage is Stage.TASK_PUT:
        # the writer that refused it, or this task when no statement takes the record's topic
        class_name = _TASK if route is None else qualified_name(route.writer)
    else:
        class_name = spec.stage_class(stage)
    letter = DeadLetter(
        topic=row.topic,
        partition=row.partition,
        offset=row.offset,
        timestamp=row.timestamp,
        key=row.key,
        value=row.value,
        headers=row.headers,
        stage=stage,
        class_name=class_name,
        error_class=qualified_name(error),
        error_message=str(error),
        stacktrace="".join(traceback.format_exception(error)),
    )
    if reporting.log:
        logger.error("%s", letter.log_line(f"{spec.connector}-0", include_record=reporting.log_record))
    else:
        logger.warning("Skipping record %s (%s): %s", row.describe(), spec.skip_setting(stage), error)
    if reporting.dlq_topic is not None:
        state.dead_letters.append(letter)


def qualified_name(instance: object) -> str:
    kind = type(instance)
    return f"{kind.__module__}.{kind.__qualname__}"


def failed_converter(converters: Converters, row: RawRow, route: Route | None) -> Stage | None:
    """Which converter refuses ``row``: the key's or the value's (those ``route`` decodes; both
    when it is None), or None (a converter stage that failed then was a header's)."""
    where = row.describe()
    for stage, converter, data, decoded in (
        (Stage.KEY_CONVERTER, converters.key, row.key, route is None or route.decode_key),
        (Stage.VALUE_CONVERTER, converters.value, row.value, route is None or route.decode_value),
    ):
        if decoded:
            try:
                converter.decode(data, record=where)
            except RecordError:
                return stage
    return None
