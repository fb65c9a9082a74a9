"""What a key of a config does not do here, in one line: ``config validate`` and ``kcql explain``
print it beside the key.

Why: a key accepted without effect (a Kafka Connect framework key, a tuning knob of another
connector's Java code, a Lenses key kept for compatibility) is easy to mistake for one that
works; each dialect's key table already says why, this module only asks the right table.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.backend_parsing import normal_key, prefix_of
from lakesink.domain.config.backends import BACKEND_PREFIXES
from lakesink.domain.config.catalog import find_spec
from lakesink.domain.config.config_role import lenses_role
from lakesink.domain.config.framework_keys import framework_note
from lakesink.domain.config.keyspec import Kind
from lakesink.domain.dialects.aiven.source_config import NO_EFFECT as AIVEN_SOURCE_NO_EFFECT
from lakesink.domain.dialects.aiven.source_config import is_aiven_source_config
from lakesink.domain.dialects.registry import sink_dialect


def setting_note(config: Mapping[str, str], key: str) -> str | None:
    """Why ``key`` of ``config`` has no effect (or only its default is accepted), or None."""
    dialect = sink_dialect(config)
    if dialect is not None:
        return framework_note(key) or dialect.keys.note(key)
    if is_aiven_source_config(config):
        if key in AIVEN_SOURCE_NO_EFFECT:
            return "accepted without effect in lakesink (docs/restore.md)"
        return framework_note(key, "source")
    return framework_note(key, lenses_role(config)) or _lenses_note(config, key)


def _lenses_note(config: Mapping[str, str], key: str) -> str | None:
    prefixes = {prefix for prefix in map(prefix_of, config) if prefix is not None}
    prefix = prefixes.pop() if len(prefixes) == 1 else "connect.s3"
    spec = find_spec(normal_key(key), prefix=prefix, backend=BACKEND_PREFIXES[prefix])
    if spec is None:
        return None
    if spec.kind is Kind.IGNORED and key != "connector.class":  # it picks the backend and is checked: an effect
        return f"accepted for Kafka Connect compatibility: {spec.doc}"
    if spec.kind is Kind.NOT_YET:
        return f"only its default {spec.default!r} is accepted: {spec.doc}"
    return None
