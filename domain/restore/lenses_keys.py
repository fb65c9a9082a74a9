"""Parsing the two Lenses key layouts back into topic, partition and offset.

Default ``…/<topic>/<partition>/<offset>_<earliest ts>_<latest ts><suffix>.<ext>``; custom
``…/<topic>(<partition>_<offset>)<suffix>.<ext>``. A key that does not parse is read as a plain
file (:mod:`lakesink.domain.restore.index`). See docs/restore.md, "Layouts parsed".
"""

from __future__ import annotations

import re

from lakesink.domain.restore.parsed_key import ParsedKey

_TOPIC = r"[A-Za-z0-9._-]{1,249}"
_CUSTOM = re.compile(
    rf"(?P<topic>{_TOPIC})\((?P<partition>[0-9]+)_(?P<offset>[0-9]+)\)[^/]*\.[^./]+", re.ASCII
)
_DEFAULT_FILE = re.compile(r"(?P<offset>[0-9]+)_-?[0-9]+_-?[0-9]+[^/]*\.[^./]+", re.ASCII)
_TOPIC_DIR = re.compile(_TOPIC, re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def parse_lenses_key(key: str) -> ParsedKey | None:
    """The topic, partition and last offset of a key in a Lenses layout, or None.

    Any run of digits is accepted, so LeftPad with ``0`` (the default, 12 digits) and NoOp both
    parse; right padding or a non-digit pad character cannot be told from the number, so such keys
    do not parse (the restore reads them as plain files). The custom form is tried first: its
    parentheses cannot occur in a legal topic name. The default form needs the two parent
    directories: a legal Kafka topic name and an all-digit partition.
    """
    directories, _, name = key.rpartition("/")
    custom = _CUSTOM.fullmatch(name)
    if custom is not None:
        return ParsedKey(custom["topic"], int(custom["partition"]), int(custom["offset"]))
    default = _DEFAULT_FILE.fullmatch(name)
    if default is None:
        return None
    parents = directories.split("/")
    if len(parents) < 2:
        return None
    topic, partition = parents[-2], parents[-1]
    if not _TOPIC_DIR.fullmatch(topic) or topic in (".", "..") or not _DIGITS.fullmatch(partition):
        return None
    return ParsedKey(topic, int(partition), int(default["offset"]))
