"""Tokenizer for one KCQL statement: quote-aware, with positions for error messages.

Names may be written bare, in backticks or in single quotes, and one name may be made of
several pieces written next to each other (``_key.`cost.centre.id```, `` `bucket`:`prefix` ``).
The lexer therefore records, for every token, whether whitespace separated it from the token
before; the parser glues adjacent pieces back into one name. Inside quotes the quote character
is escaped by doubling it (``'it''s'``), so any text can be written and rendered back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from lakesink.domain.errors import KcqlError

#: Characters of a bare word: Lenses' FIELD and TOPICNAME lexer classes plus '.' (§1.1).
WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+/{}:@.")

_PUNCTUATION = {"*": "STAR", ",": "COMMA", "(": "LPAREN", ")": "RPAREN", "=": "EQUALS"}


class Kind(Enum):
    """What a token is; WORD, BACKTICK and STRING tokens are the pieces names are made of."""

    WORD = "WORD"
    BACKTICK = "BACKTICK"
    STRING = "STRING"
    STAR = "STAR"
    COMMA = "COMMA"
    LPAREN = "LPAREN"
    RPAREN = "RPAREN"
    EQUALS = "EQUALS"

    @property
    def is_piece(self) -> bool:
        """True for the token kinds a name (target, topic, field, value) can be built from."""
        return self in (Kind.WORD, Kind.BACKTICK, Kind.STRING)


@dataclass(frozen=True, slots=True)
class Token:
    """One token.

    Attributes:
        kind: the token kind.
        text: the token exactly as written (quotes included).
        value: the text with quotes removed and doubled quote characters collapsed.
        start: 0-based offset of the first character inside the statement.
        glued: True when no whitespace separates this token from the previous one.
    """

    kind: Kind
    text: str
    value: str
    start: int
    glued: bool

    @property
    def end(self) -> int:
        """Offset just past the token."""
        return self.start + len(self.text)


def tokenize(statement: str) -> list[Token]:
    """Split one statement into tokens.

    Raises:
        KcqlError: on an unterminated quote or a character that starts no token.
    """
    tokens: list[Token] = []
    pos = 0
    glued = False
    length = len(statement)
    while pos < length:
        char = statement[pos]
        if char.isspace():
            pos += 1
            glued = False
            continue
        if char in ("`", "'"):
            end, value = _scan_quoted(statement, pos)
            kind = Kind.BACKTICK if char == "`" else Kind.STRING
        elif char in WORD_CHARS:
            end = pos
            while end < length and statement[end] in WORD_CHARS:
                end += 1
            kind, value = Kind.WORD, statement[pos:end]
        elif char in _PUNCTUATION:
            end, kind, value = pos + 1, Kind[_PUNCTUATION[char]], char
        else:
            raise KcqlError(
                f"unexpected character {char!r}: names that contain it must be written in backticks",
                statement=statement,
                position=pos,
            )
        tokens.append(Token(kind, statement[pos:end], value, pos, glued and bool(tokens)))
        pos = end
        glued = True
    return tokens


def _scan_quoted(statement: str, start: int) -> tuple[int, str]:
    """Scan a quoted token starting at ``start``; return (end offset, unescaped value)."""
    quote = statement[start]
    parts: list[str] = []
    pos = start + 1
    while True:
        close = statement.find(quote, pos)
        if close < 0:
            what = "backtick-quoted name" if quote == "`" else "quoted string"
            raise KcqlError(
                f"unterminated {what}: expected a closing {quote} for the one opened here",
                statement=statement,
                position=start,
            )
        parts.append(statement[pos:close])
        if close + 1 < len(statement) and statement[close + 1] == quote:
            parts.append(quote)
            pos = close + 2
            continue
        return close + 1, "".join(parts)


def quote(value: str, quote_char: str) -> str:
    """Wrap ``value`` in ``quote_char``, doubling any occurrence inside, so it lexes back to itself."""
    return quote_char + value.replace(quote_char, quote_char * 2) + quote_char


def needs_backticks(value: str) -> bool:
    """True when ``value`` cannot be written as one bare word."""
    return not value or any(char not in WORD_CHARS for char in value)
