"""render() is the inverse of the parser: parse -> render -> parse gives an equal statement."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.domain.formats import Format
from lakesink.domain.kcql import parse, parse_source, render
from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.lexer import needs_backticks, quote
from lakesink.domain.kcql.locations import prefix_problem


def test_render_writes_the_canonical_form() -> None:
    stmt = parse(
        "insert into `my$bucket`:`a b/c` select * from `*` partitionby _key.`x.y`, 'z' storeas "
        "csv_withheaders "
        "properties(Flush.Count=5, 'key.suffix'='it''s')"
    )[0]
    assert render(stmt) == (
        "INSERT INTO `my$bucket`:`a b/c` SELECT * FROM `*` PARTITIONBY _key.`x.y`, `z` STOREAS "
        "`CSV_WITHHEADERS` "
        "PROPERTIES('flush.count'='5', 'key.suffix'='it''s')"
    )


def test_render_quotes_names_that_are_keywords() -> None:
    stmt = parse_source("INSERT INTO `limit` SELECT * FROM `from` BATCH 3 LIMIT 4")[0]
    assert render(stmt) == "INSERT INTO `limit` SELECT * FROM `from` BATCH = 3 STOREAS `JSON` LIMIT 4"


# --- generated statements ----------------------------------------------------------------

_ODD = "-._$*#()=,;'`é+@{}"
_LETTERS = "abcXYZ019"
buckets = st.text(alphabet=_LETTERS + _ODD, min_size=1, max_size=10)
prefixes = st.none() | st.text(alphabet=_LETTERS + _ODD + "/ :"[:2], min_size=1, max_size=16).filter(
    lambda p: prefix_problem(p) is None
)
topics = (
    st.none()
    | st.from_regex(r"[A-Za-z0-9._-]{1,20}", fullmatch=True).filter(lambda t: t not in (".", ".."))
    | (st.sampled_from(sorted(k.lower() for k in KEYWORDS)))
)
keyword_case = st.sampled_from([str.upper, str.lower, str.title])


def _name(draw: st.DrawFn, value: str) -> str:
    """Write a name bare when possible, otherwise (or at random) in backticks or single quotes."""
    bare_ok = not needs_backticks(value) and value.upper() not in KEYWORDS
    style = draw(st.sampled_from(["bare", "`", "'"])) if bare_ok else draw(st.sampled_from(["`", "'"]))
    return value if style == "bare" else quote(value, style)


_bare_parts = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_quoted_parts = (
    st.text(alphabet="ab. -:;'`,", min_size=1, max_size=6).filter(str.strip).map(lambda t: quote(t, "`"))
)


@st.composite
def partition_specs(draw: st.DrawFn) -> list[str]:
    specs = draw(
        st.lists(
            st.lists(_bare_parts | _quoted_parts, min_size=1, max_size=3).map(".".join),
            max_size=4,
            unique_by=str.lower,
        )
    )
    return [spec for spec in specs if spec.upper() not in KEYWORDS]


_values = st.text(alphabet="ab1 ;'`,()=#é", max_size=6)


@st.composite
def sink_properties(draw: st.DrawFn, fmt: Format) -> dict[str, str]:
    props: dict[str, str] = {}
    optional = {
        "flush.size": st.integers(1, 10**9).map(str),
        "flush.interval": st.integers(1, 10**5).map(str),
        "partition.include.keys": st.sampled_from(["true", "false", "TRUE"]),
        "padding.type": st.sampled_from(["LeftPad", "rightpad", "NOOP"]),
        "padding.char": st.sampled_from(list("0x#'` é")),
        "padding.length.partition": st.integers(0, 64).map(str),
        "padding.length.offset": st.integers(0, 64).map(str),
        "key.suffix": _values,
        "partition.date.timezone": st.sampled_from(["UTC", "Europe/Paris", "America/New_York"]),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            props[key] = draw(values)
    if fmt is Format.BYTES:
        props["flush.count"] = "1"
    elif draw(st.booleans()):
        props["flush.count"] = draw(st.integers(1, 10**6).map(str))
    if fmt.supports_envelope and draw(st.booleans()):
        props["store.envelope"] = draw(st.sampled_from(["true", "false"]))
        if props["store.envelope"] == "true" and draw(st.booleans()):
            flags = draw(st.lists(st.booleans(), min_size=4, max_size=4).filter(any))
            for part, flag in zip(("key", "value", "metadata", "headers"), flags, strict=True):
                props[f"store.envelope.fields.{part}"] = str(flag).lower()
    keys = draw(st.permutations(list(props)))
    return {key: props[key] for key in keys}


def _properties_clause(draw: st.DrawFn, props: dict[str, str]) -> str:
    if not props and draw(st.booleans()):
        return ""
    entries = []
    for key, value in props.items():
        written_key = quote(key, "'") if draw(st.booleans()) else key
        bare_value = not needs_backticks(value) and draw(st.booleans())
        entries.append(f"{written_key}={value if bare_value else quote(value, chr(39))}")
    trailing = "," if entries and draw(st.booleans()) else ""
    return f" {draw(keyword_case)('properties')}({', '.join(entries)}{trailing})"


def _storeas(draw: st.DrawFn, fmt: Format, csv_headers: bool) -> str:
    name = "CSV_WITHHEADERS" if csv_headers else fmt.value
    if fmt is Format.JSON and draw(st.booleans()):
        return ""
    return f" STOREAS {quote(draw(keyword_case)(name), '`')}"


def _location(draw: st.DrawFn, bucket: str, prefix: str | None) -> str:
    return _name(draw, bucket) + ("" if prefix is None else ":" + _name(draw, prefix))


@st.composite
def sink_statements(draw: st.DrawFn) -> str:
    case = draw(keyword_case)
    fmt = draw(st.sampled_from(list(Format)))
    csv_headers = fmt is Format.CSV and draw(st.booleans())
    topic = draw(topics)
    text = f"{case('insert into')} {_location(draw, draw(buckets), draw(prefixes))} {case('select * from')} "
    text += "`*`" if topic is None else _name(draw, topic)
    specs = draw(partition_specs())
    if specs:
        text += f" {case('partitionby')} " + ", ".join(specs)
    elif draw(st.booleans()):
        text += f" {case('nopartition')}"
    return text + _storeas(draw, fmt, csv_headers) + _properties_clause(draw, draw(sink_properties(fmt)))


@given(sink_statements())
@settings(max_examples=300, deadline=None)
def test_sink_statements_survive_parse_render_parse(text: str) -> None:
    first = parse(text)[0]
    again = parse(render(first))[0]
    assert again == first
    assert render(again) == render(first)


@st.composite
def source_properties(draw: st.DrawFn, fmt: Format) -> dict[str, str]:
    props: dict[str, str] = {}
    if fmt.supports_envelope and draw(st.booleans()):
        props["store.envelope"] = draw(st.sampled_from(["true", "false"]))
    action = draw(st.sampled_from([None, "Delete", "move"]))
    if action is not None:
        props["post.process.action"] = action
        props["post.process.action.retain.dirs"] = draw(st.sampled_from(["true", "false"]))
    if action == "move":
        props["post.process.action.bucket"] = draw(buckets.filter(lambda b: ":" not in b))
        props["post.process.action.prefix"] = draw(prefixes.filter(lambda p: p is not None))
    if fmt is Format.TEXT and draw(st.booleans()):
        props["read.text.mode"] = "StartEndLine"
        props["read.text.start.line"] = draw(_values)
        props["read.text.end.line"] = draw(_values)
        props["read.text.trim"] = draw(st.sampled_from(["true", "false"]))
    return props


@st.composite
def source_statements(draw: st.DrawFn) -> str:
    case = draw(keyword_case)
    fmt = draw(st.sampled_from(list(Format)))
    topic = draw(topics.filter(lambda t: t is not None))
    text = f"{case('insert into')} {_name(draw, topic)} {case('select * from')} "
    text += _location(draw, draw(buckets), draw(prefixes))
    if draw(st.booleans()):
        text += f" {case('batch')}{draw(st.sampled_from([' = ', '=', ' ']))}{draw(st.integers(1, 10**6))}"
    text += _storeas(draw, fmt, fmt is Format.CSV and draw(st.booleans()))
    if draw(st.booleans()):
        text += f" {case('limit')} {draw(st.integers(1, 10**6))}"
    return text + _properties_clause(draw, draw(source_properties(fmt)))


@given(source_statements())
@settings(max_examples=200, deadline=None)
def test_source_statements_survive_parse_render_parse(text: str) -> None:
    first = parse_source(text)[0]
    assert parse_source(render(first))[0] == first
