"""The compact index: listed objects reduced to what ordering and delivery need.

Each listed :class:`~lakesink.domain.ports.ObjectInfo` becomes an :class:`IndexEntry` or is skipped
at once, so the driver never keeps listing pages. Entries are grouped by *origin* (the Kafka
partition their records came from; a plain file's directory) and sorted by the offset the key
names, so one Spark task replays one origin in order. See docs/restore.md, "Discovery and ordering".
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from lakesink.domain.restore.lenses_keys import parse_lenses_key
from lakesink.domain.restore.plan import PartitionMode, PartitionRule, RestorePlan, RestoreRoot

_DIGITS = re.compile(r"[0-9]+", re.ASCII)


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One object to restore: where it is and which origin partition, at which offset, it holds."""

    root: int
    key: str
    size: int
    topic: str
    partition: int | None
    offset: int | None
    group: str = ""
    source_topic: str = ""

    @property
    def origin(self) -> str:
        """The origin's identity, stable across runs: it keys the progress records.

        (root, topic named by the key, partition, directory of a plain file): two source topics
        restored into one target topic stay two origins, each in its own offset order.
        """
        partition = -1 if self.partition is None else self.partition
        return json.dumps([self.root, self.source_topic, partition, self.group])

    @property
    def position(self) -> tuple[int, str]:
        """Sort position inside the origin: the offset in the key, then the key itself."""
        return (-1 if self.offset is None else self.offset, self.key)


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One origin partition's objects, in the order their records must be produced."""

    origin: str
    root: int
    topic: str
    partition: int | None
    objects: tuple[IndexEntry, ...]


def classify(plan: RestorePlan, root: RestoreRoot, key: str, size: int) -> IndexEntry | None:
    """The index entry of a listed object, or None when the restore skips it."""
    if not key.startswith(root.list_prefix) or key.endswith("/") or size <= 0 or _excluded(plan, key):
        return None
    if not _extension_allowed(plan, key):
        return None
    if root.template is not None:
        parsed = root.template.parse(root.relative(key))
        if parsed is None:
            return None
    elif root.layout is not None:
        parsed = root.layout.parse(key, root.relative(key))
        if parsed is None:
            return None
    else:
        parsed = parse_lenses_key(key)
    topic = root.topic or (parsed.topic if parsed else None)
    if topic is None:
        return None
    named_topic = (parsed.topic if parsed else None) or ""
    if plan.partition_rule.mode in (PartitionMode.HIERARCHICAL, PartitionMode.REGEX):
        partition = extracted_partition(plan.partition_rule, key)
        offset = parsed.offset if parsed else None
        group = "" if partition is not None else _directory(key)
        return IndexEntry(root.number, key, size, topic, partition, offset, group, named_topic)
    if parsed is None or (parsed.partition is None and parsed.offset is None):
        return IndexEntry(root.number, key, size, topic, None, None, _directory(key), named_topic)
    return IndexEntry(root.number, key, size, topic, parsed.partition, parsed.offset, "", named_topic)


def extracted_partition(rule: PartitionRule, key: str) -> int | None:
    """Lenses' extractors: ``hierarchical`` = the parent directory as a number; ``regex`` = group 1."""
    if rule.mode == PartitionMode.HIERARCHICAL:
        parts = key.split("/")
        return int(parts[-2]) if len(parts) >= 2 and _DIGITS.fullmatch(parts[-2]) else None
    if rule.mode == PartitionMode.REGEX and rule.regex is not None:
        match = re.search(rule.regex, key)
        group = match.group(1) if match else None
        return int(group) if group is not None and _DIGITS.fullmatch(group) else None
    return None


def group_work(entries: Iterable[IndexEntry]) -> list[WorkItem]:
    """Entries grouped by origin, each group sorted by position; groups in a stable order."""
    groups: dict[str, list[IndexEntry]] = defaultdict(list)
    for entry in entries:
        groups[entry.origin].append(entry)
    items = []
    for origin in sorted(groups):
        objects = sorted(groups[origin], key=lambda e: e.position)
        first = objects[0]
        items.append(WorkItem(origin, first.root, first.topic, first.partition, tuple(objects)))
    return items


def _directory(key: str) -> str:
    return key.rpartition("/")[0]


def _excluded(plan: RestorePlan, key: str) -> bool:
    directories = key.split("/")[:-1]
    return any(directory in plan.excluded_directories for directory in directories)


def _extension_allowed(plan: RestorePlan, key: str) -> bool:
    if not plan.extension_includes and not plan.extension_excludes:
        return True
    name = key.rpartition("/")[2].lower()
    if plan.extension_includes and not name.endswith(plan.extension_includes):
        return False
    return not name.endswith(plan.extension_excludes) if plan.extension_excludes else True
