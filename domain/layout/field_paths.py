"""Reading one primitive out of nested record data, rendered as Java would render it.

PARTITIONBY paths (``_value.a.b``, ``_key.items.0``, ``_header.h.x``) give key text with Java's
``toString`` rules, the same keys as a Lenses sink on the same data (:func:`read_path`).
See docs/naming.md, "PARTITIONBY entries".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any
from uuid import UUID

_BYTES_TYPES = (bytes, bytearray, memoryview)
_ARRAY_INDEX = re.compile(r"[+-]?[0-9]+")


class FieldPathError(Exception):
    """The path cannot be read from this data (not a "missing" field: a type problem)."""


def read_path(data: Any, path: Sequence[str]) -> str | None:
    """The primitive at ``path`` inside ``data`` as Java text; None when it is missing.

    An empty path reads ``data`` itself.

    Maps/structs are walked by name and arrays by index, like Lenses' extractors. A missing field, a
    null on the way or an array index out of range is "missing" (the caller writes ``[missing]``); a
    struct/array leaf, a non-numeric array index or a path that runs into a primitive is a
    :class:`FieldPathError`, which the caller reports as a poison record. Deliberate deviation:
    Lenses ignores the path when the whole key/value is a primitive (so ``PARTITIONBY name`` on a
    string value puts the entire value into the key); here that is an error.

    Raises:
        FieldPathError: the leaf is a struct/map/array, an array index is not a number, or the
            path continues below a primitive.
    """
    current = data
    for depth, segment in enumerate(path):
        if type(current) is dict or isinstance(current, Mapping):  # plain dicts (JSON, Avro) skip the ABC check
            current = current.get(segment)
        elif _is_array(current):
            current = _element(current, segment)
        else:
            walked = ".".join(path[:depth]) or "the top level"
            raise FieldPathError(
                f"cannot read field '{segment}' below {walked}: it holds a {_type_name(current)}, "
                "not a struct, map or array"
            )
        if current is None:
            return None
    return java_string(current)


def java_string(value: Any) -> str:
    """``value`` rendered like Java's ``toString`` for the Kafka Connect primitive types.

    Raises:
        FieldPathError: ``value`` is a struct, map, array or an unsupported type.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, Decimal):
        return format(value, "f") if value.is_finite() else str(value)
    if isinstance(value, _BYTES_TYPES):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Mapping) or _is_array(value):
        raise FieldPathError(f"the field holds a {_type_name(value)}; only primitive values can partition")
    raise FieldPathError(f"the field holds an unsupported type {type(value).__name__}")


def java_double(value: float) -> str:
    """Java's ``Double.toString`` (JDK 19+ digits): plain for 1e-3 <= |x| < 1e7, else ``d.dddEn``.

    JDK 19 made the digits the shortest that round-trip, which is what ``repr`` gives; older JDKs
    occasionally print one or two more digits (``9.999999999999999E22`` for 1e23).
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    magnitude = abs(value)
    if magnitude == 0:
        return sign + "0.0"
    exact = Decimal(repr(magnitude)).normalize().as_tuple()
    digits = "".join(str(digit) for digit in exact.digits)
    exponent = len(digits) - 1 + int(exact.exponent)
    if len(digits) == 1:
        # Java picks the closest two-digit decimal when one digit would do (4.9E-324, not 5.0E-324).
        mantissa, _, power = f"{magnitude:.1e}".partition("e")
        digits, exponent = mantissa.replace(".", "").rstrip("0"), int(power)
    if 1e-3 <= magnitude < 1e7:
        if exponent >= 0:
            whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _is_array(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray | memoryview)


def _element(array: Sequence[Any], segment: str) -> Any:
    if not _ARRAY_INDEX.fullmatch(segment):
        raise FieldPathError(f"'{segment}' is not an array index (expected only numeric characters)")
    index = int(segment)
    return array[index] if 0 <= index < len(array) else None


def _type_name(value: Any) -> str:
    if isinstance(value, Mapping):
        return "struct/map"
    if _is_array(value):
        return "array"
    return type(value).__name__
