"""Splitting a KCQL setting into statements on ';' outside quotes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.kcql import parse
from lakesink.domain.kcql.splitter import split_statements


def test_semicolon_inside_a_quoted_value_does_not_split_the_statement() -> None:
    statements = parse(
        "INSERT INTO b SELECT * FROM t PROPERTIES('key.suffix'='a;b'); INSERT INTO c SELECT * FROM u"
    )
    assert [s.bucket for s in statements] == ["b", "c"]
    assert statements[0].options.key_suffix == "a;b"


def test_semicolon_inside_backticks_does_not_split_the_statement() -> None:
    statements = parse("INSERT INTO b:`x;y` SELECT * FROM t;INSERT INTO c SELECT * FROM u;")
    assert [s.prefix for s in statements] == ["x;y", None]


def test_empty_statements_between_and_after_semicolons_are_ignored() -> None:
    assert len(parse(";;INSERT INTO b SELECT * FROM t;;\n;  INSERT INTO c SELECT * FROM u ;  ")) == 2


def test_doubled_quotes_keep_the_splitter_inside_the_string() -> None:
    assert split_statements("a 'x'';y' b; c") == ["a 'x'';y' b", "c"]


_QUOTED_TEXT = st.text(alphabet=st.sampled_from("ab;' `\n"), max_size=12)


@given(st.lists(st.tuples(_QUOTED_TEXT, st.sampled_from("'`")), min_size=1, max_size=5))
def test_splitting_never_splits_inside_quotes(values: list[tuple[str, str]]) -> None:
    statements = [
        f"INSERT INTO b SELECT {quote}{text.replace(quote, quote * 2)}{quote} x" for text, quote in values
    ]
    assert split_statements(" ;\n ".join(statements) + ";") == statements
