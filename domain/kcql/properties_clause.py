"""The ``PROPERTIES(name=value, ...)`` clause grammar.

Names are quoted or bare dotted words and are lower-cased (as the Lenses property reader does);
values are quoted strings (``''`` is the empty string), integers or bare words, kept as the
text written. A trailing comma before ``)`` is tolerated because the Lenses documentation's own
example has one. Duplicate names are an error (Lenses keeps the last one silently).
"""

from __future__ import annotations

from lakesink.domain.kcql.cursor import Cursor
from lakesink.domain.kcql.lexer import Kind
from lakesink.domain.kcql.property_reader import PropertyEntry


def parse_properties(cursor: Cursor) -> list[PropertyEntry]:
    """Parse from just after the PROPERTIES keyword to the closing parenthesis."""
    cursor.expect(Kind.LPAREN, "'('", "PROPERTIES")
    entries: dict[str, PropertyEntry] = {}
    after = "PROPERTIES("
    while cursor.accept(Kind.RPAREN) is None:
        name_token = cursor.peek()
        if name_token is None or not name_token.kind.is_piece:
            raise cursor.error(f"expected a property name or ')' after {after}, found {cursor.found()}")
        cursor.advance()
        key = name_token.value.strip().lower()
        if not key:
            raise cursor.error("a property name is empty", name_token)
        if key in entries:
            raise cursor.error(f"property '{key}' is given twice", name_token)
        cursor.expect(Kind.EQUALS, "'='", f"the property name '{key}'")
        value_token = cursor.peek()
        if value_token is None or not value_token.kind.is_piece:
            raise cursor.error(f"expected a value for property '{key}' after '=', found {cursor.found()}")
        cursor.advance()
        entries[key] = PropertyEntry(key, value_token.value, name_token.start, value_token.start)
        after = f"the value of '{key}'"
        if cursor.accept(Kind.COMMA) is not None:
            after = "','"
        elif (token := cursor.peek()) is None or token.kind is not Kind.RPAREN:
            raise cursor.error(f"expected ',' or ')' after the value of '{key}', found {cursor.found()}")
    return list(entries.values())
