"""Does a value fit a schema? Compiled once per schema, because writers ask for every record.

A value fits when it can be written with the schema without loss: a record value may leave out
nullable fields and fields with a default but not carry fields the schema lacks; ints fit floating
point types; ``datetime``/``date``/``time`` and ``Decimal`` fit their logical types (ints the
int-based ones too, as their encoded form). :func:`checker` builds nested closures, about three
times faster than walking the schema dict for every value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from lakesink.domain.schema.model import DEFAULT_DECIMAL_PRECISION, PRIMITIVES, Names, Schema, kind, logical

Check = Callable[[Any], bool]
_MISSING = object()
_BINARY = (bytes, bytearray, memoryview)


def fits(value: Any, schema: Schema) -> bool:
    """Whether ``value`` can be written with ``schema`` without loss (see module docstring)."""
    return checker(schema)(value)


def checker(schema: Schema) -> Check:
    """A function telling whether a value fits ``schema``."""
    return _Compiler(Names(schema)).compile(schema)


def _int_range(low: int, high: int) -> Check:
    def check(value: Any) -> bool:
        return type(value) is int and low <= value <= high or (
            isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        )

    return check


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_PRIMITIVE_CHECKS: dict[str, Check] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "int": _int_range(-(2**31), 2**31 - 1),
    "long": _int_range(-(2**63), 2**63 - 1),
    "float": _number,
    "double": _number,
    "string": lambda value: isinstance(value, str),
    "bytes": lambda value: isinstance(value, _BINARY),
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_LOGICAL_CHECKS: dict[str, Check] = {
    "timestamp-millis": lambda value: isinstance(value, datetime) or _is_int(value),
    "timestamp-micros": lambda value: isinstance(value, datetime) or _is_int(value),
    "local-timestamp-millis": lambda value: isinstance(value, datetime) or _is_int(value),
    "local-timestamp-micros": lambda value: isinstance(value, datetime) or _is_int(value),
    "date": lambda value: (isinstance(value, date) and not isinstance(value, datetime)) or _is_int(value),
    "time-millis": lambda value: isinstance(value, time) or _is_int(value),
    "time-micros": lambda value: isinstance(value, time) or _is_int(value),
    "uuid": lambda value: isinstance(value, str),
}


CHECKED_LOGICAL_TYPES = frozenset({*_LOGICAL_CHECKS, "decimal"})
"""The logical types with fit rules of their own; any other logical type fits as its base type."""


def decimal_scale(value: Decimal) -> int:
    """Digits after the point of a decimal, trailing zeros ignored."""
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _decimal(precision: int, scale: int) -> Check:
    def check(value: Any) -> bool:
        if not isinstance(value, Decimal) or not value.is_finite() or decimal_scale(value) > scale:
            return False
        _, digits, exponent = value.as_tuple()
        integral = len(digits) + exponent if isinstance(exponent, int) else len(digits)
        return max(integral, 0) <= precision - scale

    return check


class _Compiler:
    """Compiles one root schema; named types compile once and may refer to themselves."""

    def __init__(self, names: Names) -> None:
        self._names = names
        self._named: dict[str, Check] = {}

    def compile(self, schema: Schema) -> Check:  # noqa: C901 - one case per Avro type
        if isinstance(schema, list):
            return self._union(schema)
        if isinstance(schema, str) and schema not in PRIMITIVES:
            return self._reference(schema)
        logical_type = logical(schema)
        if logical_type == "decimal":
            return _decimal(int(schema.get("precision", DEFAULT_DECIMAL_PRECISION)), int(schema.get("scale", 0)))
        if logical_type in _LOGICAL_CHECKS:
            return _LOGICAL_CHECKS[logical_type]
        type_name = kind(schema)
        if type_name in _PRIMITIVE_CHECKS:
            return _PRIMITIVE_CHECKS[type_name]
        if type_name in ("record", "error"):
            return self._record(schema)
        if type_name == "array":
            return self._array(self.compile(schema["items"]))
        if type_name == "map":
            return self._map(self.compile(schema["values"]))
        if type_name == "enum":
            symbols = frozenset(schema["symbols"])
            return lambda value: isinstance(value, str) and value in symbols
        if type_name == "fixed":
            size = int(schema["size"])
            return lambda value: isinstance(value, bytes | bytearray) and len(value) == size
        return lambda value: False

    def _union(self, branches: list[Schema]) -> Check:
        nullable = "null" in branches
        checks = [self.compile(branch) for branch in branches if branch != "null"]
        if nullable and len(checks) == 1:
            only = checks[0]
            return lambda value: value is None or only(value)
        return lambda value: (nullable and value is None) or any(check(value) for check in checks)

    def _reference(self, name: str) -> Check:
        definition = self._names.resolve(name)
        if name not in self._named:
            self._named[name] = lambda value: False  # placeholder while the type compiles
            self._named[name] = self.compile(definition)
        named = self._named
        return lambda value: named[name](value)

    def _record(self, schema: Schema) -> Check:
        fields = []
        for field in schema["fields"]:
            field_type = field["type"]
            required = "default" not in field and not (
                field_type == "null" or (isinstance(field_type, list) and "null" in field_type)
            )
            fields.append((field["name"], self.compile(field_type), required))
        count = len(fields)

        def check(value: Any) -> bool:
            if not isinstance(value, Mapping):
                return False
            if len(value) > count:
                return False
            known = 0
            for name, check_field, required in fields:
                item = value.get(name, _MISSING)
                if item is _MISSING:
                    if required:
                        return False
                elif check_field(item):
                    known += 1
                else:
                    return False
            return known == len(value)

        return check

    @staticmethod
    def _array(check_item: Check) -> Check:
        def check(value: Any) -> bool:
            return (
                isinstance(value, Sequence)
                and not isinstance(value, str | bytes | bytearray)
                and all(check_item(item) for item in value)
            )

        return check

    @staticmethod
    def _map(check_value: Check) -> Check:
        def check(value: Any) -> bool:
            return isinstance(value, Mapping) and all(
                isinstance(key, str) and check_value(item) for key, item in value.items()
            )

        return check
