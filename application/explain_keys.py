"""A Confluent or Aiven config's own keys as ``kcql explain`` prints them, with what each does not do.

Why: the dialect configs are parsed into lakesink's own fields (``topics_regex``,
``key_converter.settings...``), names a user never wrote; explain leads with the keys as the file
names them, secrets and provided values masked, each key that has no effect here noted
(:func:`~lakesink.domain.config.setting_notes.setting_note`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from lakesink.domain.config.secret import MASK
from lakesink.domain.config.secret_keys import holds_secret
from lakesink.domain.config.setting_notes import setting_note


def own_keys(config: Mapping[str, str], provided: Collection[str]) -> dict[str, dict[str, str]]:
    """``{key: {"value": …, "note": …}}`` in the file's order; a note only where the key has no effect."""
    shown: dict[str, dict[str, str]] = {}
    for key, value in config.items():
        entry = {"value": MASK if key in provided or holds_secret(key) else value}
        note = setting_note(config, key)
        shown[key] = {**entry, "note": note} if note else entry
    return shown


def own_key_lines(config: Mapping[str, str], provided: Collection[str]) -> list[str]:
    """The text lines: ``  key = value`` and, under a key without effect, its note."""
    lines = []
    for key, entry in own_keys(config, provided).items():
        lines.append(f"  {key} = {entry['value']}")
        if "note" in entry:
            lines.append(f"      {entry['note']}")
    return lines
