"""A Connect Decimal's bytes: what JsonConverter base64-encodes and Avro's decimal holds.

Kafka Connect stores a Decimal as ``BigInteger#toByteArray`` of its unscaled value: the fewest
two's-complement big-endian bytes that hold it (0 → ``00``, 128 → ``00 80``, -128 → ``80``). One
function for every writer that needs them (Confluent's JsonFormat, Aiven's JSON output), checked
against Kafka 4.4's JsonConverter (tests/unit/adapters/formats/test_json_decimals.py).
"""

from __future__ import annotations

from decimal import Decimal


def unscaled_bytes(value: Decimal) -> bytes:
    """``BigInteger#toByteArray`` of ``value``'s unscaled digits.

    Raises:
        ValueError: ``value`` is NaN or infinite.
    """
    if not value.is_finite():
        raise ValueError(f"{value} is not a Connect Decimal")
    sign, digits, _exponent = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    magnitude = unscaled if unscaled >= 0 else ~unscaled  # Java's bitLength leaves out the sign bit
    return unscaled.to_bytes(magnitude.bit_length() // 8 + 1, "big", signed=True)
