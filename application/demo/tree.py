"""Prints a bucket's objects as a tree with sizes, like ``tree -h``, so a reader sees the layout.

Large directories are cut to their first entries plus a line counting the rest; the layout
is what the demo shows, not an inventory.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lakesink.application.demo.ports import ListedObject
from lakesink.domain.progress import human_size


@dataclass
class _Directory:
    directories: dict[str, _Directory] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)

    def size(self) -> int:
        return sum(self.files.values()) + sum(child.size() for child in self.directories.values())

    def count(self) -> int:
        return len(self.files) + sum(child.count() for child in self.directories.values())


def render_tree(root_label: str, objects: Iterable[ListedObject], *, max_entries: int = 8) -> str:
    """The objects as an indented tree under ``root_label``; at most ``max_entries`` per directory."""
    root = _Directory()
    for item in objects:
        *folders, name = item.key.split("/")
        node = root
        for folder in folders:
            node = node.directories.setdefault(folder, _Directory())
        node.files[name] = item.size
    lines = [f"{root_label}  ({root.count()} objects, {human_size(root.size())})"]
    _render(root, "", lines, max_entries)
    return "\n".join(lines)


def _render(node: _Directory, indent: str, lines: list[str], max_entries: int) -> None:
    entries: list[tuple[str, _Directory | int]] = [
        *sorted(node.directories.items()), *sorted(node.files.items())
    ]
    shown, hidden = entries[:max_entries], entries[max_entries:]
    for position, (name, entry) in enumerate(shown):
        last = position == len(shown) - 1 and not hidden
        branch, extension = ("└── ", "    ") if last else ("├── ", "│   ")
        if isinstance(entry, _Directory):
            lines.append(f"{indent}{branch}{name}/")
            _render(entry, indent + extension, lines, max_entries)
        else:
            lines.append(f"{indent}{branch}{name}  {human_size(entry)}")
    if hidden:
        count = sum(e.count() if isinstance(e, _Directory) else 1 for _n, e in hidden)
        size = sum(e.size() if isinstance(e, _Directory) else e for _n, e in hidden)
        lines.append(f"{indent}└── … {len(hidden)} more entries ({count} objects, {human_size(size)})")
