"""Sink PROPERTIES: the clause grammar, typing and validation of every key."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import KcqlError
from lakesink.domain.kcql import KcqlStatement, SinkProperties, parse
from lakesink.domain.schema.envelope_fields import EnvelopeFields, HeadersLayout


def with_props(props: str, storeas: str = "") -> KcqlStatement:
    return parse(f"INSERT INTO b SELECT * FROM t {storeas} PROPERTIES({props})")[0]


def error_of(props: str, storeas: str = "") -> KcqlError:
    with pytest.raises(KcqlError) as caught:
        with_props(props, storeas)
    return caught.value


def test_no_properties_leaves_every_option_unset() -> None:
    stmt = parse("INSERT INTO b SELECT * FROM t")[0]
    assert stmt.options == SinkProperties()
    assert dict(stmt.properties) == {}


def test_empty_properties_clause_is_allowed() -> None:
    assert with_props("").options == SinkProperties()


def test_names_may_be_quoted_or_bare_and_are_lower_cased_values_kept_as_written() -> None:
    stmt = with_props("'Padding.Type'=LeftPad, padding.char='#', `key.suffix`='-v1', 'flush.count'=10")
    assert dict(stmt.properties) == {
        "padding.type": "LeftPad",
        "padding.char": "#",
        "key.suffix": "-v1",
        "flush.count": "10",
    }


def test_every_sink_key_is_typed() -> None:
    options = with_props(
        "'flush.count'=5000, 'flush.size'='1_000_000', 'flush.interval'=30, 'partition.include.keys'=FALSE, "
        "'padding.type'=rightpad, 'padding.char'=x, 'padding.length.offset'=20, 'key.suffix'='_part', "
        "'store.envelope'=true, 'partition.date.timezone'='Europe/Paris'"
    ).options
    assert options == SinkProperties(
        flush_count=5000,
        flush_size=1_000_000,
        flush_interval_s=30,
        partition_include_keys=False,
        padding_type="RightPad",
        padding_char="x",
        padding_lengths={"offset": 20},
        key_suffix="_part",
        store_envelope=True,
        envelope=EnvelopeFields(),
        partition_date_timezone="Europe/Paris",
    )


def test_a_single_character_quoted_value_is_fine() -> None:
    assert with_props("'padding.char'='#'").options.padding_char == "#"


def test_empty_quoted_value_is_the_empty_string() -> None:
    assert with_props("'key.suffix'=''").properties["key.suffix"] == ""


def test_doubled_quote_inside_a_value_is_a_literal_quote() -> None:
    assert with_props("'key.suffix'='it''s'").options.key_suffix == "it's"


def test_padding_types_are_canonicalised() -> None:
    assert with_props("'padding.type'=NOOP").options.padding_type == "NoOp"
    assert with_props("'padding.type'='leftpad'").options.padding_type == "LeftPad"


def test_unknown_key_is_rejected_with_the_closest_valid_key() -> None:
    error = error_of("'flush.count'=1, 'flush.cont'=5")
    assert error.reason.startswith("unknown property 'flush.cont' for the sink. Did you mean 'flush.count'?")
    assert "Valid properties: flush.count, flush.interval" in error.reason
    assert error.position == len("INSERT INTO b SELECT * FROM t  PROPERTIES('flush.count'=1, ")


def test_duplicate_key_is_rejected_even_in_another_case() -> None:
    error = error_of("'flush.count'=1, 'FLUSH.COUNT'=2")
    assert error.reason == "property 'flush.count' is given twice"


@pytest.mark.parametrize(
    ("props", "fragment"),
    [
        ("'flush.count'=abc", "Invalid value 'abc' for flush.count: expected an integer."),
        ("'flush.count'=0", "Invalid value 0 for flush.count: must be at least 1."),
        ("'flush.size'=-5", "Invalid value -5 for flush.size: must be at least 1."),
        ("'flush.interval'='1.5'", "Invalid value '1.5' for flush.interval: expected an integer."),
        (
            "'partition.include.keys'=yes",
            "Invalid value 'yes' for partition.include.keys: expected true or false.",
        ),
        ("'store.envelope'=1", "Invalid value '1' for store.envelope: expected true or false."),
        ("'padding.char'='ab'", "Invalid value 'ab' for padding.char: expected exactly one character."),
        ("'padding.char'='/'", "padding.char"),
        (
            "'padding.type'=middle",
            "Invalid value 'middle' for padding.type: expected one of LeftPad, NoOp, RightPad.",
        ),
        ("'padding.length.offset'=65", "Invalid value 65 for padding.length.offset: must be at most 64."),
        (
            "'padding.length.partition'=-1",
            "Invalid value -1 for padding.length.partition: must be at least 0.",
        ),
        ("'key.suffix'='a/b'", "Invalid value 'a/b' for key.suffix: it must not contain '/'"),
        ("'key.suffix'='a\\b'", "for key.suffix: it must not contain '\\\\'"),
        (
            "'partition.date.timezone'='Mars/Olympus'",
            "Invalid value 'Mars/Olympus' for partition.date.timezone",
        ),
    ],
)
def test_bad_values_name_the_key_and_the_value(props: str, fragment: str) -> None:
    error = error_of(props)
    assert fragment in error.reason
    assert error.position == len("INSERT INTO b SELECT * FROM t  PROPERTIES(") + props.index("=") + 1


def test_padding_length_for_another_field_is_rejected() -> None:
    assert "only for 'partition' and 'offset'" in error_of("'padding.length.topic'=3").reason


def test_padding_length_zero_is_allowed() -> None:
    assert dict(with_props("'padding.length.partition'=0").options.padding_lengths or {}) == {"partition": 0}


@pytest.mark.parametrize("key", ["store.file.namer", "store.file.namer.param"])
def test_custom_java_file_namers_are_not_supported(key: str) -> None:
    assert "custom Java file namers" in error_of(f"'{key}'='com.acme.Namer'").reason


def test_envelope_fields_all_given_select_the_parts() -> None:
    options = with_props(
        "'store.envelope'=true, 'store.envelope.fields.key'=false, 'store.envelope.fields.value'=true, "
        "'store.envelope.fields.metadata'=false, 'store.envelope.fields.headers'=true"
    ).options
    assert options.envelope == EnvelopeFields(key=False, value=True, metadata=False, headers=True)


def test_envelope_fields_given_selectively_get_the_lenses_all_or_none_message() -> None:
    error = error_of("'store.envelope'=true, 'store.envelope.fields.key'=false")
    assert error.reason == (
        "If store.envelope is set to true, then setting selective fields is not allowed. Either set them all "
        "or leave them out, they default to true."
    )


def test_envelope_fields_all_false_are_rejected() -> None:
    error = error_of(
        "'store.envelope'=true, 'store.envelope.fields.key'=false, 'store.envelope.fields.value'=false, "
        "'store.envelope.fields.metadata'=false, 'store.envelope.fields.headers'=false"
    )
    assert error.reason.startswith("If store.envelope is set to true then at least one of")


def test_envelope_fields_without_the_envelope_are_rejected() -> None:
    assert "applies only when 'store.envelope' is true" in error_of("'store.envelope.fields.key'=true").reason


def test_the_headers_layout_is_chosen_per_statement_and_needs_the_envelope() -> None:
    assert with_props("'store.envelope'=true").options.envelope == EnvelopeFields(headers_layout=HeadersLayout.STRUCT)
    chosen = with_props("'store.envelope'=true, 'store.envelope.headers.layout'='LIST'").options.envelope
    assert chosen == EnvelopeFields(headers_layout=HeadersLayout.LIST)
    assert "expected one of list, struct" in error_of("'store.envelope'=true, 'store.envelope.headers.layout'=map").reason
    assert "applies only when 'store.envelope' is true" in error_of("'store.envelope.headers.layout'=list").reason


def test_envelope_off_gives_no_envelope_fields() -> None:
    options = with_props("'store.envelope'=false").options
    assert (options.store_envelope, options.envelope) == (False, None)


@pytest.mark.parametrize(
    ("storeas", "name"), [("`CSV`", "CSV"), ("`TEXT`", "TEXT"), ("`CSV_WITHHEADERS`", "CSV")]
)
def test_envelope_with_a_format_that_cannot_hold_it_gets_the_lenses_message(storeas: str, name: str) -> None:
    error = error_of("'store.envelope'=true", storeas=f"STOREAS {storeas}")
    assert error.reason == f"Envelope is not supported for format {name}."


def test_envelope_with_bytes_gets_the_lenses_message() -> None:
    error = error_of("'store.envelope'=true, 'flush.count'=1", storeas="STOREAS `BYTES`")
    assert error.reason == "Envelope is not supported for format BYTES."


BYTES_MESSAGE = (
    "flush.count > 1 is not allowed for BYTES. If you want to store N records as raw bytes use AVRO "
    "or PARQUET. "
    "If you are using BYTES but not specified a flush.count, then do so by adding flush.count = 1 "
    "to your KCQL "
    "PROPERTIES section."
)


@pytest.mark.parametrize("props", ["", "'flush.count'=2", "'flush.size'=10"])
def test_bytes_without_flush_count_one_gets_the_lenses_message(props: str) -> None:
    assert error_of(props, storeas="STOREAS `BYTES`").reason == BYTES_MESSAGE


@pytest.mark.parametrize(
    ("props", "fragment"),
    [
        ("'flush.count' 5", "expected '=' after the property name 'flush.count', found '5'"),
        ("'flush.count'=", "expected a value for property 'flush.count' after '=', found ')'"),
        ("'flush.count'=5 'flush.size'=5", "expected ',' or ')' after the value of 'flush.count'"),
        ("'flush.count'=5,,", "expected a property name or ')' after ','"),
        ("=5", "expected a property name or ')' after PROPERTIES("),
        ("''=5", "a property name is empty"),
    ],
)
def test_malformed_properties_clause_says_what_was_expected(props: str, fragment: str) -> None:
    assert fragment in error_of(props).reason


def test_unclosed_properties_clause_is_reported_at_the_end() -> None:
    with pytest.raises(KcqlError) as caught:
        parse("INSERT INTO b SELECT * FROM t PROPERTIES('flush.count'=5")
    assert "found the end of the statement" in caught.value.reason


def test_properties_without_parenthesis_is_an_error() -> None:
    with pytest.raises(KcqlError, match=r"expected '\(' after PROPERTIES"):
        parse("INSERT INTO b SELECT * FROM t PROPERTIES 'flush.count'=5")


def test_properties_mapping_is_read_only() -> None:
    stmt = with_props("'flush.count'=5")
    with pytest.raises(TypeError):
        stmt.properties["flush.count"] = "6"  # type: ignore[index]
