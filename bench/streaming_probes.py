"""What the streaming scenario watches while a sink runs: consumer lag and freshness.

**Lag** is what an operator can compute from outside the sink: the topic's high watermarks minus
the sink's committed positions. lakesink's committed positions are scraped, as a Prometheus
server would, from the endpoint of ``lakesink sink --metrics-port N``
(``http://127.0.0.1:N/metrics``): its ``lakesink_committed_offset`` gauge is the last offset the
store holds per topic-partition, so the next position is that value + 1, and a partition without
a series has nothing committed (docs/operations.md, Metrics). :class:`LakesinkEndpoint` does the
scraping; :func:`locks_committed` reads the same positions from the ``committedOffset`` of each
topic-partition's master lock in the store
(``.indexes/<connector>/.locks/Topic(<topic>)/<partition>.lock``, the Lenses index:
docs/commit-model.md), only to cross-check the endpoint at the end of a step. Quix's committed
positions are its consumer group's committed offsets (it commits after its S3FileSink flushed).

Tansu answers ListOffsets(latest) with the base offset of the last batch + 1, so during a step a
high watermark is short by at most the newest batch of each partition (a few hundred records at
``linger.ms=5``); the producer ends every step with single-record batches, which make it exact.

**Freshness**: :class:`FreshnessProbe` lists the bucket every second; a new object's records are
"visible" at the listing that first showed it (so up to one second late). Their produce times
(``created_at``, stamped by :mod:`bench.streaming_producer`) come from the object itself: a
Parquet object's ``created_at`` column is read whole; a JSON-lines object (tens of MB at high
rates: reading every byte back would load the S3 server and the cores the sinks need) is read at
its first and last 64 KiB only, its record count estimated from its size and the mean line
length, and its records' produce times spread evenly between the first and the last one
(:func:`bench.streaming_metrics.interpolated_stamps`: one partition's consecutive records,
produced at a fixed rate).
"""

from __future__ import annotations

import http.client
import io
import json
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow.parquet as pq
from confluent_kafka import Consumer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

from bench.spark_job_runs import METADATA as SPARK_LOG
from bench.streaming_metrics import estimated_lines, freshness_ms, interpolated_stamps, json_stamps
from bench.verify import INDEX_MARKER
from lakesink.adapters.demo.s3 import S3Endpoint
from lakesink.domain.commit.lock_keys import master_lock_key

INDEXES = ".indexes"
EDGE_BYTES = 65_536
POLL_S = 1.0
COMMITTED_GAUGE = "lakesink_committed_offset"
SCRAPE_TIMEOUT_S = 5.0
"""Per scrape: the driver's HTTP thread answers in milliseconds, unless the cores are saturated."""
SCRAPE_ATTEMPTS = 3
SCRAPE_RETRY_S = 0.2

Committed = Callable[[], dict[int, int]]
"""Next offset to consume per partition, as durably committed by the sink (0: nothing yet)."""


def committed_positions(exposition: str, connector: str, topic: str, partitions: int) -> dict[int, int]:
    """Next offset per partition from a Prometheus exposition of lakesink's metrics.

    The gauge holds the last committed offset, hence + 1; a partition without a series has had
    nothing committed (the gauge is set by the first batch that commits it), hence 0.
    """
    positions = dict.fromkeys(range(partitions), 0)
    for family in text_string_to_metric_families(exposition):
        if family.name != COMMITTED_GAUGE:
            continue
        for sample in family.samples:
            labels = sample.labels
            partition = int(labels["partition"])
            if labels["connector"] == connector and labels["topic"] == topic and partition in positions:
                positions[partition] = int(sample.value) + 1
    return positions


def lakesink_committed(url: str, connector: str, topic: str, partitions: int) -> dict[int, int]:
    """One scrape of lakesink's metrics endpoint (``url`` ends in ``/metrics``), as committed positions.

    Raises:
        OSError: the endpoint did not answer (not serving yet, or too slow).
        http.client.HTTPException: the answer was cut short.
    """
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_S) as response:
        return committed_positions(response.read().decode(), connector, topic, partitions)


class EndpointSilent(RuntimeError):
    """lakesink's metrics endpoint, which answered before, did not answer a whole sample's tries."""


class LakesinkEndpoint:
    """lakesink's committed positions, scraped from its metrics endpoint once per call (a :data:`Committed`).

    Until the endpoint first answers, a failed scrape counts as nothing committed: the sink serves
    its metrics before its run starts, so it cannot have committed yet; and it can only delay the
    warm-up, whose end needs every record committed, i.e. an answer. After that, a failed scrape
    is tried again within the sample and then fails the step: reading it as 0 would show a lag
    spike that never happened, and skipping it would hide a sink too busy to answer.
    """

    def __init__(self, url: str, connector: str, topic: str, partitions: int) -> None:
        self._url, self._connector, self._topic, self._partitions = url, connector, topic, partitions
        self._answered = False

    def __call__(self) -> dict[int, int]:
        tries = SCRAPE_ATTEMPTS if self._answered else 1
        for attempt in range(1, tries + 1):
            try:
                positions = lakesink_committed(self._url, self._connector, self._topic, self._partitions)
            except (OSError, http.client.HTTPException) as error:
                failure = error
                if attempt < tries:
                    time.sleep(SCRAPE_RETRY_S)
            else:
                self._answered = True
                return positions
        if not self._answered:
            return dict.fromkeys(range(self._partitions), 0)
        raise EndpointSilent(f"{self._url} did not answer {tries} scrapes in a row: {failure}") from failure


