"""Checks every key of a config against the catalog before any value is parsed.

Lenses (and Kafka Connect) silently ignore keys they do not know, so a typo quietly falls back
to a default. lakesink rejects unknown keys with a "did you mean" hint and reports deprecated
Lenses names the way Lenses does. Keys that are harmless (Kafka Connect's framework keys
included) are accepted.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping

from lakesink.domain.config.catalog import find_spec, known_keys
from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.keyspec import KeySpec, Kind, ValueType
from lakesink.domain.config.secret import MASK
from lakesink.domain.errors import ConfigError

_OTHER_ROLE = {"sink": "the restore (source)", "source": "the sink"}


def check_keys(
    props: Mapping[str, str], *, prefix: str, backend: str, role: str, hidden: Collection[str] = frozenset()
) -> None:
    """Raise ConfigError for any deprecated, unsupported, misplaced or unknown key.

    Args:
        props: the config with prefixed keys already lower-cased.
        prefix: the backend prefix in use (``connect.s3``).
        backend: the backend name (``s3``).
        role: ``sink`` or ``source``.
        hidden: keys whose values came from a config provider (masked in messages).
    """
    specs = {key: find_spec(key, prefix=prefix, backend=backend) for key in props}
    _reject_deprecated(specs, prefix)
    problems: list[str] = []
    for key, spec in specs.items():
        if spec is None:
            problems.append(_unknown(key, prefix=prefix, backend=backend))
        elif spec.kind is Kind.NOT_YET and not _is_default(spec, props[key]):
            problems.append(
                f"{key}={MASK if key in hidden else props[key].strip()} is not supported yet: lakesink does not implement it, so only "
                f"its default {spec.default} is accepted ({spec.doc})"
            )
        elif not spec.scope.allows(role) and framework_no_effect(key, role) is None:
            problems.append(f"{key} only applies to {_OTHER_ROLE[role]}, not to a {role} config.")
    if len(problems) == 1:
        raise ConfigError(f"Invalid connector config: {problems[0]}")
    if problems:
        raise ConfigError("Invalid connector config:\n  " + "\n  ".join(sorted(problems)))


def _is_default(spec: KeySpec, raw: str) -> bool:
    """Whether ``raw`` spells the key's default (numbers by value, words case-insensitively).

    An empty value means "not set", as :class:`~lakesink.domain.config.reader.PropertyReader`
    reads it, so it is the default too.
    """
    text, default = raw.strip(), spec.default
    if not text:
        return True
    if default is None:
        return False
    if spec.type in (ValueType.INT, ValueType.LONG, ValueType.DOUBLE):
        try:
            return float(text) == float(default)
        except ValueError:
            return False
    return text.lower() == default.lower()


def _reject_deprecated(specs: Mapping[str, KeySpec | None], prefix: str) -> None:
    """Lenses' own message, so users searching for it find the migration advice."""
    deprecated = [
        (key, spec) for key, spec in specs.items() if spec is not None and spec.kind is Kind.DEPRECATED
    ]
    if not deprecated:
        return
    names = ", ".join(f"`{key}`" for key, _ in deprecated)
    changes = " ".join(
        f"Change `{key}` to `{spec.replacement if not spec.prefixed else f'{prefix}.{spec.replacement}'}`."
        for key, spec in deprecated
    )
    raise ConfigError(
        f"The following properties have been deprecated: {names}. "
        f"Please change to using the keys prefixed by `{prefix}`. {changes}"
    )


def _unknown(key: str, *, prefix: str, backend: str) -> str:
    return f"Unknown setting {key}{did_you_mean(key, known_keys(prefix=prefix, backend=backend), cutoff=0.6)}"


def did_you_mean(key: str, known: Iterable[str], *, cutoff: float) -> str:
    """`` (did you mean <closest known key>?)`` for an unknown key, or "" when none is close."""
    matches = difflib.get_close_matches(key, list(known), n=1, cutoff=cutoff)
    return f" (did you mean {matches[0]}?)" if matches else ""
