"""Recursive-descent parsing of KCQL settings into sink and source statements.

Sink:   INSERT INTO bucket[:prefix] SELECT * FROM topic|`*`
        [PARTITIONBY spec[, spec...] | NOPARTITION] [STOREAS fmt] [PROPERTIES(k=v, ...)]
Source: INSERT INTO topic SELECT * FROM bucket[:prefix]
        [BATCH[=]n] [STOREAS fmt] [LIMIT n] [PROPERTIES(k=v, ...)]
Keywords match in any case; every error is a KcqlError with the statement and the position in it.
"""

from __future__ import annotations

from lakesink.domain.errors import KcqlError
from lakesink.domain.formats import Format
from lakesink.domain.kcql.cursor import Cursor, Name
from lakesink.domain.kcql.formats import select_format
from lakesink.domain.kcql.frozen_map import FrozenMap
from lakesink.domain.kcql.grammar import (
    Clause,
    parse_clauses,
    parse_count,
    parse_head,
    reject_legacy_keywords,
)
from lakesink.domain.kcql.lexer import Kind, quote, tokenize
from lakesink.domain.kcql.locations import check_topic, split_bucket_and_prefix
from lakesink.domain.kcql.properties_clause import parse_properties
from lakesink.domain.kcql.property_reader import PropertyEntry, PropertyReader
from lakesink.domain.kcql.sink_properties import read_sink_properties
from lakesink.domain.kcql.source_properties import read_source_properties
from lakesink.domain.kcql.splitter import split_statements
from lakesink.domain.kcql.statement import KcqlStatement, SourceStatement

_SINK_SHAPE = "INSERT INTO bucket[:prefix] SELECT * FROM topic"
_SOURCE_SHAPE = "INSERT INTO topic SELECT * FROM bucket[:prefix]"


def parse(text: str) -> list[KcqlStatement]:
    """Parse a sink KCQL setting: one or more statements separated by ``;``, in the given order."""
    return [parse_sink_statement(statement) for statement in _statements(text, _SINK_SHAPE)]


def parse_source(text: str) -> list[SourceStatement]:
    """Parse a source KCQL setting: one or more statements separated by ``;``, in the given order."""
    return [parse_source_statement(statement) for statement in _statements(text, _SOURCE_SHAPE)]


def _statements(text: str, shape: str) -> list[str]:
    statements = split_statements(text)
    if not statements:
        raise KcqlError(f"no KCQL statement found: expected at least one '{shape} ...'")
    return statements


class _Storage:
    """STOREAS and PROPERTIES, shared by both forms."""

    def __init__(self, cursor: Cursor) -> None:
        self._cursor = cursor
        self.format = Format.JSON
        self.csv_headers = False
        self.entries: list[PropertyEntry] = []

    def store_as(self) -> None:
        name = self._cursor.name("a storage format (JSON, AVRO, PARQUET, CSV, TEXT or BYTES)", "STOREAS")
        self.format, self.csv_headers = select_format(self._cursor, name.value, name.start)
        if (token := self._cursor.peek()) is not None and token.kind is Kind.LPAREN:
            raise self._cursor.error("STOREAS parameters '(...)' are not supported: use PROPERTIES(...)")

    def properties(self) -> None:
        self.entries = parse_properties(self._cursor)

    @property
    def reader(self) -> PropertyReader:
        return PropertyReader(self._cursor, self.entries)

    @property
    def mapping(self) -> FrozenMap[str, str]:
        return FrozenMap({entry.key: entry.value for entry in self.entries})


