"""``python -m bench.produce_ceiling``: the raw-produce ceiling, measured in its own process.

What a restore competes with: one plain confluent-kafka producer writing the data set's records
(key, value, two headers, timestamp, partition: the shape a restore produces) into a fresh topic
as fast as librdkafka takes them (``linger.ms`` 20, 1 MB batches, ``acks=all``, no transactions).
The events are built before the clock starts, so only producing and the final flush are timed.
Prints ``{"records": n, "seconds": s}``.
"""

from __future__ import annotations

import argparse
import json
import time

from confluent_kafka import Producer

from bench.events import order_events
from bench.kafka_io import create_topic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--create", action="store_true", help="create the topic first (not on the mock broker)")
    args = parser.parse_args()
    if args.create:
        create_topic(args.bootstrap, args.topic, args.partitions)
    events = [(e.key, e.value, list(e.headers), e.timestamp_ms, int(e.key[2:]) % args.partitions)
              for e in order_events(args.records)]
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 20, "batch.size": 1_000_000,
                         "queue.buffering.max.messages": 500_000, "acks": "all"})
    started = time.perf_counter()
    for key, value, headers, timestamp, partition in events:
        while True:
            try:
                producer.produce(args.topic, value=value, key=key, headers=headers, timestamp=timestamp,
                                 partition=partition)
                break
            except BufferError:
                producer.poll(0.05)
    left = producer.flush(120)
    seconds = time.perf_counter() - started
    print(json.dumps({"records": len(events) - left, "seconds": seconds}))
    raise SystemExit(0 if left == 0 else 1)


if __name__ == "__main__":
    main()
