"""Kafka Connect's ``errors.tolerance=all`` in a Lenses config: per-record poison (a converter or a
transform failing) is skipped to the dead-letter queue, while ``connect.<p>.error.policy`` keeps
governing what the writer and the store do: the two layers of the Lenses page's production example."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakesink.adapters.spark.task_results import result_of
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.enums import ErrorPolicy
from lakesink.domain.dead_letters import Stage
from lakesink.domain.errors import ConfigError, RecordError
from tests.support.sink_batches import SELECT, TOPIC, kafka_batch, run_batches, task_spec

TOLERANT = {
    "errors.tolerance": "all",
    "errors.deadletterqueue.topic.name": "dlq",
    "errors.deadletterqueue.context.headers.enable": "true",
}


def _settings(**extra: str) -> ConnectorSettings:
    return ConnectorSettings.from_properties(
        {"name": "s", "topics": TOPIC, "connect.s3.kcql": f"{SELECT} STOREAS `JSON`", **extra}
    )


def test_errors_tolerance_all_is_accepted_beside_every_error_policy() -> None:
    for policy in ErrorPolicy:
        settings = _settings(**TOLERANT, **{"connect.s3.error.policy": policy.value})
        assert settings.tolerate_record_errors and settings.error_policy is policy
        assert settings.error_reporting.dlq_topic == "dlq"
    assert not _settings().tolerate_record_errors
    assert _settings(**{"errors.tolerance": "ALL"}).tolerate_record_errors  # Connect reads it case-insensitively


def test_other_tolerances_are_refused_in_kafka_connects_words() -> None:
    with pytest.raises(ConfigError, match="Invalid value some for configuration errors.tolerance: String must be one"):
        _settings(**{"errors.tolerance": "some"})


def test_a_dead_letter_topic_without_either_skipping_setting_names_both() -> None:
    with pytest.raises(ConfigError, match="needs errors.tolerance=all or connect.s3.error.policy=NOOP"):
        _settings(**{"errors.deadletterqueue.topic.name": "dlq"})


@pytest.mark.parametrize("policy", ["THROW", "RETRY"])
def test_a_record_the_converter_refuses_is_skipped_to_the_dead_letters_whatever_the_policy(
    tmp_path: Path, policy: str
) -> None:
    spec = task_spec(
        f"{SELECT} STOREAS `PARQUET`", tmp_path, floor=None, **TOLERANT, **{"connect.memory.error.policy": policy}
    )
    values = [json.dumps({"n": 0}).encode(), b"not json", json.dumps({"n": 2}).encode()]

    objects, rows = run_batches(spec, [kafka_batch(values)])

    [result] = [result_of(row) for row in rows]
    assert (result.records, result.poison, result.last) == (2, 1, 2)
    [letter] = result.dead_letters
    assert (letter.offset, letter.value, letter.stage) == (1, b"not json", Stage.VALUE_CONVERTER)
    [data] = objects.values()
    assert pq.read_table(pa.BufferReader(data)).to_pylist() == [{"n": 0}, {"n": 2}]


def test_a_record_the_writer_refuses_still_follows_the_error_policy(tmp_path: Path) -> None:
    """CSV cannot hold a nested value: the converter read it, so Connect would call put() with it
    and the Lenses sink's error policy (THROW) decides; the message names that setting."""
    spec = task_spec(f"{SELECT} STOREAS `CSV`", tmp_path, floor=None, **TOLERANT)

    with pytest.raises(RecordError, match=r"orders-0@0 cannot be written: .*set connect.memory.error.policy=NOOP"):
        run_batches(spec, [kafka_batch([json.dumps({"nested": {"a": 1}}).encode()])])


def test_without_tolerance_a_converter_failure_names_errors_tolerance(tmp_path: Path) -> None:
    spec = task_spec(f"{SELECT} STOREAS `PARQUET`", tmp_path, floor=None)

    with pytest.raises(RecordError, match=r"orders-0@0 cannot be written: .*set errors.tolerance=all"):
        run_batches(spec, [kafka_batch([b"not json"])])
