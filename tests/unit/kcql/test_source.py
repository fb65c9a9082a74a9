"""The source (restore) form: INSERT INTO topic SELECT * FROM bucket[:prefix] ..."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import KcqlError
from lakesink.domain.formats import Format
from lakesink.domain.kcql import SourceProperties, SourceStatement, parse_source


def parse_one(text: str) -> SourceStatement:
    statements = parse_source(text)
    assert len(statements) == 1
    return statements[0]


def error_of(text: str) -> KcqlError:
    with pytest.raises(KcqlError) as caught:
        parse_source(text)
    return caught.value


def test_full_source_statement_in_lenses_spelling() -> None:
    stmt = parse_one(
        "INSERT INTO restored SELECT * FROM backups:streamReactorBackups BATCH = 500 STOREAS `AVRO` LIMIT 100"
    )
    assert (stmt.topic, stmt.bucket, stmt.prefix) == ("restored", "backups", "streamReactorBackups")
    assert (stmt.format, stmt.batch, stmt.limit) == (Format.AVRO, 500, 100)
    assert stmt.options == SourceProperties()


@pytest.mark.parametrize("batch", ["BATCH=7", "batch 7", "Batch = 7"])
def test_batch_may_be_written_with_or_without_equals(batch: str) -> None:
    assert parse_one(f"INSERT INTO t SELECT * FROM b {batch}").batch == 7


def test_batch_and_limit_default_to_unset_and_format_to_json() -> None:
    stmt = parse_one("insert into t select * from b")
    assert (stmt.batch, stmt.limit, stmt.prefix, stmt.format) == (None, None, None, Format.JSON)


@pytest.mark.parametrize(
    ("clause", "fragment"),
    [
        ("BATCH = 0", "BATCH must be at least 1, found 0"),
        ("BATCH = x", "expected a whole number after BATCH, found 'x'"),
        ("LIMIT -1", "LIMIT must be at least 1, found -1"),
        ("LIMIT", "expected a whole number after LIMIT, found the end of the statement"),
    ],
)
def test_batch_and_limit_must_be_positive_whole_numbers(clause: str, fragment: str) -> None:
    assert fragment in error_of(f"INSERT INTO t SELECT * FROM b {clause}").reason


def test_limit_must_come_after_storeas() -> None:
    assert (
        error_of("INSERT INTO t SELECT * FROM b LIMIT 5 STOREAS `JSON`").reason
        == "STOREAS must come before LIMIT"
    )


@pytest.mark.parametrize("clause", ["PARTITIONBY a", "NOPARTITION", "WITHFORMAT x"])
def test_sink_only_clauses_are_not_supported_by_the_source(clause: str) -> None:
    assert "is not supported by the source" in error_of(f"INSERT INTO t SELECT * FROM b {clause}").reason


def test_star_is_not_a_target_topic_nor_a_bucket() -> None:
    assert "invalid topic name '*'" in error_of("INSERT INTO `*` SELECT * FROM b").reason
    assert (
        "expected the bucket[:prefix] to read after FROM" in error_of("INSERT INTO t SELECT * FROM *").reason
    )


@pytest.mark.parametrize(
    "props",
    [
        "'read.text.mode'=regex, 'read.text.regex'='^[0-9]+'",
        "'read.text.mode'=StartEndTag, 'read.text.start.tag'='<x>', 'read.text.end.tag'='</x>', "
        "'read.text.buffer.size'=4096",
        "'read.text.mode'=StartEndLine, 'read.text.start.line'='SSM', 'read.text.end.line'='', "
        "'read.text.trim'=true, 'read.text.last.end.line.missing'=true",
    ],
)
def test_text_modes_with_their_companion_keys_are_accepted(props: str) -> None:
    # Validated but not kept: the restore reads TEXT one record per line (SourceProperties).
    stmt = parse_one(f"INSERT INTO t SELECT * FROM b STOREAS `TEXT` PROPERTIES({props})")
    assert stmt.options == SourceProperties()


@pytest.mark.parametrize(
    ("props", "fragment"),
    [
        ("'read.text.mode'=regex", "read.text.mode=Regex also needs read.text.regex"),
        ("'read.text.mode'=startendtag, 'read.text.start.tag'='<a>'", "also needs read.text.end.tag"),
        ("'read.text.regex'='a'", "'read.text.regex' applies only together with 'read.text.mode'"),
        ("'read.text.mode'=regex, 'read.text.regex'='a', 'read.text.trim'=true",
         "'read.text.trim' does not apply to read.text.mode=Regex"),
        ("'read.text.mode'=regex, 'read.text.regex'='('", "not a valid regular expression"),
        ("'read.text.mode'=lines", "Invalid value 'lines' for read.text.mode"),
        ("'read.text.mode'=StartEndTag, 'read.text.start.tag'='', "
         "'read.text.end.tag'='b'", "must not be empty"),
    ],
)  # fmt: skip
def test_text_mode_errors(props: str, fragment: str) -> None:
    assert fragment in error_of(f"INSERT INTO t SELECT * FROM b STOREAS `TEXT` PROPERTIES({props})").reason


def test_text_mode_applies_only_to_text_files() -> None:
    error = error_of(
        "INSERT INTO t SELECT * FROM b STOREAS `JSON` PROPERTIES('read.text.mode'=regex, "
        "'read.text.regex'='a')"
    )
    assert "applies only to STOREAS `TEXT`" in error.reason


def test_move_post_processing_is_typed() -> None:
    stmt = parse_one(
        "INSERT INTO t SELECT * FROM b:in PROPERTIES('post.process.action'=move, "
        "'post.process.action.bucket'=archive, "
        "'post.process.action.prefix'='done/', 'post.process.action.retain.dirs'=true, "
        "'post.process.action.watermark.process.late.arrival'=false)"
    )
    assert stmt.options == SourceProperties(
        post_process_action="Move",
        post_process_bucket="archive",
        post_process_prefix="done/",
        post_process_retain_dirs=True,
    )


def test_delete_post_processing_needs_no_target() -> None:
    stmt = parse_one("INSERT INTO t SELECT * FROM b PROPERTIES('post.process.action'=DELETE)")
    assert stmt.options.post_process_action == "Delete"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ("'post.process.action'=Move, "
         "'post.process.action.prefix'='x'", "A bucket must be specified for moving files to."),
        ("'post.process.action'=Move, 'post.process.action.bucket'='x'",
         "A path prefix must be specified for moving files to."),
    ],
)  # fmt: skip
def test_move_without_a_target_gets_the_lenses_messages(props: str, message: str) -> None:
    assert error_of(f"INSERT INTO t SELECT * FROM b PROPERTIES({props})").reason == message


@pytest.mark.parametrize(
    ("props", "fragment"),
    [
        ("'post.process.action'=Delete, "
         "'post.process.action.bucket'=x", "applies only when 'post.process.action' is Move"),
        ("'post.process.action.retain.dirs'=true", "applies only together with 'post.process.action'"),
        ("'post.process.action'=Delete, 'post.process.action.watermark.process.late.arrival'=true",
         "applies only when 'post.process.action' is Move"),
        ("'post.process.action'=Move, 'post.process.action.bucket'='a/b', 'post.process.action.prefix'=p",
         "for post.process.action.bucket"),
        ("'post.process.action'=Move, 'post.process.action.bucket'=a, 'post.process.action.prefix'='../p'",
         "for post.process.action.prefix"),
        ("'post.process.action'=Copy",
         "Invalid value 'Copy' for post.process.action: expected one of Delete, Move."),
        ("'post.process.action'=Delete, 'post.process.action.retain.dirs'=maybe", "expected true or false"),
    ],
)  # fmt: skip
def test_post_processing_errors(props: str, fragment: str) -> None:
    assert fragment in error_of(f"INSERT INTO t SELECT * FROM b PROPERTIES({props})").reason


def test_source_envelope_is_typed_and_needs_an_envelope_format() -> None:
    assert parse_one(
        "INSERT INTO t SELECT * FROM b STOREAS `AVRO` PROPERTIES('store.envelope'=true)"
    ).options.store_envelope
    error = error_of("INSERT INTO t SELECT * FROM b STOREAS `CSV` PROPERTIES('store.envelope'=true)")
    assert error.reason == "Envelope is not supported for format CSV."


def test_unknown_source_key_suggests_the_closest() -> None:
    error = error_of("INSERT INTO t SELECT * FROM b PROPERTIES('post.process.acton'=Delete)")
    assert (
        "unknown property 'post.process.acton' for the source. Did you mean 'post.process.action'?"
        in error.reason
    )


def test_sink_only_keys_are_unknown_to_the_source() -> None:
    assert (
        "unknown property 'flush.count' for the source"
        in error_of("INSERT INTO t SELECT * FROM b PROPERTIES('flush.count'=1)").reason
    )


def test_several_source_statements_keep_their_order() -> None:
    statements = parse_source("INSERT INTO a SELECT * FROM b:x; INSERT INTO c SELECT * FROM b:y;")
    assert [(s.topic, s.prefix) for s in statements] == [("a", "x"), ("c", "y")]
