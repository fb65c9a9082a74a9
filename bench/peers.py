"""lakesink ÷ each peer doing the same job (issue 34): records/s and CPU seconds per record.

A peer is compared with the lakesink scenario of the same output format. CPU is every process of
the sink's tree (JVMs included, :class:`bench.processes.CpuByRole`); the broker's and the S3
server's share is reported beside it, not in it, since every sink pays them alike.
"""

from __future__ import annotations

from bench.results import Result

PEERS: dict[str, tuple[str, ...]] = {
    "sink-json": ("quix-json", "spark-json", "aiven-jsonl", "aiven-jsonl-gzip"),
    "sink-parquet": ("quix-parquet", "spark-parquet"),
    "sink-iceberg": ("iceberg-connect",),
}
"""lakesink scenario -> the peers' scenarios of the same format. A new peer module (like the Aiven
connector's jsonl runs, bench/aiven_runs.py) adds its scenario names to the tuple of the format it writes."""


def cpu_per_record(result: Result) -> float | None:
    """CPU seconds of every process of the sink's tree per record; None without a measured run."""
    cpu = result.extra.get("cpu_seconds")
    if result.rate is None or not cpu:
        return None
    return sum(cpu.values()) / result.records


def peer_ratios(results: list[Result]) -> list[tuple[str, str, float | None, float | None]]:
    """(lakesink scenario, peer, lakesink÷peer records/s, lakesink÷peer CPU/record) for every pair
    that ran; a ratio is None when either side failed or was not measured.

    A records/s ratio above 1 and a CPU ratio below 1 favour lakesink.
    """
    by_name = {r.scenario: r for r in results}
    rows = []
    for sink, peers in PEERS.items():
        ours = by_name.get(sink)
        for peer in peers:
            theirs = by_name.get(peer)
            if ours is None or theirs is None:
                continue
            rate = ours.rate / theirs.rate if ours.rate and theirs.rate else None
            our_cpu, their_cpu = cpu_per_record(ours), cpu_per_record(theirs)
            cpu = our_cpu / their_cpu if our_cpu and their_cpu else None
            rows.append((sink, peer, rate, cpu))
    return rows


def ratio_table(results: list[Result]) -> str:
    """The ratios as text lines under the main table ("" when no pair ran)."""
    rows = peer_ratios(results)
    if not rows:
        return ""
    lines = ["lakesink ÷ peer (records/s: >1 lakesink faster; CPU s/record: <1 lakesink cheaper):"]
    for sink, peer, rate, cpu in rows:
        lines.append(f"  {sink} ÷ {peer}: records/s {_times(rate)}, CPU/record {_times(cpu)}")
    return "\n".join(lines)


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"
