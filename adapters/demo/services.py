"""The throw-away services ``lakesink demo`` runs against, all on 127.0.0.1, stopped on any exit.

librdkafka's mock cluster (:class:`~lakesink.adapters.kafka.embedded_broker.EmbeddedKafka`, through
:class:`~lakesink.adapters.demo.kafka.DemoKafka`) and moto's S3 server
(:class:`~lakesink.adapters.demo.s3.MotoS3`) live in this process; :class:`DemoServices`, a context
manager, undoes every start in reverse order on any exit, Ctrl-C included. See docs/operations.md.
"""

from __future__ import annotations

from contextlib import ExitStack

from lakesink.adapters.demo.kafka import DemoKafka
from lakesink.adapters.demo.s3 import MotoS3
from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka


class DemoServices:
    """Embedded Kafka plus moto S3; use as a context manager so both always stop."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._broker = EmbeddedKafka()
        self.kafka = DemoKafka(self._broker)
        self.s3 = MotoS3()

    def __enter__(self) -> DemoServices:
        with ExitStack() as starting:
            starting.enter_context(self._broker)
            self.s3.start()
            starting.callback(self.s3.stop)
            self._stack = starting.pop_all()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self._stack.close()
