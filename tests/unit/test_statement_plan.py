"""Rules that need both a KCQL statement and the connector settings."""

from __future__ import annotations

import pytest

from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.errors import ConfigError, RecordError
from lakesink.domain.formats import CompressionCodec
from lakesink.domain.statement_plan import plan_sink


def settings(kcql: str, **extra: str) -> ConnectorSettings:
    props = {"name": "n", "connect.s3.kcql": kcql, "topics.regex": ".*", **extra}
    return ConnectorSettings.from_properties(props)


def test_a_topic_routes_to_the_first_statement_that_names_it_or_takes_every_topic() -> None:
    plan = plan_sink(settings("INSERT INTO a SELECT * FROM t1; INSERT INTO b SELECT * FROM `*`"))
    assert plan.route("t1").bucket == "a"
    assert plan.route("t2").bucket == "b"


def test_a_topic_no_statement_takes_is_a_record_error() -> None:
    plan = plan_sink(settings("INSERT INTO a SELECT * FROM t1", **{"topics.regex": "t.*"}))
    with pytest.raises(RecordError, match=r"\[t9\]"):
        plan.route("t9")


def test_text_csv_and_bytes_ignore_the_connector_codec_like_lenses() -> None:
    plan = plan_sink(settings("INSERT INTO a SELECT * FROM t STOREAS `TEXT`", **{"connect.s3.compression.codec": "ZSTD"}))
    assert plan.statements[0].codec is CompressionCodec.UNCOMPRESSED
    assert plan.statements[0].layout.file_extension == "text"


def test_gzip_json_files_end_in_gz() -> None:
    plan = plan_sink(settings("INSERT INTO a SELECT * FROM t", **{"connect.s3.compression.codec": "GZIP"}))
    assert plan.statements[0].layout.file_extension == "gz"


@pytest.mark.parametrize(("fmt", "codec"), [("JSON", "SNAPPY"), ("AVRO", "GZIP"), ("PARQUET", "LZO"), ("PARQUET", "XZ")])
def test_a_codec_the_format_cannot_write_is_rejected_naming_the_key(fmt: str, codec: str) -> None:
    with pytest.raises(ConfigError, match="connect.s3.compression.codec"):
        plan_sink(settings(f"INSERT INTO a SELECT * FROM t STOREAS `{fmt}`", **{"connect.s3.compression.codec": codec}))


def test_disable_flush_count_removes_the_count_condition() -> None:
    plan = plan_sink(settings("INSERT INTO a SELECT * FROM t", **{"connect.s3.disable.flush.count": "true"}))
    assert plan.statements[0].flush.count is None
    assert plan.statements[0].resolved_properties()["flush.count"] is None
