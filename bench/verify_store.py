"""``python -m bench.verify_store``: how long ``lakesink verify`` takes over a bucket of N objects (default 100,000).

Synthesises what a Lenses sink with the default layout leaves (``out/<topic>/<p>/<last>_<ts>_<ts>.<ext>``
objects of ``--records`` records each, consecutive offsets, one master lock per partition at the
last offset) in the chosen store, then times, in this process:

* the **listing floor**: every page of the data prefix listed through the store port, nothing else;
* **verify**: :func:`lakesink.application.verify.run_verify`, the command's use case (Kafka not
  asked), which lists, reads the index, opens the objects its keys do not prove and checks.

Every object of a run holds the same bytes (a Parquet footer or JSON lines of ``--records``
records), so the set-up is quick; verify does not know that and opens each one. BYTES objects
hold one record each and are proven by their keys: nothing is opened (the floor plus the checks).
``--store s3`` uploads to a ``moto_server`` child process on 127.0.0.1 (killed at the end).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from lakesink.adapters.storage import open_store
from lakesink.adapters.verify.contents import envelope_offsets, record_count
from lakesink.application.verify import KafkaView, ObjectReaders, run_verify
from lakesink.domain.commit.lock_keys import master_lock_key
from lakesink.domain.commit.locks import IndexLock, encode_lock
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from lakesink.domain.statement_plan import plan_sink
from lakesink.domain.verify.targets import lenses_targets, verify_plan

BUCKET = "verify-bench"
TOPIC = "orders"


def _body(fmt: str, records: int) -> bytes:
    if fmt == "PARQUET":
        out = io.BytesIO()
        pq.write_table(pa.table({"id": list(range(records)), "v": ["x" * 100] * records}), out)
        return out.getvalue()
    if fmt == "BYTES":
        return b"x" * 100
    return b"".join(json.dumps({"id": i, "v": "x" * 100}).encode() + b"\n" for i in range(records))


def _props(store: str, fmt: str, where: str) -> dict[str, str]:
    flush = " PROPERTIES('flush.count'=1)" if fmt == "BYTES" else ""
    kcql = f"INSERT INTO {BUCKET}:out SELECT * FROM {TOPIC} STOREAS `{fmt}`{flush}"
    base = {"name": "bench", "topics": TOPIC, "bootstrap.servers": "127.0.0.1:9"}
    if store == "local":
        return {**base, "connect.local.root": where, "connect.local.kcql": kcql}
    if store == "memory":
        return {**base, "connect.memory.kcql": kcql}
    return {
        **base,
        "connect.s3.kcql": kcql,
        "connect.s3.aws.auth.mode": "Credentials",
        "connect.s3.aws.access.key": "testing",
        "connect.s3.aws.secret.key": "testing",
        "connect.s3.aws.region": "us-east-1",
        "connect.s3.custom.endpoint": where,
        "connect.s3.vhost.bucket": "false",
        "connect.s3.pool.max.connections": "64",
    }


def _fill(
    store: ObjectStore,
    fmt: str,
    objects: int,
    partitions: int,
    records: int,
    put: Callable[[str, bytes], None],
) -> None:
    body = _body(fmt, 1 if fmt == "BYTES" else records)
    per_file = 1 if fmt == "BYTES" else records
    extension = fmt.lower()
    keys = []
    for number in range(objects):
        partition, index = number % partitions, number // partitions
        last = (index + 1) * per_file - 1
        keys.append(f"out/{TOPIC}/{partition}/{last:012d}_0_0.{extension}")
    with ThreadPoolExecutor(32) as pool:
        list(pool.map(lambda key: put(key, body), keys))
    per_partition = -(-objects // partitions)
    for partition in range(partitions):
        count = (
            per_partition
            if partition < objects % partitions or objects % partitions == 0
            else per_partition - 1
        )
        lock = IndexLock("bench", count * per_file - 1)
        put(master_lock_key(".indexes", "bench", TOPIC, partition), encode_lock(lock))


class _Distant:
    """A store whose reads wait ``delay`` seconds first, as a remote store's GET does."""

    def __init__(self, store: ObjectStore, delay: float) -> None:
        self._store, self._delay = store, delay

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get(self, bucket: str, key: str) -> Any:
        time.sleep(self._delay)
        return self._store.get(bucket, key)

    def download_file(self, bucket: str, key: str, path: Path) -> Any:
        time.sleep(self._delay)
        return self._store.download_file(bucket, key, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.verify_store", description=__doc__.split("\n")[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--records", type=int, default=10, help="records per object (BYTES: always 1)")
    parser.add_argument("--format", default="PARQUET", choices=["PARQUET", "JSON", "BYTES"])
    parser.add_argument("--store", default="local", choices=["local", "memory", "s3"])
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        help="added to every read of verify (a remote store's round trip)",
    )
    args = parser.parse_args(argv)
    moto: subprocess.Popen[bytes] | None = None
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as scratch:
        where = scratch
        try:
            if args.store == "s3":
                from bench.services import free_port

                port = free_port()
                moto = subprocess.Popen(
                    [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                time.sleep(2)
                where = f"http://127.0.0.1:{port}"
            elif args.store == "local":
                (Path(scratch) / BUCKET).mkdir()
            settings = ConnectorSettings.from_properties(_props(args.store, args.format, where), role="sink")
            store = open_store(settings.backend, settings.storage)
            if args.store == "s3":
                import boto3

                boto3.client(
                    "s3", endpoint_url=where, aws_access_key_id="testing", aws_secret_access_key="testing",
                    region_name="us-east-1",
                ).create_bucket(Bucket=BUCKET)  # fmt: skip
            elif args.store == "memory":
                store.create_bucket(BUCKET)  # type: ignore[attr-defined]
            started = time.monotonic()
            _fill(
                store,
                args.format,
                args.objects,
                args.partitions,
                args.records,
                lambda k, d: store.put(BUCKET, k, d),
            )
            filled = time.monotonic() - started

            started = time.monotonic()
            listed = sum(len(page.objects) for page in store.list_pages(BUCKET, "out/"))
            floor = time.monotonic() - started

            plan = verify_plan(settings, lenses_targets(plan_sink(settings)))
            verified = _Distant(store, args.latency_ms / 1000) if args.latency_ms else store
            started = time.monotonic()
            report = run_verify(
                plan, verified, ObjectReaders(record_count, envelope_offsets), KafkaView(error="not asked")
            )
            seconds = time.monotonic() - started
        finally:
            if moto is not None:
                moto.terminate()
                moto.wait(timeout=10)
    problems = sum(check.problems for check in report.partitions) + len(report.mismatches)
    print(
        f"store={args.store} (+{args.latency_ms:g} ms a read) format={args.format} objects={args.objects} records/object="
        f"{1 if args.format == 'BYTES' else args.records} (set-up {filled:.1f} s)\n"
        f"  listing floor: {listed} keys in {floor:.2f} s ({listed / floor:,.0f} keys/s)\n"
        f"  verify: {report.listed} listed, {report.opened} opened, {seconds:.2f} s "
        f"({report.listed / seconds:,.0f} objects/s), clean={report.clean}, problems={problems}"
    )
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
