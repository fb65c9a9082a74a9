"""Aiven's template syntax (``file.name.template``, ``aws.s3.prefix``), shared by sink and restore.

The sink renders keys from these templates and the restore parses keys back with them, so this is
the one reader of Aiven's ``TemplateParser`` syntax (:func:`iter_template`). What a variable means
is the caller's: the restore compiles a pattern, the sink
(:mod:`lakesink.domain.dialects.aiven.naming`) renders keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lakesink.domain.errors import ConfigError

_VARIABLE = re.compile(r"\{\{\s*(\w+)?(:?)([\w=]+)?\s*}}", re.ASCII)
_PARAMETER = re.compile(r"(\w+)?=?(\w+)?", re.ASCII)
_DEPRECATED_YEAR = re.compile(r"\{\{\s*timestamp\s*:\s*unit\s*=\s*YYYY\s*}}")


@dataclass(frozen=True, slots=True)
class TemplateVariable:
    """One ``{{…}}`` placeholder: its name, its parameter (name, value) if any, and its text."""

    name: str
    parameter: tuple[str, str] | None
    text: str


#: A literal piece of text or a variable, in template order.
TemplatePart = str | TemplateVariable


def iter_template(template: str) -> Iterator[TemplatePart]:
    """The parts of ``template`` left to right; a syntax error is raised when its variable is reached.

    Lazy on purpose: a caller that checks each variable as it comes reports the first problem
    in template order, whatever kind it is.

    Aiven's ``TemplateParser`` syntax: a variable is ``{{name}}`` or ``{{name:param=value}}``, found
    left to right with Aiven's regex (spaces only right after ``{{`` and right before ``}}``; anything
    that does not match, ``{{ timestamp : unit=yyyy }}`` or an unclosed ``{{``, is literal text); at
    most one parameter (``a=b=c`` is ``a=b``); ``{{timestamp:unit=YYYY}}`` is rewritten to ``yyyy``
    first, as Aiven's config preprocessing does; syntax errors use Aiven's exact messages.

    Raises:
        ConfigError: Aiven's ``TemplateParser`` messages (no variable name, an empty parameter,
            a parameter without name or value).
    """
    text = _DEPRECATED_YEAR.sub("{{timestamp:unit=yyyy}}", template)
    position = 0
    for match in _VARIABLE.finditer(text):
        if match.start() > position:
            yield text[position : match.start()]
        name = match.group(1)
        if not name:
            raise ConfigError(f"Variable name hasn't been set for template: {template}")
        yield TemplateVariable(name, _parameter(match, name), match.group(0))
        position = match.end()
    if position < len(text):
        yield text[position:]


def parse_template(template: str) -> tuple[TemplatePart, ...]:
    """All parts of ``template`` (see :func:`iter_template`).

    Raises:
        ConfigError: Aiven's syntax errors.
    """
    return tuple(iter_template(template))


def _parameter(match: re.Match[str], name: str) -> tuple[str, str] | None:
    colon, raw = match.group(2), match.group(3)
    if not colon:
        return None
    if not raw:
        raise ConfigError("Wrong variable with parameter definition")
    parsed = _PARAMETER.match(raw)
    key, value = (parsed.group(1), parsed.group(2)) if parsed else (None, None)
    if not key:
        raise ConfigError(f"Parameter name for variable `{name}` has not been set")
    if not value:
        raise ConfigError(f"Parameter value for variable `{name}` and parameter `{key}` has not been set")
    return key, value
