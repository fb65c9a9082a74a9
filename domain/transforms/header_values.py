"""Header text as Kafka Connect's ``SimpleHeaderConverter`` reads and writes it.

lakesink mirrors ``Values.parseString`` (:func:`parse_string`, also used for header values given
as configuration text) and ``Values.convertToString`` (:func:`convert_to_string`), so an envelope
holds what a Lenses sink under the same worker would store and a restore gives back what a
Connect source task would produce. See docs/formats.md, "Envelope headers".
"""

from __future__ import annotations

import base64
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from lakesink.domain.layout.field_paths import java_double
from lakesink.domain.schema.connect import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP

ConnectSchema = Mapping[str, Any]
"""A Connect schema as JSON (the form ``JsonConverter`` uses): ``{"type": "int8"}``; FLOAT32 and
FLOAT64 are ``float`` and ``double`` there, as JsonConverter names them."""


class Parsed(NamedTuple):
    """A parsed header value and its Connect schema (None for a null value)."""

    value: Any
    schema: ConnectSchema | None


_INTEGERS = (("int8", 7), ("int16", 15), ("int32", 31), ("int64", 63))
_NUMERIC_ORDER = {"int8": 0, "int16": 1, "int32": 2, "int64": 3, "float": 4, "double": 5}
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z")
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z")
_JAVA_BLANKS = "".join(chr(code) for code in range(33))  # what Java's String.trim removes
_DELIMITERS = frozenset(':,{}[]"')
_MAX_DECIMAL_DIGITS = 38
_MAX_DEPTH = 64  # arrays and maps nested deeper stay text
_INT64_DIGITS = 20  # "-9223372036854775808": no longer integer token is an int64
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY_MS = 86_400_000
_FLOAT32 = struct.Struct(">f")
_FLOAT32_MAX = 3.4028234663852886e38
_NULL: Parsed = Parsed(None, None)
_EMBEDDED_LITERALS = {
    "null": _NULL,
    "true": Parsed(True, {"type": "boolean"}),
    "false": Parsed(False, {"type": "boolean"}),
}


class _NotParsable(Exception):
    """An embedded element that is not a value: the whole text stays a string."""


def parse_string(text: str | None) -> Parsed:
    """``text`` as ``Values.parseString`` types it.

    What text becomes (:class:`Parsed` ``schema`` is a Connect schema as JSON, ``{"type": "int8"}``):

    * ``null`` → None (no schema); ``true`` / ``false`` → boolean (exact spelling, spaces around ignored);
    * a decimal number → the smallest of int8, int16, int32, int64 holding it exactly (``1.0`` and
      ``1e2`` are integers), else float32 when it has a fraction and fits, else float64, else a
      Connect Decimal (integers beyond int64);
    * ``yyyy-MM-dd`` → Date, ``HH:mm:ss.SSSZ`` → Time, ``yyyy-MM-ddTHH:mm:ss.SSSZ`` → Timestamp (UTC);
    * ``[a,b]`` → array, ``{k:v}`` → map, elements parsed the same way (quoted ones are strings or
      temporals), their types unified (integers widen to the widest integer or float present);
    * anything else, the empty string included → the text itself as a string.

    Deliberate deviations, each keeping the header as its text where Connect would lose or garble it:

    * the number, temporal or structure must be the whole text: Connect reads ``12:30`` as the
      integer 12 and ``[1] x`` as ``[1]``;
    * dates and times must be valid (Connect's lenient ``SimpleDateFormat`` turns ``2024-02-30``
      into 1 March) and are read in UTC rather than the worker's time zone;
    * an array or map whose elements share no type, a map with keys that are not strings (neither
      Avro nor JSON objects can hold them), and a Decimal Parquet cannot store (a negative scale,
      more than 38 digits) stay strings; Connect makes an order-dependent or schema-less result.
    """
    if text is None:
        return _NULL
    stripped = text.strip(_JAVA_BLANKS)
    if not stripped:
        return Parsed(text, {"type": "string"})
    literal = _EMBEDDED_LITERALS.get(stripped)
    if literal is not None:
        return literal
    first = stripped[0]
    if first in "[{":
        try:
            tokens = _Tokens(stripped)
            parsed = _structure(tokens)
            if tokens.done():
                return parsed
        except _NotParsable:
            pass
        return Parsed(text, {"type": "string"})
    scalar = _scalar(stripped)
    return scalar if scalar is not None else Parsed(text, {"type": "string"})


def _scalar(token: str) -> Parsed | None:
    digit = "0" <= token[0] <= "9"
    if digit:
        temporal = _temporal(token)
        if temporal is not None:
            return temporal
    if not (digit or token[0] in "+-"):
        return None
    if len(token) <= _INT64_DIGITS and _INTEGER.fullmatch(token):  # the common case, without a Decimal
        return _integer(int(token)) or _number(Decimal(token))
    if not _NUMBER.fullmatch(token):
        return None
    try:
        return _number(Decimal(token))
    except InvalidOperation:  # an exponent beyond what Decimal holds (1e99999999999999999999)
        return None


