"""Making partition values and prefixes safe to use as object-key path segments.

Partition values come from record data, so whoever produces to the topic controls them; Lenses
puts them into keys verbatim, where ``../../other`` can leave the prefix. lakesink keeps Lenses'
layout for ordinary values but makes every segment safe (:func:`safe_value`).
See docs/naming.md, "Partition values cannot escape the prefix".
"""

from __future__ import annotations

from lakesink.domain.errors import ConfigError

EMPTY_VALUE = "[empty]"

_ESCAPES = {chr(code): f"%{code:02X}" for code in (*range(0x20), 0x7F)}
_ESCAPES["\\"] = "%5C"
_ESCAPE_TABLE = str.maketrans(_ESCAPES)
_DOT_SEGMENTS = frozenset({".", ".."})


def has_control_character(text: str) -> bool:
    """Whether ``text`` contains U+0000-U+001F or U+007F."""
    return any(char in _ESCAPES and char != "\\" for char in text)


def safe_segment(segment: str) -> str:
    """One non-empty path segment with dot segments, backslashes and control characters escaped."""
    if segment in _DOT_SEGMENTS:
        return segment.replace(".", "%2E")
    return segment.translate(_ESCAPE_TABLE)


def safe_value(value: str) -> str:
    """A partition value as one or more safe path segments joined by ``/``.

    A value that is already one safe segment — the usual case, asked for every record — is
    returned as it is: printable (so no control character), no ``/`` or ``\\``, not a dot segment.

    A ``/`` inside a value is kept as a path separator (Lenses-compatible: a date value
    ``2024/01/01`` makes three levels), but the value is split on ``/`` first; empty segments
    (leading, trailing or doubled slashes) are dropped; a segment that is exactly ``.`` or ``..`` has
    each dot percent-encoded (``%2E``); a backslash becomes ``%5C`` and control characters
    (U+0000-U+001F, U+007F) become ``%XX``; a value that is empty after this becomes ``[empty]``.
    """
    plain = value.isprintable() and "/" not in value and "\\" not in value
    if plain and value and value not in _DOT_SEGMENTS:
        return value
    return split_safe_value(value)


def split_safe_value(value: str) -> str:
    """:func:`safe_value` the long way: split on ``/``, drop empty segments, escape each one."""
    segments = [safe_segment(segment) for segment in value.split("/") if segment]
    return "/".join(segments) if segments else EMPTY_VALUE


def normalise_prefix(prefix: str | None) -> str:
    """The KCQL prefix without leading, trailing or doubled slashes; "" when there is none.

    Unlike partition values the prefix is the operator's own configuration, so instead of
    escaping anything it is rejected when it could escape the bucket root or hide characters.

    Raises:
        ConfigError: a ``.`` or ``..`` segment or a control character in the prefix.
    """
    if prefix is None:
        return ""
    segments = [segment for segment in prefix.split("/") if segment]
    for segment in segments:
        if segment in _DOT_SEGMENTS:
            raise ConfigError(f"Invalid KCQL prefix {prefix!r}: a '{segment}' path segment is not allowed.")
    if has_control_character(prefix):
        raise ConfigError(f"Invalid KCQL prefix {prefix!r}: control characters are not allowed.")
    return "/".join(segments)
