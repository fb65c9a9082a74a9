"""The Avro binary primitives the compiled encoder (:mod:`.avro_encoder`) calls at run time.

Each writes what fastavro writes for the same value, including where fastavro's C conversions
decide: a long outside 64 bits is an OverflowError, a finite double beyond a ``float``'s range
is an infinity.
"""

from __future__ import annotations

import math
import struct
from typing import Any

SMALL = tuple(bytes((byte,)) for byte in range(128))
"""The one-byte varints: every zigzagged value below 128."""
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
FLOAT = struct.Struct("<f")
DOUBLE = struct.Struct("<d")
BYTE_DOUBLE = struct.Struct("<Bd")
"""A union's branch index (0 or 1, a one-byte varint) and a double, packed in one call."""


def varint(zigzag: int) -> bytearray:
    """The variable-length encoding of an already zigzagged (non-negative) long."""
    out = bytearray()
    while zigzag > 0x7F:
        out.append(zigzag & 0x7F | 0x80)
        zigzag >>= 7
    out.append(zigzag)
    return out


def zigzag_varint(value: int) -> bytes | bytearray:
    """A long's encoding; raises OverflowError outside 64 bits, as fastavro does."""
    if not LONG_MIN <= value <= LONG_MAX:
        raise OverflowError("Python int too large to convert to C long")
    zigzag = (value << 1) ^ (value >> 63)
    return SMALL[zigzag] if zigzag < 128 else varint(zigzag)


def pack_float(value: Any) -> bytes:
    """A 32-bit float; a finite double beyond its range is an infinity, as fastavro writes it."""
    number = float(value)  # ints beyond a double raise OverflowError here, as in fastavro
    try:
        return FLOAT.pack(number)
    except OverflowError:
        return FLOAT.pack(math.copysign(math.inf, number))