def parse_sink_statement(statement: str) -> KcqlStatement:
    """Parse one (already split and stripped) sink statement."""
    tokens = tokenize(statement)
    cursor = Cursor(statement, tokens)
    reject_legacy_keywords(cursor, tokens)
    target, source = parse_head(cursor, "the target bucket[:prefix]", "a topic or `*`", allow_star=True)
    bucket, prefix = split_bucket_and_prefix(cursor, target)
    topic = None if source.value == "*" else source.value
    if topic is not None:
        check_topic(cursor, topic, source.start)
    storage = _Storage(cursor)
    layout = _Partitioning(cursor)
    parse_clauses(
        cursor,
        {
            "PARTITIONBY": Clause(0, layout.partition_by),
            "NOPARTITION": Clause(0, layout.no_partition),
            "STOREAS": Clause(1, storage.store_as),
            "PROPERTIES": Clause(2, storage.properties),
        },
        owner="sink",
        unsupported=frozenset({"BATCH", "LIMIT"}),
    )
    return KcqlStatement(
        text=statement,
        bucket=bucket,
        prefix=prefix,
        topic=topic,
        partition_by=tuple(layout.specs),
        no_partition=layout.none,
        format=storage.format,
        csv_headers=storage.csv_headers,
        properties=storage.mapping,
        options=read_sink_properties(
            storage.reader,
            storage.format,
            partitioning="PARTITIONBY" if layout.specs else "NOPARTITION" if layout.none else None,
            prefix=prefix,
        ),
    )


def parse_source_statement(statement: str) -> SourceStatement:
    """Parse one (already split and stripped) source statement."""
    cursor = Cursor(statement, tokenize(statement))
    target, source = parse_head(
        cursor, "the target Kafka topic", "the bucket[:prefix] to read", allow_star=False
    )
    check_topic(cursor, target.value, target.start)
    bucket, prefix = split_bucket_and_prefix(cursor, source)
    storage = _Storage(cursor)
    counts: dict[str, int] = {}
    parse_clauses(
        cursor,
        {
            "BATCH": Clause(0, lambda: counts.update(BATCH=parse_count(cursor, "BATCH", allow_equals=True))),
            "STOREAS": Clause(1, storage.store_as),
            "LIMIT": Clause(2, lambda: counts.update(LIMIT=parse_count(cursor, "LIMIT", allow_equals=False))),
            "PROPERTIES": Clause(3, storage.properties),
        },
        owner="source",
        unsupported=frozenset({"PARTITIONBY", "NOPARTITION"}),
    )
    return SourceStatement(
        text=statement,
        topic=target.value,
        bucket=bucket,
        prefix=prefix,
        format=storage.format,
        csv_headers=storage.csv_headers,
        batch=counts.get("BATCH"),
        limit=counts.get("LIMIT"),
        properties=storage.mapping,
        options=read_source_properties(storage.reader, storage.format),
    )


class _Partitioning:
    """PARTITIONBY specs as written, or NOPARTITION."""

    def __init__(self, cursor: Cursor) -> None:
        self._cursor = cursor
        self.specs: list[str] = []
        self.none = False

    def no_partition(self) -> None:
        self.none = True

    def partition_by(self) -> None:
        """Read the specs; duplicates (ignoring case) and empty specs or dotted parts are errors."""
        cursor = self._cursor
        after = "PARTITIONBY"
        while True:
            name = cursor.name("a partition field", after)
            spec = _spec_text(name)
            if not name.value.strip():
                raise cursor.error_at("Invalid partition by field: the field name is empty", name.start)
            if not all(_segments(name)):
                raise cursor.error_at(
                    f"Invalid partition by field {spec}: a '.' must separate two names (write a name with "
                    "dots in backticks, e.g. _key.`a.b`)",
                    name.start,
                )
            if spec.lower() in (seen.lower() for seen in self.specs):
                raise cursor.error_at(f"The field {spec} appears twice", name.start)
            self.specs.append(spec)
            if cursor.accept(Kind.COMMA) is None:
                return
            after = "','"


def _spec_text(name: Name) -> str:
    """The spec as written, with single-quoted pieces rewritten in backticks (one quoting style)."""
    return "".join(
        quote(piece.value, "`") if piece.kind is Kind.STRING else piece.text for piece in name.pieces
    ).strip()


def _segments(name: Name) -> list[str]:
    """The dot-separated parts of a spec; dots inside quotes do not separate."""
    segments = [""]
    for piece in name.pieces:
        if piece.kind is Kind.WORD:
            first, *rest = piece.value.split(".")
            segments[-1] += first
            segments.extend(rest)
        else:
            segments[-1] += piece.text
    return segments
