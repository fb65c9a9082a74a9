"""Every sink statement error: what it says, which statement, and where."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import KcqlError
from lakesink.domain.kcql import parse


def error_of(text: str) -> KcqlError:
    with pytest.raises(KcqlError) as caught:
        parse(text)
    return caught.value


def test_misspelled_keyword_says_what_was_expected_and_where() -> None:
    error = error_of("INSERT INTO b SELECT * FORM t")
    assert error.reason == "expected FROM after SELECT *, found 'FORM'"
    assert error.position == 23
    assert error.statement == "INSERT INTO b SELECT * FORM t"


def test_misspelled_select_names_the_insert_into_target() -> None:
    error = error_of("INSERT INTO b SELCT * FROM t")
    assert error.reason == "expected SELECT after the INSERT INTO target, found 'SELCT'"
    assert error.position == 14


def test_error_statement_is_only_the_failing_statement_with_its_own_positions() -> None:
    error = error_of("INSERT INTO a SELECT * FROM t;  INSERT INTO b SELECT * FROM u LIMIT 5 ")
    assert error.statement == "INSERT INTO b SELECT * FROM u LIMIT 5"
    assert error.position == 30


def test_missing_from_source_is_reported_at_the_end() -> None:
    error = error_of("INSERT INTO b SELECT * FROM")
    assert "expected a topic or `*` after FROM, found the end of the statement" in error.reason
    assert error.position == len("INSERT INTO b SELECT * FROM")


def test_upsert_is_rejected_with_a_hint() -> None:
    assert "use INSERT INTO" in error_of("UPSERT INTO b SELECT * FROM t").reason


def test_bare_keyword_as_target_is_rejected_with_a_backtick_hint() -> None:
    error = error_of("INSERT INTO SELECT * FROM t")
    assert "found the keyword SELECT" in error.reason
    assert "backticks" in error.reason


@pytest.mark.parametrize("projection", ["a, b", "a", "*, a", "`a.b`"])
def test_projections_are_not_supported(projection: str) -> None:
    assert "projections are not supported" in error_of(f"INSERT INTO b SELECT {projection} FROM t").reason


def test_trailing_tokens_after_a_complete_statement_are_an_error() -> None:
    error = error_of("INSERT INTO b SELECT * FROM t STOREAS `JSON` PROPERTEIS('flush.count'=1)")
    assert error.reason.startswith("unexpected 'PROPERTEIS' after the STOREAS clause; expected PROPERTIES")
    assert error.position == 45


def test_a_second_word_after_the_topic_is_not_glued_onto_it() -> None:
    error = error_of("INSERT INTO b SELECT * FROM a b")
    assert error.reason.startswith("unexpected 'b' after the FROM source")


@pytest.mark.parametrize(
    "clause", ["BATCH = 5", "LIMIT 10", "WITHFORMAT JSON", "AUTOCREATE", "IGNORE a", "TTL=5"]
)
def test_lenses_clauses_the_sink_does_not_use_are_named_as_unsupported(clause: str) -> None:
    error = error_of(f"INSERT INTO b SELECT * FROM t {clause}")
    assert error.reason == f"{clause.split()[0].split('=')[0].upper()} is not supported by the sink"


def test_partitionby_and_nopartition_together_are_an_error() -> None:
    assert (
        "cannot be used together"
        in error_of("INSERT INTO b SELECT * FROM t PARTITIONBY a NOPARTITION").reason
    )


def test_clauses_out_of_order_are_an_error() -> None:
    error = error_of("INSERT INTO b SELECT * FROM t STOREAS `JSON` PARTITIONBY a")
    assert error.reason == "PARTITIONBY must come before STOREAS"


def test_a_clause_given_twice_is_an_error() -> None:
    assert (
        error_of("INSERT INTO b SELECT * FROM t STOREAS `JSON` STOREAS `AVRO`").reason
        == "STOREAS is given twice"
    )


@pytest.mark.parametrize(
    "legacy", ["WITH_FLUSH_COUNT = 5", "with_flush_interval = 60", "WITH_FLUSH_SIZE = 100"]
)
def test_legacy_with_flush_clauses_get_the_lenses_replacement_message(legacy: str) -> None:
    error = error_of(f"INSERT INTO b SELECT * FROM t {legacy}")
    assert "have been replaced by entries in the PROPERTIES section" in error.reason
    assert "PROPERTIES('flush.count'=123)" in error.reason
    assert error.position == 30


def test_legacy_withpartitioner_gets_the_lenses_replacement_message() -> None:
    error = error_of("INSERT INTO b SELECT * FROM t PARTITIONBY a WITHPARTITIONER=Values")
    assert "WITHPARTITIONER feature has been replaced" in error.reason
    assert "PROPERTIES ('partition.include.keys'=true/false)" in error.reason


def test_duplicate_partition_spec_ignoring_case_is_an_error() -> None:
    text = "INSERT INTO b SELECT * FROM t PARTITIONBY a, _key.X, _KEY.x"
    error = error_of(text)
    assert error.reason == "The field _KEY.x appears twice"
    assert error.position == text.index("_KEY.x")


def test_empty_partition_spec_is_an_error() -> None:
    assert "Invalid partition by field" in error_of("INSERT INTO b SELECT * FROM t PARTITIONBY ``").reason


@pytest.mark.parametrize("spec", ["a..b", ".a", "_key.", "_key..`x`", "`x`."])
def test_partition_spec_with_an_empty_dotted_part_is_an_error(spec: str) -> None:
    error = error_of(f"INSERT INTO b SELECT * FROM t PARTITIONBY {spec}")
    assert error.reason.startswith(f"Invalid partition by field {spec}: a '.' must separate two names")


def test_dangling_comma_in_partitionby_is_an_error() -> None:
    error = error_of("INSERT INTO b SELECT * FROM t PARTITIONBY a, STOREAS `JSON`")
    assert "expected a partition field after ','" in error.reason


def test_more_than_one_colon_in_the_target_is_an_error() -> None:
    error = error_of("INSERT INTO b:p:q SELECT * FROM t")
    assert "Invalid number of arguments provided to create BucketAndPrefix" in error.reason


@pytest.mark.parametrize("target", ["`a/b`:p", "`my bucket`", "`a\tb`", "``:p", "`:p`"])
def test_bad_bucket_names_are_rejected(target: str) -> None:
    assert "bucket name" in error_of(f"INSERT INTO {target} SELECT * FROM t").reason


@pytest.mark.parametrize("prefix", ["..", "a/../b", "./a", "a/.", "`a\x01b`"])
def test_prefixes_that_could_escape_the_bucket_are_rejected(prefix: str) -> None:
    assert "invalid prefix" in error_of(f"INSERT INTO b:{prefix} SELECT * FROM t").reason


def test_prefix_may_start_and_end_with_a_slash_as_in_lenses() -> None:
    assert parse("INSERT INTO b:/a/b/ SELECT * FROM t")[0].prefix == "/a/b/"


@pytest.mark.parametrize("topic", ["`my topic`", "`a$b`", "`..`", "`" + "x" * 250 + "`"])
def test_topics_must_be_legal_kafka_topic_names(topic: str) -> None:
    assert "invalid topic name" in error_of(f"INSERT INTO b SELECT * FROM {topic}").reason


def test_unterminated_backtick_points_at_the_opening_quote() -> None:
    error = error_of("INSERT INTO `b SELECT * FROM t")
    assert error.reason.startswith("unterminated backtick-quoted name")
    assert error.position == 12


def test_a_character_outside_any_token_is_reported() -> None:
    error = error_of("INSERT INTO b$ SELECT * FROM t")
    assert "unexpected character '$'" in error.reason
    assert error.position == 13


def test_storeas_parameters_are_not_supported() -> None:
    assert "STOREAS parameters" in error_of("INSERT INTO b SELECT * FROM t STOREAS `AVRO`(a=b)").reason


@pytest.mark.parametrize("text", ["", "   ", ";", " ; ;\n"])
def test_no_statement_at_all_is_an_error(text: str) -> None:
    assert error_of(text).reason.startswith("no KCQL statement")


def test_error_message_shows_the_statement_and_a_caret() -> None:
    message = str(error_of("INSERT INTO b SELECT * FORM t"))
    assert "in KCQL: INSERT INTO b SELECT * FORM t" in message
    assert "(at position 23)" in message
