"""A cursor over one statement's tokens, with the helpers every clause parser needs.

Errors raised here always carry the statement text and the offending token's position, and
say what was expected, so each clause parser stays a short sequence of ``expect`` calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.errors import KcqlError
from lakesink.domain.kcql.lexer import Kind, Token

#: Words that start or structure a clause; written bare they are never taken as a name.
KEYWORDS = frozenset(
    {
        "INSERT",
        "INTO",
        "SELECT",
        "FROM",
        "PARTITIONBY",
        "NOPARTITION",
        "STOREAS",
        "PROPERTIES",
        "BATCH",
        "LIMIT",
    }
)


@dataclass(frozen=True, slots=True)
class Piece:
    """One part of a name: its unescaped text, how it was quoted, and its raw spelling."""

    value: str
    kind: Kind
    text: str


@dataclass(frozen=True, slots=True)
class Name:
    """A name made of one or more adjacent pieces (``_key.`a.b```, `` `bucket`:`prefix` ``)."""

    pieces: tuple[Piece, ...]
    start: int

    @property
    def value(self) -> str:
        """The name with quotes removed."""
        return "".join(piece.value for piece in self.pieces)


class Cursor:
    """Reads the tokens of one statement front to back."""

    def __init__(self, statement: str, tokens: list[Token]) -> None:
        self.statement = statement
        self._tokens = tokens
        self._index = 0

    def peek(self, ahead: int = 0) -> Token | None:
        """The token ``ahead`` places from the current one, or None past the end."""
        index = self._index + ahead
        return self._tokens[index] if index < len(self._tokens) else None

    def advance(self) -> Token:
        """Consume and return the current token (the caller has checked it exists)."""
        token = self._tokens[self._index]
        self._index += 1
        return token

    def error(self, message: str, token: Token | None = None) -> KcqlError:
        """A KcqlError pointing at ``token`` (default: the current token, or the end)."""
        target = token if token is not None else self.peek()
        return self.error_at(message, target.start if target is not None else len(self.statement))

    def error_at(self, message: str, position: int | None) -> KcqlError:
        """A KcqlError at a 0-based offset in this statement (None: not tied to one place)."""
        return KcqlError(message, statement=self.statement, position=position)

    def found(self, token: Token | None = None) -> str:
        """How a token reads in an error message: ``'FORM'`` or ``the end of the statement``."""
        target = token if token is not None else self.peek()
        return "the end of the statement" if target is None else repr(target.text)

    def at_keyword(self, *keywords: str) -> str | None:
        """The upper-cased keyword when the current token is a bare word among ``keywords``."""
        token = self.peek()
        if token is not None and token.kind is Kind.WORD and token.text.upper() in keywords:
            return token.text.upper()
        return None

    def expect_keyword(self, keyword: str, after: str) -> Token:
        """Consume ``keyword`` (any case) or fail saying what came instead."""
        if self.at_keyword(keyword) is None:
            raise self.error(f"expected {keyword} after {after}, found {self.found()}")
        return self.advance()

    def expect(self, kind: Kind, description: str, after: str) -> Token:
        """Consume a token of ``kind`` or fail with ``expected <description> after <after>``."""
        token = self.peek()
        if token is None or token.kind is not kind:
            raise self.error(f"expected {description} after {after}, found {self.found()}")
        return self.advance()

    def accept(self, kind: Kind) -> Token | None:
        """Consume and return the current token if it is of ``kind``."""
        token = self.peek()
        if token is not None and token.kind is kind:
            return self.advance()
        return None

    def name(self, description: str, after: str) -> Name:
        """Read a name: adjacent WORD/BACKTICK/STRING pieces, not starting with a bare keyword."""
        first = self.peek()
        if first is None or not first.kind.is_piece:
            raise self.error(f"expected {description} after {after}, found {self.found()}")
        follower = self.peek(1)
        glued_on = follower is not None and follower.glued and follower.kind.is_piece
        if first.kind is Kind.WORD and first.text.upper() in KEYWORDS and not glued_on:
            raise self.error(
                f"expected {description} after {after}, found the keyword {first.text.upper()} "
                f"(write a name that is also a keyword in backticks)"
            )
        pieces = [self._piece(self.advance())]
        while (token := self.peek()) is not None and token.glued and token.kind.is_piece:
            pieces.append(self._piece(self.advance()))
        return Name(tuple(pieces), first.start)

    @staticmethod
    def _piece(token: Token) -> Piece:
        return Piece(token.value, token.kind, token.text)
