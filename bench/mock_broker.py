"""``python -m bench.mock_broker``: librdkafka's mock cluster in a process of its own.

Prints the bootstrap address on the first line of stdout, then serves until killed. The
harness uses it only when Tansu cannot start (see :mod:`bench.services`).
"""

from __future__ import annotations

import signal
import sys

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka


def main() -> None:
    stops = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    with EmbeddedKafka() as kafka:
        print(kafka.bootstrap_servers, flush=True)
        signal.sigwait(stops)
    sys.exit(0)


if __name__ == "__main__":
    main()
