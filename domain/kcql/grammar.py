"""Grammar pieces shared by the sink and source forms: the head, the clause loop, legacy checks.

Both forms start ``INSERT INTO x SELECT * FROM y`` and continue with optional clauses in a
fixed order (Lenses' order, so a statement written for lakesink also runs on Lenses). Unlike
Lenses there is an end-of-statement anchor: anything left over is an error, never ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lakesink.domain.kcql.cursor import Cursor, Name, Piece
from lakesink.domain.kcql.lexer import Kind, Token

WITH_FLUSH_KEYWORDS = frozenset({"WITH_FLUSH_COUNT", "WITH_FLUSH_SIZE", "WITH_FLUSH_INTERVAL"})

WITH_FLUSH_MESSAGE = (
    "The KCQL keywords WITH_FLUSH_COUNT, WITH_FLUSH_SIZE, and WITH_FLUSH_INTERVAL have been replaced by "
    "entries in the PROPERTIES section. Replace WITH_FLUSH_COUNT with: PROPERTIES('flush.count'=123). "
    "Replace WITH_FLUSH_SIZE with: PROPERTIES('flush.size'=456). "
    "Replace WITH_FLUSH_INTERVAL with: PROPERTIES('flush.interval'=789)."
)

WITH_PARTITIONER_MESSAGE = (
    "Invalid KCQL setting. WITHPARTITIONER feature has been replaced. Adapt the KCQL to use `PROPERTIES`: "
    "INSERT INTO ... PROPERTIES ('partition.include.keys'=true/false). "
    "'WITHPARTITIONER Values' should translate to: PROPERTIES ('partition.include.keys'=false). "
    "'WITHPARTITIONER KeysAndValues' should translate to: PROPERTIES ('partition.include.keys'=true)."
)

#: Clauses of the Lenses KCQL grammar that no cloud-storage statement uses.
LENSES_ONLY_CLAUSES = frozenset(
    {
        "IGNORE", "AUTOCREATE", "WITHSTRUCTURE", "PK", "WITHTARGET", "AUTOEVOLVE", "WITHTIMESTAMP",
        "TIMESTAMPUNIT", "WITHFORMAT", "WITHUNWRAP", "WITHTAG", "INCREMENTALMODE", "WITHTYPE", "WITHDOCTYPE",
        "WITHINDEXSUFFIX", "TTL", "WITHCONVERTER", "WITHJMSSELECTOR", "WITHKEY", "KEYDELIMITER",
        "WITHPIPELINE", "WITHSUBSCRIPTION", "WITHREGEX",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Clause:
    """An optional clause: its place in the order and the parser of what follows the keyword."""

    slot: int
    parse: Callable[[], None]


def reject_legacy_keywords(cursor: Cursor, tokens: list[Token]) -> None:
    """Lenses' helpful messages for the removed WITH_FLUSH_* and WITHPARTITIONER clauses."""
    for token in tokens:
        word = token.text.upper() if token.kind is Kind.WORD else ""
        if word in WITH_FLUSH_KEYWORDS:
            raise cursor.error(WITH_FLUSH_MESSAGE, token)
        if word == "WITHPARTITIONER":
            raise cursor.error(WITH_PARTITIONER_MESSAGE, token)


def parse_head(cursor: Cursor, into: str, source: str, *, allow_star: bool) -> tuple[Name, Name]:
    """``INSERT INTO <into> SELECT * FROM <source>``; a bare ``*`` source reads as the name ``*``."""
    if cursor.at_keyword("UPSERT"):
        raise cursor.error("UPSERT is not supported by the cloud storage connectors: use INSERT INTO")
    cursor.expect_keyword("INSERT", "the start of the statement")
    cursor.expect_keyword("INTO", "INSERT")
    target = cursor.name(into, "INSERT INTO")
    cursor.expect_keyword("SELECT", "the INSERT INTO target")
    star = cursor.peek()
    if star is not None and star.kind.is_piece:
        raise cursor.error(_PROJECTION_MESSAGE)
    cursor.expect(Kind.STAR, "'*'", "SELECT")
    if cursor.accept(Kind.COMMA) is not None:
        raise cursor.error(_PROJECTION_MESSAGE, star)
    cursor.expect_keyword("FROM", "SELECT *")
    if allow_star and (token := cursor.accept(Kind.STAR)) is not None:
        follower = cursor.peek()
        if follower is not None and follower.glued and follower.kind.is_piece:
            raise cursor.error(f"expected {source} after FROM, found '*{follower.text}'", token)
        return target, Name((Piece("*", Kind.STAR, "*"),), token.start)
    return target, cursor.name(source, "FROM")


_PROJECTION_MESSAGE = (
    "field projections are not supported: write SELECT * (the whole record is always stored and restored)"
)


def parse_clauses(
    cursor: Cursor, clauses: Mapping[str, Clause], *, owner: str, unsupported: frozenset[str]
) -> None:
    """Parse the optional clauses in their fixed order up to the end of the statement."""
    last: str | None = None
    seen: set[str] = set()
    while (token := cursor.peek()) is not None:
        keyword = token.text.upper() if token.kind is Kind.WORD else ""
        clause = clauses.get(keyword)
        if clause is None:
            if keyword in unsupported or keyword in LENSES_ONLY_CLAUSES:
                raise cursor.error(f"{keyword} is not supported by the {owner}")
            after = f"the {last} clause" if last else "the FROM source"
            later = [
                name for name, other in clauses.items() if last is None or other.slot > clauses[last].slot
            ]
            expected = (
                ", ".join(later) + " or the end of the statement" if later else "the end of the statement"
            )
            raise cursor.error(f"unexpected {cursor.found()} after {after}; expected {expected}")
        if keyword in seen:
            raise cursor.error(f"{keyword} is given twice")
        if last is not None and clause.slot == clauses[last].slot:
            raise cursor.error(f"{keyword} and {last} cannot be used together")
        if last is not None and clause.slot < clauses[last].slot:
            raise cursor.error(f"{keyword} must come before {last}")
        cursor.advance()
        clause.parse()
        seen.add(keyword)
        last = keyword


def parse_count(cursor: Cursor, keyword: str, *, allow_equals: bool) -> int:
    """A whole number ≥ 1 after BATCH or LIMIT (``BATCH = n`` as Lenses writes it, or ``BATCH n``)."""
    if allow_equals:
        cursor.accept(Kind.EQUALS)
    token = cursor.peek()
    number = _as_int(token.text) if token is not None and token.kind is Kind.WORD else None
    if number is None:
        raise cursor.error(f"expected a whole number after {keyword}, found {cursor.found()}")
    if number < 1:
        raise cursor.error(f"{keyword} must be at least 1, found {number}")
    cursor.advance()
    return number


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
