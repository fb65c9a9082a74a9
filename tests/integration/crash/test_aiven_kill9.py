"""kill -9 a sink running an Aiven S3 sink config; every offset lands once, in Aiven's files.

The config is the seed's curl example (static keys, here moto's, and ``aws.s3.endpoint``) without
its ``aws.s3.prefix`` (which would make the template only group records), with
``offset.flush.interval.ms=1000`` so each topic-partition's records are flushed (one range, one
Aiven flush) every second, string keys and schemaless JSON values, and one of two groupings:

* **changelog**: ``{{topic}}/{{partition:padding=true}}/{{start_offset:padding=true}}.jsonl.gz``,
  jsonl of ``key,value,offset,timestamp``, gzip, ``file.max.records=50``; objects are create-only;
* **latest by key**: ``latest/{{topic}}-{{partition}}-{{key}}.json`` (Aiven's key-topic-partition
  grouping), json of ``value,offset``; each object holds its key's latest record and is overwritten.

``make test`` runs the latest-by-key case only (the create-only path is test_kill9.py's too);
``make test-reliability`` runs both.

``lakesink sink`` runs continuously as a child process group while a producer feeds two topics
(20 records per topic and second over 4 partitions, keys drawn from 20). The group is SIGKILLed 3
times in ``make test`` (8 in ``make test-reliability``), at least once in each phase of
test_kill9.py (start-up; just after a data object of the run appeared, i.e. a new key or a new
ETag of an overwritten one; after a committed batch), and restarted on the same checkpoint, once
without it. Then (changelog) each partition gets a burst of ``file.max.records`` + 10 records, and a final
``--once`` run drains the topics.

The bucket is read back with boto3, gzip and json only (the index under ``.indexes/`` left out).
changelog: every produced (topic, partition, offset) is stored exactly once, with its key, value
and timestamp; each object holds at most 50 records with consecutive offsets, starting at the
offset its key names, and at least one file was cut at 50. latest by key: exactly one object
per produced (topic, partition, key), holding the record with that key's highest offset.
Reproduce a run's choices with ``LAKESINK_CRASH_SEED=<seed printed by the test>``.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from tests.conftest import unique_name
from tests.support.aiven_configs import CURL, STRINGS, s3_sink_config
from tests.support.boto_bucket import BotoBucket
from tests.support.confluent_golden import Producer, Sent
from tests.support.kill_runs import KillPlan, TrickleProducer, assert_anchored_phases_hit
from tests.support.reliability import FULL, kills, record_cell, skip_unless_killed
from tests.support.sink_process import SinkProcess

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.s3,
    pytest.mark.reliability,
    pytest.mark.timeout(600),
]

KILLS = kills(sample=3, full=8)  # one per phase in `make test`
PARTITIONS = 4  # the embedded broker's partitions per topic
PER_SECOND = 20  # records per topic and second
KEYS = 20  # distinct record keys
MAX_RECORDS = 50  # file.max.records of the changelog case
T0 = 1_704_067_200_000  # 2024-01-01T00:00:00Z; records 1 s apart, so Instant.toString has no fraction
CHANGELOG = {
    "format.output.type": "jsonl",
    "format.output.fields": "key,value,offset,timestamp",
    "format.output.fields.value.encoding": "none",
    "file.compression.type": "gzip",
    "file.name.template": "{{topic}}/{{partition:padding=true}}/{{start_offset:padding=true}}.jsonl.gz",
    "file.max.records": str(MAX_RECORDS),
}
CHANGELOG_KEY = re.compile(r"(?P<topic>[^/]+)/(?P<partition>\d{10})/(?P<start>\d{20})\.jsonl\.gz")
LATEST = {
    "format.output.type": "json",
    "format.output.fields": "value,offset",
    "format.output.fields.value.encoding": "none",
    "file.compression.type": "none",
    "file.name.template": "latest/{{topic}}-{{partition}}-{{key}}.json",
}


def _audit_changelog(bucket: BotoBucket, sent: list[Sent]) -> None:
    """Every produced offset exactly once, in files of ≤ ``MAX_RECORDS`` named by their first offset."""
    produced = {(s.topic, s.partition, s.offset): s for s in sent}
    stored: Counter[tuple[str, int, int]] = Counter()
    sizes = []
    for key in bucket.objects():
        match = CHANGELOG_KEY.fullmatch(key)
        assert match, f"not a changelog key: {key}"
        topic, partition, start = match["topic"], int(match["partition"]), int(match["start"])
        records = [json.loads(line) for line in gzip.decompress(bucket.read(key)).split(b"\n")]
        offsets = [record["offset"] for record in records]
        assert offsets == list(range(start, start + len(records))), f"{key}: offsets {offsets}"
        assert len(records) <= MAX_RECORDS, f"{key}: {len(records)} records"
        sizes.append(len(records))
        for record in records:
            origin = produced.get((topic, partition, record["offset"]))
            assert origin is not None, f"{key}: offset {record['offset']} was never produced"
            assert record == _changelog_record(origin), key
            stored[topic, partition, record["offset"]] += 1
    duplicated = sorted(position for position, count in stored.items() if count > 1)
    lost = sorted(produced.keys() - stored.keys())
    assert not duplicated and not lost, f"stored twice: {duplicated[:20]}; lost: {lost[:20]}"
    assert MAX_RECORDS in sizes, f"no file was cut by file.max.records: {sorted(sizes)}"


def _changelog_record(origin: Sent) -> dict[str, Any]:
    """The jsonl line Aiven writes for ``origin``: the timestamp as Java's ``Instant.toString``."""
    moment = datetime.fromtimestamp(origin.timestamp_ms // 1000, tz=UTC)
    return {
        "key": origin.key,
        "value": origin.value,
        "offset": origin.offset,
        "timestamp": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _audit_latest(bucket: BotoBucket, sent: list[Sent]) -> None:
    """One object per produced (topic, partition, key), holding that key's record of highest offset."""
    latest: dict[str, Sent] = {}
    for record in sent:
        name = f"latest/{record.topic}-{record.partition}-{record.key}.json"
        if name not in latest or record.offset > latest[name].offset:
            latest[name] = record
    assert sorted(bucket.objects()) == sorted(latest)
    stale = {
        name: (held, record.offset)
        for name, record in latest.items()
        if (held := json.loads(bucket.read(name))) != [{"value": record.value, "offset": record.offset}]
    }
    assert not stale, (
        f"{len(stale)} objects do not hold their key's last record (held, expected offset): {stale}"
    )


@dataclass(frozen=True, slots=True)
class Grouping:
    """One Aiven grouping under test: its settings and the audit of the bucket it leaves."""

    settings: dict[str, str]
    audit: Callable[[BotoBucket, list[Sent]], None]
    burst: int = 0
    """Records per partition fed before the final run: enough for a full file (changelog); none by
    key, where a burst would rewrite nearly every object and hide what the killed runs left."""


GROUPINGS = {
    "changelog": Grouping(CHANGELOG, _audit_changelog, burst=MAX_RECORDS + 10),
    "latest-by-key": Grouping(LATEST, _audit_latest),
}
SAMPLED = "latest-by-key"  # `make test` runs the overwritten objects (create-only ones: test_kill9.py)


@dataclass
class _Sink:
    """One grouping's sink under test: its topics and bucket, config file, kill plan and producer."""

    grouping: Grouping
    plan: KillPlan
    topics: list[str]
    bucket: BotoBucket
    config: Path
    producer: Producer
    keys: random.Random

    @classmethod
    def create(
        cls, name: str, rng: random.Random, kafka: EmbeddedKafka, moto: MotoS3, workdir: Path
    ) -> _Sink:
        """The curl example without its prefix (which would make the template only group records)."""
        grouping, plan = GROUPINGS[name], KillPlan.draw(rng, KILLS)
        topics, bucket = [unique_name("orders"), unique_name("profiles")], BotoBucket(moto.url, unique_name(name))
        base = {key: value for key, value in CURL.items() if key != "aws.s3.prefix"} | STRINGS | grouping.settings
        config = s3_sink_config(
            base,
            bootstrap=kafka.bootstrap_servers,
            endpoint=moto.url,
            bucket=bucket.name,
            topics=topics,
            **{"offset.flush.interval.ms": "1000"},
        )
        path = workdir / "aiven-to-s3.json"
        path.write_text(json.dumps({"name": config["name"], "config": config}, indent=2))
        keys = random.Random(rng.randrange(2**32))
        return cls(grouping, plan, topics, bucket, path, Producer(kafka), keys)

    @property
    def checkpoint(self) -> Path:
        return self.config.parent / "checkpoint"

    def feed(self, per_partition: int) -> int:
        """``per_partition`` records to each partition of each topic, 1 s apart, keys drawn from ``KEYS``."""
        sent = 0
        for topic in self.topics:
            first = sum(1 for s in self.producer.sent if s.topic == topic)
            rows = [
                (i % PARTITIONS, T0 + i * 1000, {"id": i, "topic": topic})
                for i in range(first, first + per_partition * PARTITIONS)
            ]
            sent += len(self.producer.send(topic, rows, key=self._key))
        return sent

    def kill_runs(self) -> list[str]:
        """Run and kill the sink as its plan says; where each kill landed."""
        return self.plan.run(self.config, self.config.parent, self.checkpoint, self._uploads)

    def _key(self, _offset: int) -> str:
        return f"user-{self.keys.randrange(KEYS):02d}"

    def _uploads(self) -> Collection[tuple[str, str]]:
        """(key, ETag) of the data objects: an upload is a new key or a new ETag of an overwritten one."""
        return self.bucket.objects().items()

    def drain(self) -> SinkProcess:
        """The grouping's burst (a full file to cut), then the final ``--once`` run."""
        if self.grouping.burst:
            self.feed(self.grouping.burst)
        return SinkProcess(
            self.config, self.config.parent / "final.log", checkpoint=self.checkpoint, once=True
        )


@pytest.mark.parametrize(
    "grouping",
    [
        pytest.param(
            name,
            marks=[]
            if FULL or name == SAMPLED
            else [pytest.mark.skip(reason="make test-reliability runs it")],
        )
        for name in GROUPINGS
    ],
)
def test_aiven_sink_killed_with_sigkill_stores_every_offset_once(
    grouping: str, kafka: EmbeddedKafka, moto: MotoS3, tmp_path: Path
) -> None:
    skip_unless_killed("peer dialect", "aiven")
    seed = int(os.environ.get("LAKESINK_CRASH_SEED", random.randrange(2**32)))
    sink = _Sink.create(grouping, random.Random(seed), kafka, moto, tmp_path)
    print(f"\nLAKESINK_CRASH_SEED={seed}; checkpoint deleted before run {sink.plan.forget_checkpoint_before}")
    trickle = TrickleProducer(lambda: sink.feed(PER_SECOND // PARTITIONS))
    trickle.start()

    started = time.monotonic()
    landed = sink.kill_runs()
    kill_phase_s = time.monotonic() - started

    trickle.stop()
    final = sink.drain()
    assert final.wait(timeout_s=180) == 0, final.tail()
    total_s = time.monotonic() - started
    print(f"{KILLS} kills in {kill_phase_s:.0f} s; {len(sink.producer.sent)} records; total {total_s:.0f} s")

    sink.grouping.audit(sink.bucket, sink.producer.sent)
    assert_anchored_phases_hit(landed)
    record_cell("kill -9", test=f"test_aiven_kill9[{grouping}]", target="Aiven S3 sink config, S3 (moto)",
                kills=KILLS, records=len(sink.producer.sent), seconds=total_s,
                outcome="every offset once in Aiven's files" if grouping == "changelog"
                else "one object per key with its latest record")
