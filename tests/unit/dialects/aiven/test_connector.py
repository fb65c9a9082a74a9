"""An Aiven S3 sink config as the settings the sink runs on, and its files' edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakesink.adapters.dialects.aiven.files import AivenFiles
from lakesink.domain.dialects.aiven.connector import connector_settings
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from tests.support.aiven_configs import CONSOLE_WITH_AWS

ROUTER = {
    "transforms": "route",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": ".*",
    "transforms.route.replacement": "all",
}


def test_the_bridge_admits_partitions_at_the_flush_interval_with_no_record_count() -> None:
    settings = connector_settings(
        AivenSinkConfig.from_properties({**CONSOLE_WITH_AWS, "offset.flush.interval.ms": "2500"})
    )
    (statement,) = settings.statements
    assert settings.writing is not None and settings.writing.dialect == "aiven" and settings.disable_flush_count
    assert statement.bucket == "aiven-example"
    assert "'flush.interval'=3" in settings.kcql


def test_a_router_under_a_topic_partition_grouping_is_refused_but_allowed_when_grouping_by_key() -> None:
    with pytest.raises(ConfigError, match="transforms: a transform changes records' topics"):
        connector_settings(AivenSinkConfig.from_properties({**CONSOLE_WITH_AWS, **ROUTER}))
    by_key = {**CONSOLE_WITH_AWS, **ROUTER, "file.name.template": "{{key}}"}
    assert connector_settings(AivenSinkConfig.from_properties(by_key)).writing is not None


def test_a_file_of_no_bytes_is_no_object(tmp_path: Path) -> None:
    """csv of a null value writes nothing; Aiven's S3OutputStream then creates no object (and, grouped
    by key, the object of an earlier flush stays)."""
    config = AivenSinkConfig.from_properties(
        {**CONSOLE_WITH_AWS, "file.name.template": "{{key}}", "file.compression.type": "none"}
    )
    files = AivenFiles(config.writing, "aiven-example", tmp_path)
    files.write(Record("t", 0, 0, key=b"gone", value=None), ())
    files.write(Record("t", 0, 1, key=b"kept", value=b"v"), ())
    sealed = files.finish()
    assert [file.key for file in sealed] == ["kept"]
    assert sorted((tmp_path / "aiven").iterdir()) == [sealed[0].path]  # the empty staging file is gone
