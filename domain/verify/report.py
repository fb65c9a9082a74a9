"""The verify report: one JSON document (schema ``lakesink.verify/1``, docs/verify.md) and its text form.

The JSON is what scripts read, so its shape only grows: fields are added, never renamed or
removed. The text lists at most :data:`SHOWN` findings of each kind per topic-partition; the JSON
lists every one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from lakesink.domain.verify.check import Beyond, PartitionCheck
from lakesink.domain.verify.tables import FINDINGS, TableCheck

SCHEMA = "lakesink.verify/1"
SHOWN = 20


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A key under a root of the config that its layout cannot have written."""

    bucket: str
    key: str
    reason: str


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Everything ``lakesink verify`` found.

    ``kafka_error``: why the topic's offsets are missing (None: Kafka answered). ``listed`` /
    ``opened``: objects listed and objects whose footer, header or content was read. ``tables``: each
    change table compared with its change log.
    """

    connector: str
    indexed: bool
    partitions: tuple[PartitionCheck, ...]
    mismatches: tuple[Mismatch, ...]
    kafka_error: str | None
    listed: int
    opened: int
    seconds: float
    tables: tuple[TableCheck, ...] = ()

    @property
    def clean(self) -> bool:
        """No gap, duplicate, orphan, unreadable object, layout mismatch or change table row that its
        change log does not make."""
        partitions = all(check.problems == 0 for check in self.partitions)
        return not self.mismatches and partitions and all(table.problems == 0 for table in self.tables)

    def problems(self) -> dict[str, int]:
        """How many of each kind were found: gaps, duplicates, orphans, pending, unreadable, mismatches,
        and change table rows that differ from their log."""
        return {
            **{kind: self._total(kind) for kind in _KINDS},
            "mismatches": len(self.mismatches),
            "table_rows": sum(table.problems for table in self.tables),
        }

    def to_json(self) -> str:
        """The report as one JSON document (docs/verify.md)."""
        document = {
            "schema": SCHEMA,
            "connector": self.connector,
            "clean": self.clean,
            "index": "exactly-once" if self.indexed else "none (at-least-once)",
            "kafka": {"reachable": self.kafka_error is None, "error": self.kafka_error},
            "partitions": [_partition_json(check) for check in self.partitions],
            "mismatches": [{"bucket": m.bucket, "key": m.key, "reason": m.reason} for m in self.mismatches],
            "tables": [_table_json(table) for table in self.tables],
            "totals": {
                "objects_listed": self.listed,
                "objects_opened": self.opened,
                "seconds": round(self.seconds, 3),
                **self.problems(),
            },
        }
        return json.dumps(document, indent=2)

    def to_text(self) -> str:
        """The report for a terminal."""
        lines = [
            f"lakesink verify: connector {self.connector}, index: {'exactly-once' if self.indexed else 'none (at-least-once: no committed offset to check against)'}"
        ]
        if self.kafka_error is not None:
            lines.append(f"Topic offsets not compared: {self.kafka_error}")
        for check in self.partitions:
            lines.extend(_partition_text(check))
        if self.mismatches:
            lines.append(f"layout mismatches ({len(self.mismatches)}):")
            lines.extend(f"  {m.bucket}/{m.key}: {m.reason}" for m in self.mismatches[:SHOWN])
            lines.extend(_more(self.mismatches))
        for table in self.tables:
            lines.extend(_table_text(table))
        totals = ", ".join(f"{self._total(kind)} {kind}" for kind in _KINDS if kind != "pending")
        rows = f", {self.problems()['table_rows']} change table rows wrong" if self.tables else ""
        lines.append(
            f"{'clean' if self.clean else 'PROBLEMS'}: {totals}, {len(self.mismatches)} mismatches{rows} "
            f"({self._total('pending')} pending objects, not problems); "
            f"{self.listed} objects listed, {self.opened} opened, {self.seconds:.1f} s"
        )
        return "\n".join(lines)

    def _total(self, kind: str) -> int:
        return sum(len(getattr(check, kind)) for check in self.partitions)


_KINDS = ("gaps", "duplicates", "orphans", "pending", "unreadable")


def _partition_json(check: PartitionCheck) -> dict[str, object]:
    facts = check.facts
    return {
        "topic": facts.topic,
        "partition": facts.partition,
        "bucket": facts.bucket,
        "evidence": [e.value for e in check.evidence],
        "objects": check.objects,
        "records": check.records,
        "first_stored": check.first_stored,
        "last_stored": check.last_stored,
        "committed": facts.committed,
        "topic_start": facts.topic_start,
        "topic_end": facts.topic_end,
        "lag": check.lag,
        "gaps": [{"first": first, "last": last} for first, last in check.gaps],
        "duplicates": [{"first": d.first, "last": d.last, "keys": list(d.keys)} for d in check.duplicates],
        "orphans": [_beyond_json(b) for b in check.orphans],
        "pending": [_beyond_json(b) for b in check.pending],
        "unreadable": [{"key": key, "error": error} for key, error in check.unreadable],
        "offsets_without_records": check.without_records,
    }


def _table_json(table: TableCheck) -> dict[str, object]:
    return {
        "table": table.table,
        "compared": table.error is None,
        "error": table.error,
        "rows": table.rows,
        "keys": table.keys,
        "changes": table.changes,
        "marked": [
            {"topic": topic, "partition": partition, "last_offset": last}
            for (topic, partition), last in sorted((table.marked or {}).items())
        ],
        **{kind: list(getattr(table, kind)) for kind in FINDINGS},
    }


_TABLE_SAYS = {
    "missing": "key alive in the log, no row in the table",
    "deleted": "key deleted by its newest change, still in the table",
    "unknown": "row whose key no change names",
    "differing": "row differs from its newest change",
    "repeated": "key with more than one row",
}


def _table_text(table: TableCheck) -> list[str]:
    if table.error is not None:
        return [f"change table {table.table}: not compared with its change log: {table.error}"]
    verdict = "equal to" if table.problems == 0 else f"{table.problems} keys differ from"
    lines = [
        f"change table {table.table}: {table.rows} rows, {verdict} the newest change of each key of its log "
        f"({table.keys} keys alive, {table.changes} changes up to the table's mark)"
    ]
    for kind in FINDINGS:
        lines.extend(_listed(_TABLE_SAYS[kind], getattr(table, kind)))
    return lines


def _beyond_json(found: Beyond) -> dict[str, object]:
    plan = found.plan
    return {
        "key": found.key,
        "first": found.first,
        "last": found.last,
        "plan": None if plan is None else {"start": plan.start, "last": plan.last, "owner": plan.owner},
    }


def _partition_text(check: PartitionCheck) -> list[str]:
    facts = check.facts

    def shown(value: int | None) -> str:
        return "-" if value is None else str(value)

    evidence = "; ".join(e.describes for e in check.evidence) or "no objects"
    lines = [
        f"{facts.topic}-{facts.partition} (bucket {facts.bucket}): first stored {shown(check.first_stored)}, "
        f"committed {shown(facts.committed)}, topic end {shown(facts.topic_end)}, lag {shown(check.lag)}, "
        f"{check.objects} objects, {check.records} records; {evidence}",
    ]
    lines.extend(_listed("gap", [f"offsets {a}..{b} in no object" for a, b in check.gaps]))
    if check.without_records:
        lines.append(
            f"  note: {check.without_records} offsets hold no record in Kafka (transaction markers, aborted or "
            "compacted records): not gaps"
        )
    lines.extend(
        _listed(
            "duplicate",
            [f"offsets {d.first}..{d.last} in both {d.keys[0]} and {d.keys[1]}" for d in check.duplicates],
        )
    )
    lines.extend(
        _listed("orphan", [f"{b.key} (offsets {b.first}..{b.last}, beyond the lock)" for b in check.orphans])
    )
    lines.extend(
        _listed(
            "pending",
            [
                f"{b.key} (offsets {b.first}..{b.last}; will be completed or replaced by the next run)"
                for b in check.pending
            ],
        )
    )
    lines.extend(_listed("unreadable", [f"{key}: {error}" for key, error in check.unreadable]))
    return lines


def _listed(kind: str, items: Sequence[str]) -> list[str]:
    return [f"  {kind}: {item}" for item in items[:SHOWN]] + _more(items)


def _more(items: Sequence[object]) -> list[str]:
    return [f"  ... and {len(items) - SHOWN} more (--json lists all)"] if len(items) > SHOWN else []
