"""``python -m bench.streaming_producer``: order events at a fixed rate for a fixed time, in its own process.

The events are the batch scenarios' (:func:`bench.events.order_events`: same fields, sizes, key
and headers), except that ``created_at`` holds the **produce time** in epoch milliseconds (the
record timestamp too): what the freshness probe reads back from the stored objects. The value
keeps its size (13 digits either way) and its schema.

Pacing: every few milliseconds the producer sends what is due (``rate × elapsed`` minus what was
sent), round-robin over the partitions; ``--rate 0`` sends as fast as the client can. At the end
it flushes and writes one single-record batch per partition (Tansu's high watermark is the base
offset of the last batch + 1, see :mod:`bench.kafka_io`: a one-record last batch makes it exact).
Prints ``{"records": n, "seconds": s, "started_at": t0, "ended_at": t1, "cpu_seconds": c,
"by_partition": [...]}`` on stdout (epoch seconds of the paced part; records include the closing ones).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from confluent_kafka import Producer

from bench.events import order_events

POOL = 20_000
"""Distinct events cycled through (their bytes are built once; only ``created_at`` changes)."""
TICK_S = 0.002
CHUNK = 5_000
"""At most this many records between two checks of the clock (so pacing stays smooth)."""
STAMP = b'"created_at":'
FLUSH_TIMEOUT_S = 120.0


def event_pool(count: int = POOL) -> list[tuple[bytes, bytes, bytes, list[tuple[str, bytes]]]]:
    """(key, value before the stamp, value after it, headers) of ``count`` order events."""
    pool = []
    for event in order_events(count):
        head, tail = event.value.split(STAMP, 1)
        digits = len(tail) - len(tail.lstrip(b"0123456789"))
        pool.append((event.key, head + STAMP, tail[digits:], list(event.headers)))
    return pool


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--rate", type=float, default=0, help="records/s (0: as fast as the client can)")
    parser.add_argument("--seconds", type=float, default=0, help="how long to produce")
    parser.add_argument("--records", type=int, default=0, help="instead of --seconds: this many records")
    args = parser.parse_args(argv)
    pool = event_pool()
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 5, "batch.size": 1_000_000,
                         "queue.buffering.max.messages": 1_000_000, "queue.buffering.max.kbytes": 1_048_576,
                         "acks": "all"})
    produce, poll, topic, partitions = producer.produce, producer.poll, args.topic, args.partitions
    by_partition = [0] * partitions
    sent = 0
    started_at = time.time()
    started = time.monotonic()
    while True:
        elapsed = time.monotonic() - started
        if (args.records and sent >= args.records) or (not args.records and elapsed >= args.seconds):
            break
        due = int(args.rate * elapsed) if args.rate else sent + CHUNK
        if args.records:
            due = min(due, args.records)
        if due <= sent:
            poll(0)
            time.sleep(TICK_S)
            continue
        now_ms = int(time.time() * 1000)
        stamp = str(now_ms).encode()
        for index in range(sent, min(due, sent + CHUNK)):
            key, head, tail, headers = pool[index % POOL]
            partition = index % partitions
            while True:
                try:
                    produce(topic, head + stamp + tail, key, partition=partition, headers=headers,
                            timestamp=now_ms)
                    break
                except BufferError:
                    poll(0.01)
            by_partition[partition] += 1
            sent += 1
        poll(0)
    seconds = time.monotonic() - started
    ended_at = started_at + seconds
    if producer.flush(FLUSH_TIMEOUT_S) != 0:
        print(f"streaming_producer: messages still queued after {FLUSH_TIMEOUT_S:.0f} s", file=sys.stderr)
        return 1
    closing = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 0, "acks": "all"})
    for partition in range(partitions):
        key, head, tail, headers = pool[(sent + partition) % POOL]
        now = int(time.time() * 1000)
        closing.produce(topic, head + str(now).encode() + tail, key, partition=partition, headers=headers,
                        timestamp=now)
        closing.flush(FLUSH_TIMEOUT_S)
        by_partition[partition] += 1
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"records": sum(by_partition), "seconds": seconds, "by_partition": by_partition,
                      "started_at": started_at, "ended_at": ended_at,
                      "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
