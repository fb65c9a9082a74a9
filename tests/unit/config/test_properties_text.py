"""Java .properties and Kafka Connect JSON parsing."""

from __future__ import annotations

import pytest

from lakesink.domain.config.properties_text import load_config_text, parse_connect_json, parse_properties
from lakesink.domain.errors import ConfigError


def test_equals_colon_and_whitespace_all_separate_key_from_value() -> None:
    text = "a=1\nb:2\nc 3\nd\t4\ne = 5\nf : 6\n"
    assert parse_properties(text) == {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}


def test_hash_and_bang_lines_are_comments_but_not_inside_values() -> None:
    text = "# comment\n  ! another\nkey=value # not a comment\n"
    assert parse_properties(text) == {"key": "value # not a comment"}


def test_blank_lines_and_leading_whitespace_are_skipped() -> None:
    assert parse_properties("\n   \n\t  key=value\n\n") == {"key": "value"}


def test_backslash_continues_a_line_and_drops_the_next_lines_indent() -> None:
    text = "kcql=INSERT INTO b \\\n    SELECT * FROM t\nnext=1\n"
    assert parse_properties(text) == {"kcql": "INSERT INTO b SELECT * FROM t", "next": "1"}


def test_an_even_number_of_trailing_backslashes_does_not_continue() -> None:
    assert parse_properties("path=c:\\\\\nnext=1") == {"path": "c:\\", "next": "1"}


def test_a_comment_line_ending_in_backslash_does_not_continue() -> None:
    assert parse_properties("# note \\\nkey=value") == {"key": "value"}


def test_continuation_line_starting_with_hash_is_part_of_the_value() -> None:
    assert parse_properties("a=1\\\n  #2") == {"a": "1#2"}


def test_escapes_are_decoded() -> None:
    text = "v=tab\\there\\nnl\\rcr\\fff\\u00e9\\u20AC\\q\n"
    assert parse_properties(text) == {"v": "tab\there\nnl\rcr\fff\u00e9\u20acq"}


def test_escaped_separators_and_spaces_stay_in_the_key() -> None:
    text = "a\\=b=1\nc\\:d:2\ne\\ f 3\n"
    assert parse_properties(text) == {"a=b": "1", "c:d": "2", "e f": "3"}


def test_value_keeps_trailing_whitespace_and_a_second_separator() -> None:
    assert parse_properties("k = =v  ") == {"k": "=v  "}


def test_key_without_value_maps_to_empty_string() -> None:
    assert parse_properties("lonely\nother=\n") == {"lonely": "", "other": ""}


def test_later_duplicate_key_wins_as_in_java() -> None:
    assert parse_properties("k=1\nk=2") == {"k": "2"}


def test_crlf_and_cr_line_endings_are_accepted() -> None:
    assert parse_properties("a=1\r\nb=2\rc=3") == {"a": "1", "b": "2", "c": "3"}


def test_malformed_unicode_escape_names_the_line_but_not_the_value() -> None:
    with pytest.raises(ConfigError, match="Line 2: malformed") as caught:
        parse_properties("a=1\nsecret=ab\\u12zz")
    assert "12zz" not in str(caught.value)


def test_connect_json_body_gives_name_and_config_with_scalars_as_strings() -> None:
    name, config = parse_connect_json(
        '{"name": "demo", "config": {"topics": "t", "tasks.max": 2, "x.enable": true, "f": 2.5}}'
    )
    assert name == "demo"
    assert config == {"topics": "t", "tasks.max": "2", "x.enable": "true", "f": "2.5"}


def test_flat_json_object_is_a_config_and_its_name_is_the_connector_name() -> None:
    assert parse_connect_json('{"name": "n", "topics": "t"}') == ("n", {"name": "n", "topics": "t"})


def test_json_get_connector_response_keys_are_accepted() -> None:
    name, config = parse_connect_json('{"name": "n", "config": {"a": "1"}, "tasks": [], "type": "sink"}')
    assert (name, config) == ("n", {"a": "1"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"config": {"a": null}}', r'\$\.config\["a"\] is null'),
        ('{"config": {"a": [1]}}', r'\$\.config\["a"\] is an array'),
        ('{"a": {"b": 1}}', r'\$\["a"\] is an object'),
        ('{"name": "x", "config": {"name": "y"}}', "differ"),
        ('{"config": {}, "extra": 1}', "Unexpected key"),
        ('{"a": "1", "a": "2"}', "Duplicate JSON key 'a'"),
        ("[1]", "must be an object"),
        ('{\n  "a": }', "line 2 column"),
    ],
)
def test_bad_json_is_rejected_naming_the_path_or_position(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_connect_json(text)


def test_load_chooses_json_by_extension_and_folds_the_name_in() -> None:
    assert load_config_text('{"name": "n", "config": {"a": 1}}', filename="c.JSON") == {"a": "1", "name": "n"}


def test_load_chooses_properties_by_extension_even_if_text_starts_with_brace() -> None:
    assert load_config_text("{weird=1", filename="c.properties") == {"{weird": "1"}


@pytest.mark.parametrize(("text", "expected"), [('{"a": "1"}', {"a": "1"}), ("a=1", {"a": "1"})])
def test_load_sniffs_content_for_other_extensions(text: str, expected: dict[str, str]) -> None:
    assert load_config_text(text, filename="connector.txt") == expected


def test_load_errors_name_the_file() -> None:
    with pytest.raises(ConfigError, match="sink.json: Invalid JSON"):
        load_config_text("{", filename="sink.json")
