"""Parsing the two Lenses key layouts (reference §2.3) back into topic, partition and offset.

* default layout (no PARTITIONBY): ``…/<topic>/<partition>/<offset>_<earliest ts>_<latest ts><suffix>.<ext>``
* custom layout (PARTITIONBY / NOPARTITION): ``…/<topic>(<partition>_<offset>)<suffix>.<ext>``

Padding is whatever the sink used: any run of digits is accepted, so LeftPad with ``0`` (the
default, 12 digits) and NoOp both parse. Right padding or a non-digit pad character cannot be
told apart from the number itself; such keys do not parse (the restore then treats them as
plain files, see :mod:`lakesink.domain.restore.index`).

The custom form is tried first: its parentheses cannot occur in a legal topic name, so a file
name of that shape is never a default-layout name. The default form needs the two parent
directories; the topic directory must be a legal Kafka topic name and the partition directory
all digits, otherwise the key is not taken for a Lenses key. (PARTITIONBY layouts always use
the custom file name, so a default-layout file name under other directories does not occur.)
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
    """The topic, partition and last offset of a key in a Lenses layout, or None."""
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
