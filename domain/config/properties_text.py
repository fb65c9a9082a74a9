"""Connector configs as text: Java ``.properties`` and Kafka Connect JSON.

Users bring the files they already feed Kafka Connect, so both forms must parse exactly as
Kafka Connect would read them (``java.util.Properties.load`` rules, and the REST API's
``{"name": ..., "config": {...}}`` body). The application reads the file; this module only
turns text into a ``dict[str, str]`` and names the line or JSON path of any mistake.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from lakesink.domain.errors import ConfigError

_WHITESPACE = " \t\f"
_SEPARATORS = "=:"
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_JSON_SUFFIXES = (".json",)
_PROPERTIES_SUFFIXES = (".properties", ".props", ".conf", ".cfg")
#: Keys a ``GET /connectors/<name>`` response carries beside ``config``; harmless when pasted.
_CONNECT_RESPONSE_KEYS = frozenset({"name", "config", "tasks", "type"})


# --- .properties -----------------------------------------------------------------------------


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text; a later duplicate key wins, as in ``Properties.load``.

    Supports ``=``, ``:`` or whitespace separators, ``#``/``!`` comments, backslash line
    continuation (leading whitespace of the next line dropped), the escapes ``\\t \\n \\r \\f
    \\uXXXX``, escaped separators and spaces in keys, and any other ``\\c`` meaning ``c``.
    """
    result: dict[str, str] = {}
    for line_no, logical in _logical_lines(text):
        key, value = _split_entry(logical, line_no)
        result[key] = value
    return result


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield (first line number, joined text) for each non-blank, non-comment logical line."""
    natural = text.splitlines()
    index = 0
    while index < len(natural):
        start = index
        line = natural[index].lstrip(_WHITESPACE)
        index += 1
        if not line or line[0] in "#!":
            continue
        parts = []
        while _ends_with_continuation(line):
            parts.append(line[:-1])
            if index >= len(natural):
                line = ""
                break
            line = natural[index].lstrip(_WHITESPACE)
            index += 1
        parts.append(line)
        yield start + 1, "".join(parts)


def _ends_with_continuation(line: str) -> bool:
    """An odd number of trailing backslashes escapes the line break."""
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split_entry(line: str, line_no: int) -> tuple[str, str]:
    """Split a logical line into its unescaped key and value."""
    position = 0
    while position < len(line):
        char = line[position]
        if char == "\\":
            position += 2
            continue
        if char in _SEPARATORS or char in _WHITESPACE:
            break
        position += 1
    raw_key = line[:position]
    rest = line[position:].lstrip(_WHITESPACE)
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(_WHITESPACE)
    return _unescape(raw_key, line_no), _unescape(rest, line_no)


def _unescape(raw: str, line_no: int) -> str:
    out: list[str] = []
    position = 0
    while position < len(raw):
        char = raw[position]
        position += 1
        if char != "\\":
            out.append(char)
            continue
        if position >= len(raw):
            break  # a lone trailing backslash at end of input is dropped, as Java does
        escaped = raw[position]
        position += 1
        if escaped == "u":
            digits = raw[position : position + 4]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                # The value is not quoted: it may be a secret.
                raise ConfigError(f"Line {line_no}: malformed \\uXXXX escape (expected 4 hex digits).")
            out.append(chr(int(digits, 16)))
            position += 4
        else:
            out.append(_SIMPLE_ESCAPES.get(escaped, escaped))
    return "".join(out)


# --- Kafka Connect JSON ------------------------------------------------------------------------


def parse_connect_json(text: str) -> tuple[str | None, dict[str, str]]:
    """Parse a Kafka Connect REST body ``{"name": ..., "config": {...}}`` or a flat config object.

    Numbers and booleans become the strings Kafka Connect would see (``true``, ``20``);
    null, arrays and objects are rejected, naming their JSON path.

    Returns:
        The connector name (top-level ``name``, else ``config.name``, else None) and the config.
    """
    try:
        document = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"Invalid JSON at line {error.lineno} column {error.colno}: {error.msg}."
        ) from None
    if not isinstance(document, dict):
        raise ConfigError("The JSON config must be an object ({...}) at $.")
    if isinstance(document.get("config"), dict):
        extra = sorted(set(document) - _CONNECT_RESPONSE_KEYS)
        if extra:
            raise ConfigError(
                f"Unexpected key(s) {', '.join(map(repr, extra))} at $ beside 'config'; "
                "put connector settings inside $.config."
            )
        config = _string_values(document["config"], "$.config")
        outer_name = document.get("name")
        if outer_name is not None and not isinstance(outer_name, str):
            raise ConfigError("$.name must be a string.")
        inner_name = config.get("name")
        if outer_name is not None and inner_name is not None and outer_name != inner_name:
            raise ConfigError(
                f"$.name {outer_name!r} and $.config.name {inner_name!r} differ; they must match."
            )
        return (outer_name if outer_name is not None else inner_name), config
    config = _string_values(document, "$")
    return config.get("name"), config


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ConfigError(f"Duplicate JSON key {key!r}: each setting may appear only once.")
        result[key] = value
    return result


def _string_values(config: dict[str, Any], path: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for key, value in config.items():
        where = f"{path}[{json.dumps(key)}]"
        if isinstance(value, bool):
            result[key] = "true" if value else "false"
        elif isinstance(value, (int, float, str)):
            result[key] = str(value)
        elif value is None:
            raise ConfigError(f"{where} is null; remove the key to use its default.")
        else:
            kind = "an array" if isinstance(value, list) else "an object"
            raise ConfigError(f"{where} is {kind}; Kafka Connect settings are strings, numbers or booleans.")
    return result


# --- choosing the form -----------------------------------------------------------------------


def load_config_text(text: str, *, filename: str) -> dict[str, str]:
    """Parse a config file's text, choosing JSON or ``.properties`` by extension, else by content.

    The JSON form's connector name is folded into the result as ``name`` so both forms give the
    same flat mapping.
    """
    lowered = filename.lower()
    if lowered.endswith(_JSON_SUFFIXES):
        as_json = True
    elif lowered.endswith(_PROPERTIES_SUFFIXES):
        as_json = False
    else:
        as_json = text.lstrip().startswith("{")
    try:
        if not as_json:
            return parse_properties(text)
        name, config = parse_connect_json(text)
    except ConfigError as error:
        raise ConfigError(f"{filename}: {error}") from None
    if name is not None:
        config.setdefault("name", name)
    return config


# --- writing .properties -----------------------------------------------------------------------


def properties_line(key: str, value: str) -> str:
    """``key=value`` escaped so :func:`parse_properties` (and Java) reads back exactly ``key`` and ``value``.

    ``lakesink config convert`` prints configs that are loaded again, so every character that
    the ``.properties`` rules would swallow (a backslash, a line break, leading blanks, a
    separator or a comment mark in the key) is escaped.
    """
    return f"{_escape(key, is_key=True)}={properties_value(value)}"


def properties_value(value: str) -> str:
    """``value`` escaped for the right-hand side of a ``.properties`` line (or a continuation line)."""
    return _escape(value, is_key=False)


def _escape(text: str, *, is_key: bool) -> str:
    out: list[str] = []
    for index, char in enumerate(text):
        if char == "\\":
            out.append("\\\\")
        elif char in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[char])
        elif char == " " and (is_key or index == 0):
            out.append("\\ ")
        elif is_key and char in "=:#!":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)