def _integer(whole: int) -> Parsed | None:
    for name, bits in _INTEGERS:
        if -(1 << bits) <= whole < (1 << bits):
            return Parsed(whole, {"type": name})
    return None


def _temporal(token: str) -> Parsed | None:
    try:
        if match := _DATE.fullmatch(token):
            year, month, day = map(int, match.groups())
            return Parsed(date(year, month, day), {"type": "int32", "name": DATE_NAME})
        if match := _TIME.fullmatch(token):
            hour, minute, second, milli = map(int, match.groups())
            return Parsed(time(hour, minute, second, milli * 1000), {"type": "int32", "name": TIME_NAME})
        if match := _TIMESTAMP.fullmatch(token):
            year, month, day, hour, minute, second, milli = map(int, match.groups())
            stamp = datetime(year, month, day, hour, minute, second, milli * 1000, tzinfo=UTC)
            return Parsed(stamp, {"type": "int64", "name": TIMESTAMP})
    except ValueError:
        return None  # 2024-02-30, 25:00:00.000Z...
    return None


def _number(number: Decimal) -> Parsed | None:
    # adjusted() is the exponent of the leading digit: only a magnitude below 10**19 may be an int64,
    # and only such a number is expanded (int(Decimal("9e999999999")) would take all the memory).
    if number.adjusted() < _INT64_DIGITS - 1 and number == number.to_integral_value():
        integer = _integer(int(number))
        if integer is not None:
            return integer
    scale = -int(number.as_tuple().exponent)
    if scale != 0:
        as_double = float(number)
        if abs(as_double) <= _FLOAT32_MAX:
            return Parsed(_FLOAT32.unpack(_FLOAT32.pack(as_double))[0], {"type": "float"})
        if as_double not in (float("inf"), float("-inf")):
            return Parsed(as_double, {"type": "double"})
    if scale < 0 or len(number.as_tuple().digits) > _MAX_DECIMAL_DIGITS:
        return None
    return Parsed(number, {"type": "bytes", "name": DECIMAL_NAME, "parameters": {"scale": str(scale)}})


class _Tokens:
    """Connect's tokenizer: the delimiters ``:,{}[]"`` are tokens, a backslash escapes the next character."""

    def __init__(self, text: str) -> None:
        self._tokens = list(self._split(text))
        self._at = 0
        self.depth = 0

    @staticmethod
    def _split(text: str) -> Iterator[str]:
        start, escaped = 0, False
        for index, char in enumerate(text):
            if char == "\\":
                escaped = not escaped
                continue
            if char in _DELIMITERS and not escaped:
                if start < index:
                    yield text[start:index]
                yield char
                start = index + 1
            escaped = False
        if start < len(text):
            yield text[start:]

    def done(self) -> bool:
        """Whether only blanks are left."""
        return all(not token.strip(_JAVA_BLANKS) for token in self._tokens[self._at :])

    def peek(self) -> str | None:
        """The next token that is not blank, trimmed (None at the end); blank ones are skipped."""
        while self._at < len(self._tokens):
            token = self._tokens[self._at].strip(_JAVA_BLANKS)
            if token:
                return token
            self._at += 1
        return None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _NotParsable
        self._at += 1
        return token

    def raw(self, count: int) -> str | None:
        """The next ``count`` tokens joined as written (a time split at its colons), consumed; None if fewer."""
        if self._at + count > len(self._tokens):
            return None
        joined = "".join(self._tokens[self._at : self._at + count])
        self._at += count
        return joined

    def mark(self) -> int:
        return self._at

    def rewind(self, mark: int) -> None:
        self._at = mark


def _structure(tokens: _Tokens) -> Parsed:
    if tokens.depth >= _MAX_DEPTH:
        raise _NotParsable  # the text stays a string instead of exhausting the stack
    tokens.depth += 1
    try:
        return _array(tokens) if tokens.take() == "[" else _map(tokens)
    finally:
        tokens.depth -= 1


def _array(tokens: _Tokens) -> Parsed:
    items: list[Parsed] = []
    while tokens.peek() != "]":
        if items:
            tokens.take(",")
        items.append(_element(tokens))
    tokens.take("]")
    schema, values = _unify(items)
    return Parsed(values, {"type": "array", "items": schema})


def _map(tokens: _Tokens) -> Parsed:
    keys: list[Parsed] = []
    values: list[Parsed] = []
    while tokens.peek() != "}":
        if keys:
            tokens.take(",")
        key = _element(tokens)
        if not isinstance(key.value, str):
            raise _NotParsable
        tokens.take(":")
        keys.append(key)
        values.append(_element(tokens))
    tokens.take("}")
    value_schema, converted = _unify(values)
    mapping = {key.value: value for key, value in zip(keys, converted, strict=True)}
    return Parsed(mapping, {"type": "map", "keys": {"type": "string"}, "values": value_schema})


