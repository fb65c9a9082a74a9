"""Connect's ``RegexRouter`` and ``Filter``, and the Java regular expressions they (and
``TopicNameMatches``) are configured with.

Connect compiles ``java.util.regex`` patterns and expands ``Matcher`` replacements (``$1``,
``${name}``, ``\\$`` for a dollar). Python's ``re`` shares the syntax users write in topic
patterns; named groups are translated (``(?<name>…)``), and what ``re`` cannot compile is a
config error naming the key.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms.chain import TransformFactory
from lakesink.domain.transforms.options import TransformOptions

_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<(?=[A-Za-z])")


def java_regex(text: str, key: str) -> re.Pattern[str]:
    """``text`` compiled as a Java pattern would be.

    Raises:
        ConfigError: the pattern does not compile (names ``key``).
    """
    try:
        return re.compile(_NAMED_GROUP.sub("(?P<", text).replace(r"\z", r"\Z"))
    except re.error as error:
        raise ConfigError(f"Invalid value {text!r} for {key}: invalid regex: {error}.") from None


def java_replacement(replacement: str, pattern: re.Pattern[str], key: str) -> tuple[str | int, ...]:
    """A ``Matcher.replaceFirst`` replacement as literal texts and group references (numbers or names).

    ``$n`` takes as many digits as still name a group, ``${name}`` a named group, and a backslash
    makes the next character literal.

    Raises:
        ConfigError: a dangling ``\\`` or ``$``, or a reference to a group the pattern does not have.
    """
    parts: list[str | int] = []
    literal = ""
    pos = 0
    while pos < len(replacement):
        char = replacement[pos]
        if char == "\\":
            if pos + 1 >= len(replacement):
                raise ConfigError(f"Invalid value for {key}: character to be escaped is missing.")
            literal += replacement[pos + 1]
            pos += 2
            continue
        if char != "$":
            literal += char
            pos += 1
            continue
        if literal:
            parts.append(literal)
            literal = ""
        pos += 1
        if replacement[pos : pos + 1] == "{":
            end = replacement.find("}", pos)
            name = replacement[pos + 1 : end] if end > 0 else ""
            if not name or name not in pattern.groupindex:
                raise ConfigError(f"Invalid value for {key}: no group with name {{{name}}}.")
            parts.append(pattern.groupindex[name])
            pos = end + 1
            continue
        if pos >= len(replacement) or not replacement[pos].isdigit():
            raise ConfigError(f"Invalid value for {key}: illegal group reference.")
        group = int(replacement[pos])
        if group > pattern.groups:
            raise ConfigError(f"Invalid value for {key}: no group {group}.")
        pos += 1
        while pos < len(replacement) and replacement[pos].isdigit():
            longer = group * 10 + int(replacement[pos])
            if longer > pattern.groups:
                break
            group, pos = longer, pos + 1
        parts.append(group)
    if literal:
        parts.append(literal)
    return tuple(parts)


@dataclass(frozen=True)
class RegexRouter:
    """Renames a topic the regex matches entirely: its first match is replaced by the replacement."""

    regex: re.Pattern[str]
    replacement: tuple[str | int, ...]
    reads_wall_clock = False
    routes = True

    def apply(self, record: Record) -> Record:
        if self.regex.fullmatch(record.topic) is None:
            return record
        match = self.regex.search(record.topic)
        assert match is not None  # a full match implies a first match
        text = "".join(
            part if isinstance(part, str) else match.group(part) or "" for part in self.replacement
        )
        topic = record.topic[: match.start()] + text + record.topic[match.end() :]
        return dataclasses.replace(record, topic=topic)


def regex_router(options: TransformOptions, clock: Clock) -> RegexRouter:
    """``RegexRouter`` from its options."""
    options.check_known(("regex", "replacement"))
    for name in ("regex", "replacement"):
        if not options.is_set(name):
            raise ConfigError(f"{options.key(name)} is required by {options.class_name}.")
    regex = java_regex(options.text("regex") or "", options.key("regex"))
    return RegexRouter(
        regex, java_replacement(options.text("replacement") or "", regex, options.key("replacement"))
    )


@dataclass(frozen=True)
class Filter:
    """Drops every record it applies to (guard it with a predicate to drop some)."""

    reads_wall_clock = False
    routes = False

    def apply(self, record: Record) -> None:
        return None


def filter_records(options: TransformOptions, clock: Clock) -> Filter:
    """``Filter`` (it has no options)."""
    options.check_known(())
    return Filter()


TRANSFORMS: dict[str, TransformFactory] = {
    "org.apache.kafka.connect.transforms.RegexRouter": regex_router,
    "org.apache.kafka.connect.transforms.Filter": filter_records,
}
"""The registrations of this module, merged into the catalog."""
