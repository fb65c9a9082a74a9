"""Aiven ``file.name.template`` compiled into an anchored regular expression.

Aiven's source matches an unanchored, unquoted regex and mis-parses keys; here a key matches the
whole template (plus an optional extension) or is not one of its objects, and each variable, left
to right, takes the longest text that still lets the rest match.
See docs/restore.md, "Layouts parsed" and "Ambiguous templates".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lakesink.domain.dialects.aiven.template import iter_template
from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.parsed_key import ParsedKey

TEMPLATE_KEY = "file.name.template"

_UNIT_DIGITS = {"yyyy": 4, "MM": 2, "dd": 2, "HH": 2}
_PADDED_WIDTH = {"partition": 10, "start_offset": 20}
_SUPPORTED = ("topic", "partition", "start_offset", "timestamp", "key")
_EXTENSION = r"(?:\.[^/]*)?"


@dataclass(frozen=True, slots=True)
class KeyTemplate:
    """A compiled ``file.name.template``; picklable, so it travels to Spark executors."""

    template: str
    pattern: str
    variables: tuple[str, ...]

    @classmethod
    def compile(cls, template: str, topics: Sequence[str] = ()) -> KeyTemplate:
        """Parse ``template`` with Aiven's syntax and build the anchored pattern.

        ``topics``, when the subscription names them, are the only texts ``{{topic}}`` matches:
        the ambiguity (docs/restore.md, "Ambiguous templates") then goes (``{{topic}}-{{partition}}-{{key}}`` on
        ``orders-0-eu-1-x`` is topic ``orders``, not ``orders-0-eu`` of partition 1).

        Raises:
            ConfigError: blank template, Aiven's syntax errors (same wording), an unknown
                variable or parameter, or a timestamp unit other than yyyy/MM/dd/HH.
        """
        if not template.strip():
            raise ConfigError(f"Invalid value must not be empty or not set for configuration {TEMPLATE_KEY}")
        parts: list[str] = []
        seen: list[str] = []
        for part in iter_template(template):
            if isinstance(part, str):
                parts.append(re.escape(part))
                continue
            _check_supported(part.name)
            parts.append(_variable_pattern(part.name, part.parameter, first=part.name not in seen, topics=topics))
            seen.append(part.name)
        if not seen:
            raise ConfigError(
                f"{TEMPLATE_KEY} {template!r} has no variable; use e.g. {{{{topic}}}}-{{{{partition}}}}-{{{{start_offset}}}}."
            )
        return cls(template, "".join(parts) + _EXTENSION, tuple(dict.fromkeys(seen)))

    @property
    def has_partition(self) -> bool:
        """Whether keys name the Kafka partition."""
        return "partition" in self.variables

    def parse(self, relative_key: str) -> ParsedKey | None:
        """The coordinates in ``relative_key`` (the key without the listing prefix), or None."""
        match = _compiled(self.pattern).fullmatch(relative_key)
        if match is None:
            return None
        groups = match.groupdict()
        return ParsedKey(
            topic=groups.get("topic"),
            partition=int(groups["partition"]) if groups.get("partition") is not None else None,
            offset=int(groups["start_offset"]) if groups.get("start_offset") is not None else None,
        )


_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    compiled = _CACHE.get(pattern)
    if compiled is None:
        compiled = _CACHE[pattern] = re.compile(pattern, re.ASCII | re.DOTALL)
    return compiled


def _check_supported(name: str) -> None:
    if name not in _SUPPORTED:
        supported = ", ".join(f"{{{{{n}}}}}" for n in _SUPPORTED)
        raise ConfigError(f"unsupported template variable used ({{{{{name}}}}}) in {TEMPLATE_KEY}, supported values are: {supported}")


def topic_pattern(topics: Sequence[str]) -> str:
    """What a topic name in a key may be: one of ``topics`` (longest first), or any legal name without them."""
    if not topics:
        return "[A-Za-z0-9._-]+"
    return "|".join(re.escape(topic) for topic in sorted(set(topics), key=len, reverse=True))


def _variable_pattern(
    name: str, parameter: tuple[str, str] | None, *, first: bool, topics: Sequence[str] = ()
) -> str:
    if not first and name != "timestamp":
        return f"(?P={name})"
    if name == "timestamp":
        if parameter is None:
            return "[0-9]+"
        if parameter[0] != "unit" or parameter[1] not in _UNIT_DIGITS:
            raise ConfigError(
                f"{TEMPLATE_KEY}: {{{{timestamp}}}} takes unit=yyyy, MM, dd or HH, not {parameter[0]}={parameter[1]}."
            )
        return f"[0-9]{{{_UNIT_DIGITS[parameter[1]]}}}"
    if name in _PADDED_WIDTH:
        if parameter is not None and parameter[0] != "padding":
            raise ConfigError(f"{TEMPLATE_KEY}: {{{{{name}}}}} takes only padding=true|false, not {parameter[0]}.")
        padded = parameter is not None and parameter[1].lower() == "true"
        digits = f"[0-9]{{{_PADDED_WIDTH[name]}}}" if padded else "[0-9]+"
        return f"(?P<{name}>{digits})"
    if parameter is not None:
        raise ConfigError(f"{TEMPLATE_KEY}: {{{{{name}}}}} takes no parameter.")
    return f"(?P<topic>{topic_pattern(topics)})" if name == "topic" else "(?P<key>.+)"