def _element(tokens: _Tokens) -> Parsed:
    token = tokens.peek()
    if token is None or token in ",:]}":
        raise _NotParsable
    if token == '"':
        tokens.take()
        content = []
        while (part := tokens.raw(1)) is not None and part != '"':
            content.append(part)
        if part is None:
            raise _NotParsable
        text = "".join(content)
        temporal = _temporal(text) if "0" <= text[:1] <= "9" else None
        return temporal or Parsed(text, {"type": "string"})
    if token in "[{":
        return _structure(tokens)
    if token in _EMBEDDED_LITERALS:
        tokens.take()
        return _EMBEDDED_LITERALS[token]
    mark = tokens.mark()
    tokens.peek()  # skip blanks, so a time split at its colons is read from its first digit
    joined = tokens.raw(5)
    time_like = (
        _temporal(joined.strip(_JAVA_BLANKS)) if joined is not None and "0" <= token[0] <= "9" else None
    )
    if time_like is not None:
        return time_like
    tokens.rewind(mark)
    tokens.take()
    scalar = _scalar(token)
    if scalar is None:
        raise _NotParsable
    return scalar


def _unify(items: Sequence[Parsed]) -> tuple[ConnectSchema | None, list[Any]]:
    """The elements' common schema (optional when one is null) and the values converted to it."""
    present = [item.schema for item in items if item.schema is not None]
    if not present:
        return None, [item.value for item in items]
    common = present[0]
    for schema in present[1:]:
        common = _common(common, schema)
    values = [_widen(item.value, common["type"]) for item in items]
    return ({**common, "optional": True} if len(present) < len(items) else common), values


def _common(left: ConnectSchema, right: ConnectSchema) -> ConnectSchema:
    if left == right:
        return left
    inner = {"array": "items", "map": "values"}.get(left["type"])
    if inner is not None and left["type"] == right["type"] and None in (left[inner], right[inner]):
        return left if right[inner] is None else right  # an empty structure takes the other's type
    if left.get("name") is None and right.get("name") is None:
        left_rank, right_rank = _NUMERIC_ORDER.get(left["type"]), _NUMERIC_ORDER.get(right["type"])
        if left_rank is not None and right_rank is not None:
            return left if left_rank >= right_rank else right
    raise _NotParsable


def _widen(value: Any, type_name: str) -> Any:
    if value is None or isinstance(value, bool) or type_name not in ("float", "double"):
        return value
    if type_name == "float":
        return _FLOAT32.unpack(_FLOAT32.pack(float(value)))[0]
    return float(value)


def convert_to_string(value: Any, schema: ConnectSchema | None = None) -> str | None:
    """``value`` as ``Values.convertToString`` writes it; None stays None (a null header).

    ``schema`` tells a float32 from a float64 (Java prints a float's own shortest digits);
    every other type is known from the value.
    """
    if value is None:
        return None
    return "".join(_text(value, schema, embedded=False))


def _text(value: Any, schema: ConnectSchema | None, *, embedded: bool) -> Iterator[str]:
    if value is None:
        yield "null"
    elif isinstance(value, bool):
        yield "true" if value else "false"
    elif isinstance(value, int | Decimal):
        yield str(value)
    elif isinstance(value, float):
        yield (
            java_float(value)
            if schema is not None and schema.get("type") == "float"
            else java_double(value)
        )
    elif isinstance(value, str):
        yield '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if embedded else value
    elif isinstance(value, bytes | bytearray | memoryview):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        yield f'"{encoded}"' if embedded else encoded
    elif isinstance(value, datetime | date | time):
        yield _java_date_text(value)
    elif isinstance(value, Mapping):
        values = schema.get("values") if schema else None
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield "," if index else ""
            yield from _text(key, None, embedded=True)
            yield ":"
            yield from _text(item, values, embedded=True)
        yield "}"
    elif isinstance(value, Sequence):
        items = schema.get("items") if schema else None
        yield "["
        for index, item in enumerate(value):
            yield "," if index else ""
            yield from _text(item, items, embedded=True)
        yield "]"
    else:
        raise TypeError(f"a header cannot hold a {type(value).__name__}")


def java_float(value: float) -> str:
    """Java's ``Float.toString``: the shortest digits that read back as the same float32."""
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if _FLOAT32.unpack(_FLOAT32.pack(candidate))[0] == value:
            return java_double(candidate)
    return java_double(value)


def _java_date_text(value: date | time) -> str:
    """Connect picks the pattern from the instant, not the schema: before the epoch's first day
    is a time, a whole day is a date, anything else a timestamp (all in UTC)."""
    millis = _epoch_millis(value)
    stamp = _EPOCH + timedelta(milliseconds=millis)
    if millis < _DAY_MS:
        return stamp.strftime("%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"
    if millis % _DAY_MS == 0:
        return stamp.strftime("%Y-%m-%d")
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _epoch_millis(value: date | time) -> int:
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, date):
        return (value - date(1970, 1, 1)).days * _DAY_MS
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
