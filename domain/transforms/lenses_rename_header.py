"""Lenses' ``io.lenses.connect.smt.header.RenameHeader``: every header called ``header.name.old``
renamed to ``header.name.new``.

Lenses removes the old headers and adds them back under the new name, so the renamed headers
move to the end, in their original order, after any header already called the new name; a
record without the old header is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakesink.domain.ports import Clock
from lakesink.domain.records import Record
from lakesink.domain.transforms.options import TransformOptions

CLASS_NAME = "io.lenses.connect.smt.header.RenameHeader"
OLD_NAME = "header.name.old"
NEW_NAME = "header.name.new"


@dataclass(frozen=True, slots=True)
class RenameHeader:
    """A configured rename; build it with :meth:`from_options`."""

    old: str
    new: str
    reads_wall_clock: bool = field(default=False, init=False)
    routes: bool = field(default=False, init=False)

    @classmethod
    def from_options(cls, options: TransformOptions, clock: Clock) -> RenameHeader:
        """The rename ``options`` describe (the clock is not used).

        Raises:
            ConfigError: either name is missing or empty, or an unknown option.
        """
        options.check_known((OLD_NAME, NEW_NAME))
        return cls(options.required(OLD_NAME), options.required(NEW_NAME))

    def apply(self, record: Record) -> Record:
        """``record`` with the old headers moved to the end under the new name."""
        moved = [
            ((self.new, value), schema)
            for (name, value), schema in zip(record.headers, record.aligned_header_schemas(), strict=True)
            if name == self.old
        ]
        if not moved:
            return record
        kept = record.keep_headers(lambda name: name != self.old)
        return kept.add_headers(tuple(pair for pair, _ in moved), [schema for _, schema in moved])
