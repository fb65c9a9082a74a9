"""Listed keys sorted into the objects of a target and the keys no layout of the config explains.

A key the root's layout does not parse, naming a topic the root does not write, or (Lenses) not
ending in the statement's ``key.suffix`` and extension is a *layout mismatch*. Index, plan and
staging folders, folder markers, a table's own objects and a Confluent value object's ``.keys`` /
``.headers`` siblings are skipped; a value object whose sibling is missing is a mismatch.
See docs/verify.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lakesink.domain.restore.index import IndexEntry, classify
from lakesink.domain.verify.claims import Evidence, OffsetClaim, key_claim, read_claim, unproven_claim
from lakesink.domain.verify.report import Mismatch
from lakesink.domain.verify.targets import VerifyPlan, VerifyTarget


@dataclass(frozen=True, slots=True)
class Located:
    """A data object of a target: its topic-partition and the offset its key names."""

    target: VerifyTarget
    entry: IndexEntry

    @property
    def offset(self) -> int:
        """The offset the key names (set for every located object)."""
        assert self.entry.offset is not None
        return self.entry.offset

    @property
    def topic_partition(self) -> tuple[str, int]:
        """The topic-partition its records came from (the statement's topic, else the key's)."""
        assert self.entry.partition is not None
        return self.entry.topic, self.entry.partition

    @property
    def opened(self) -> bool:
        """Whether the object must be opened: only a one-record object is proven by its key alone."""
        return not self.target.one_record

    @property
    def reads_offsets(self) -> bool:
        """Whether the offsets are read from the envelope (files that interleave offsets, with one)."""
        return not self.target.consecutive and self.target.envelope_offsets

    def claim(self, records: int = 1, offsets: Sequence[int] | None = None) -> OffsetClaim:
        """What the object proves, given its record count (and offsets, when :attr:`reads_offsets`)."""
        if offsets is not None:
            return read_claim(self.entry.key, self.offset, offsets)
        if self.target.one_record:
            return key_claim(self.entry.key, self.offset, self.target.names, records, evidence=Evidence.KEY)
        if self.target.consecutive:
            return key_claim(
                self.entry.key, self.offset, self.target.names, records, evidence=Evidence.KEY_AND_COUNT
            )
        return unproven_claim(self.entry.key, self.offset, records)


@dataclass
class KeySorter:
    """Sorts the keys of one listing pass, one key at a time (a listing is never held whole)."""

    plan: VerifyPlan
    unexplained: list[tuple[str, str, str]]
    siblings: dict[tuple[str, str], str]
    """Each expected sibling ``(bucket, key)`` → the value object's key it belongs to."""

    @classmethod
    def of(cls, plan: VerifyPlan) -> KeySorter:
        """A sorter with nothing seen yet."""
        return cls(plan, [], {})

    def sort(self, bucket: str, key: str, size: int) -> Located | None:
        """The object a key is, or None (skipped, or kept to report as a mismatch by :meth:`mismatches`)."""
        if key.endswith("/") or any(
            part in self.plan.listing.excluded_directories for part in key.split("/")[:-1]
        ):
            return None
        if any(t.table is not None and t.root.bucket == bucket and t.table.owns(key) for t in self.plan.targets):
            return None
        reason = "matches no key layout of this config"
        for target in self.plan.targets:
            root = target.root
            if root.bucket != bucket or not key.startswith(root.list_prefix):
                continue
            entry = classify(self.plan.listing, root, key, max(size, 1))
            if entry is None or entry.partition is None or entry.offset is None:
                continue
            if root.topic is not None and entry.source_topic not in ("", root.stored_topic(root.topic)):
                reason = f"names topic {entry.source_topic}, which this config does not write there"
                continue
            if target.file_ending is not None and not key.endswith(target.file_ending):
                reason = f"does not end with {target.file_ending} as the statement's files do"
                continue
            if size == 0:
                reason = "is empty: the sink never writes an empty object"
                break
            self.siblings.update(((bucket, sibling), key) for _, sibling in root.companions(key))
            return Located(target, entry)
        self.unexplained.append((bucket, key, reason))
        return None

    def mismatches(self) -> tuple[Mismatch, ...]:
        """The unexplained keys, once the whole listing was sorted (siblings are known by then), and
        every value object whose ``.keys`` / ``.headers`` sibling is missing (the restore refuses it)."""
        stray = tuple(
            Mismatch(bucket, key, reason)
            for bucket, key, reason in self.unexplained
            if (bucket, key) not in self.siblings
        )
        seen = {(bucket, key) for bucket, key, _ in self.unexplained}
        orphaned = tuple(
            Mismatch(bucket, value, f"its sibling {sibling} is missing: the restore refuses the object")
            for (bucket, sibling), value in sorted(self.siblings.items())
            if (bucket, sibling) not in seen
        )
        return stray + orphaned


def listing_roots(plan: VerifyPlan) -> Iterable[tuple[str, str, int]]:
    """``(bucket, prefix, page size)`` to list: each root once, a prefix inside another one's skipped."""
    roots = sorted({(t.root.bucket, t.root.list_prefix, t.root.page_size) for t in plan.targets})
    kept: list[tuple[str, str, int]] = []
    for bucket, prefix, page in roots:
        if not any(b == bucket and prefix.startswith(p) for b, p, _ in kept):
            kept.append((bucket, prefix, page))
    return kept
