"""Java's numeric conversions, which Connect's ``Cast`` and ``MaskField`` inherit.

Connect narrows numbers with Java casts (``Number.byteValue()`` keeps the low bits, a double is
first saturated to an int or a long), parses integers strictly (``Integer.parseInt``) and
floats leniently (``Double.parseDouble`` accepts blanks around the number and an ``f``/``d``
suffix), and prints doubles its own way (``1.0E10``, not Python's ``1e10``). A sink that writes
what a Connect worker would write must do the same.
"""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal, InvalidOperation

BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64}

_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?")
_JAVA_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def wrap(value: int, bits: int) -> int:
    """``value`` narrowed to a signed ``bits``-wide integer, keeping the low bits as a Java cast does."""
    half = 1 << (bits - 1)
    return ((value + half) % (1 << bits)) - half


def saturate(value: float, bits: int) -> int:
    """A double cast to a Java ``int`` (bits ≤ 32) or ``long``: truncated, clamped, NaN is 0."""
    if math.isnan(value):
        return 0
    width = 32 if bits <= 32 else 64
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if math.isinf(value):
        return high if value > 0 else low
    return max(low, min(high, int(value)))


def narrow(value: int | float | Decimal, bits: int) -> int:
    """Java's ``Number.byteValue()``…``longValue()`` of a Python number."""
    if isinstance(value, float):
        return wrap(saturate(value, bits), bits)
    return wrap(int(value), bits)


def float32(value: float) -> float:
    """``value`` rounded to the nearest single-precision float (Java ``floatValue()``)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def parse_java_int(text: str, bits: int) -> int:
    """``Byte/Short/Integer/Long.parse…``: a decimal integer in range, nothing else.

    Raises:
        ValueError: not an integer, or out of range (Java's NumberFormatException).
    """
    if not _JAVA_INTEGER.fullmatch(text):
        raise ValueError(f"For input string: {text!r}")
    value = int(text)
    if wrap(value, bits) != value:
        raise ValueError(f"Value out of range. Value:{text!r}")
    return value


def parse_java_float(text: str) -> float:
    """``Double.parseDouble``: blanks trimmed, ``NaN``/``Infinity``, an optional ``f``/``d`` suffix.

    Raises:
        ValueError: not a number (Java's NumberFormatException).
    """
    trimmed = text.strip()
    if not _JAVA_FLOAT.fullmatch(trimmed):
        raise ValueError(f"For input string: {text!r}")
    return float(trimmed.rstrip("fFdD").replace("Infinity", "inf"))


def parse_number(text: str) -> Decimal:
    """A decimal number as Connect's ``Values`` reads one from text (integers and decimals, exponent allowed).

    Raises:
        ValueError: not a number.
    """
    if not _JAVA_NUMBER.fullmatch(text):
        raise ValueError(f"{text!r} is not a number")
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None


def java_double_text(value: float, single: bool = False) -> str:
    """``Double.toString`` (or ``Float.toString`` with ``single``): shortest digits, ``E`` notation
    outside [1e-3, 1e7), always a fractional part."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    digits = _shortest_single(value) if single else repr(value)
    number = Decimal(digits)
    sign = "-" if number < 0 else ""
    number = abs(number)
    if Decimal("1e-3") <= number < Decimal("1e7"):
        text = format(number, "f")
        return sign + (text if "." in text else text + ".0")
    mantissa_digits, exponent = number.as_tuple().digits, number.adjusted()
    mantissa = "".join(map(str, mantissa_digits)).rstrip("0") or "0"
    return f"{sign}{mantissa[0]}.{mantissa[1:] or '0'}E{exponent}"


def _shortest_single(value: float) -> str:
    """The fewest significant digits that read back as the same single-precision float."""
    for precision in range(1, 10):
        text = f"{value:.{precision}g}"
        if float32(float(text)) == value:
            return text
    return repr(value)