def locks_committed(client: Any, bucket: str, connector: str, topic: str, partitions: int) -> dict[int, int]:
    """lakesink's committed positions read from its master locks' ``committedOffset``: the
    cross-check of :class:`LakesinkEndpoint` at the end of a step (the store is the truth the
    endpoint reports)."""
    positions = {}
    for partition in range(partitions):
        key = master_lock_key(INDEXES, connector, topic, partition)
        try:
            body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
        except client.exceptions.NoSuchKey:
            positions[partition] = 0
            continue
        committed = json.loads(body).get("committedOffset")
        positions[partition] = 0 if committed is None else committed + 1
    return positions


def group_committed(consumer: Consumer, topic: str, partitions: int) -> dict[int, int]:
    """A consumer group's committed offsets (Quix commits after its sink flushed); 0 when none."""
    offsets = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
    return {tp.partition: max(0, tp.offset) for tp in offsets}


class Watermarks:
    """High watermarks of a topic's partitions, asked each time (no cache)."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-watermarks",
                                   "enable.auto.commit": False})
        self._topic, self._partitions = topic, partitions

    def high(self) -> dict[int, int]:
        return {p: self._consumer.get_watermark_offsets(TopicPartition(self._topic, p), timeout=10, cached=False)[1]
                for p in range(self._partitions)}

    def close(self) -> None:
        self._consumer.close()


def lag_of(high: dict[int, int], committed: dict[int, int]) -> int:
    """Records produced but not yet committed, over all partitions."""
    return sum(max(0, offset - committed.get(partition, 0)) for partition, offset in high.items())


class PollingProbe(threading.Thread):
    """Polls every second until :meth:`finish`: each :meth:`_poll` finds what is new in the store (or table) and
    reads its records' produce times into ``freshness``; its errors are reported with the step, never fatal to
    the run."""

    def __init__(self, name: str) -> None:
        super().__init__(daemon=True, name=name)
        self._halt = threading.Event()
        self.freshness: list[np.ndarray] = []
        self.records = 0
        self.objects = 0
        self.errors: list[str] = []

    def run(self) -> None:
        while not self._halt.is_set():
            self.poll()
            self._halt.wait(POLL_S)

    def poll(self) -> None:
        try:
            self._poll()
        except Exception as error:  # noqa: BLE001 - reported with the step, never fatal to the run
            self.errors.append(f"{type(error).__name__}: {error}")

    def _poll(self) -> None:
        raise NotImplementedError

    def holds(self, produced: int) -> bool:
        """Whether a reader sees all ``produced`` records (the step drains until it does): yes once the sink
        committed them, unless a table commits after the offsets (:class:`bench.table_probe.TableProbe`)."""
        return True

    def finish(self) -> np.ndarray:
        """Stop polling after one last poll; every record's freshness (ms) so far."""
        self._halt.set()
        self.join(timeout=30)
        self.poll()
        return np.concatenate(self.freshness) if self.freshness else np.zeros(0)


class FreshnessProbe(PollingProbe):
    """Lists ``bucket/prefix`` every second; reads each new object's produce times (see the module)."""

    def __init__(self, endpoint: S3Endpoint, bucket: str, prefix: str) -> None:
        super().__init__("freshness")
        self._client = endpoint.client()
        self._bucket, self._prefix = bucket, prefix
        self._known: set[str] = set()

    def _listing(self) -> dict[str, int]:
        found = {}
        for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self._bucket, Prefix=self._prefix):
            for item in page.get("Contents", []):
                if INDEX_MARKER not in item["Key"] and SPARK_LOG not in item["Key"]:
                    found[item["Key"]] = item["Size"]
        return found

    def ignore_existing(self) -> None:
        """Objects already in the bucket (the warm-up's) are not the step's."""
        self._known.update(self._listing())

    def _poll(self) -> None:
        listing = self._listing()
        seen_ms = time.time() * 1000
        for key, size in listing.items():
            if key not in self._known:
                self._known.add(key)
                self._read(key, size, seen_ms)

    def _get(self, key: str, byte_range: str | None = None) -> bytes:
        extra = {"Range": byte_range} if byte_range else {}
        return self._client.get_object(Bucket=self._bucket, Key=key, **extra)["Body"].read()

    def _read(self, key: str, size: int, seen_ms: float) -> None:
        if key.endswith(".parquet"):
            column = pq.read_table(io.BytesIO(self._get(key)), columns=["created_at"]).column("created_at")
            produced = column.to_numpy()
        else:
            head = self._get(key, f"bytes=0-{EDGE_BYTES - 1}") if size > EDGE_BYTES else self._get(key)
            if size <= 2 * EDGE_BYTES:
                body = head if size <= EDGE_BYTES else self._get(key)
                produced = np.asarray(json_stamps(body), dtype=float)
            else:
                tail = self._get(key, f"bytes=-{EDGE_BYTES}")
                first, last = json_stamps(head)[0], json_stamps(tail)[-1]
                produced = interpolated_stamps(first, last, estimated_lines(size, head))
        self.freshness.append(freshness_ms(seen_ms, produced))
        self.records += len(produced)
        self.objects += 1
