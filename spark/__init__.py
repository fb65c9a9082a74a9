"""lakesink as a library for any Spark job: ``import lakesink.spark``.

* :func:`register` makes ``format("lakesink-kafka")`` available: Kafka for Structured Streaming
  and batch reads, with the option names and schema of Spark's own Kafka source;
* :func:`write_stream` writes a streaming DataFrame to the object store exactly once, :func:`write`
  a static one, with the connector settings (KCQL, store, format, flush) of ``lakesink sink``.
See docs/library.md for the reference.
"""

from lakesink.domain.extras import needs_extra

with needs_extra("spark"):  # a core install: one ImportError naming the extra, not pyspark's traceback
    from lakesink.application.bootstrap.library import Config, register, write, write_stream
    from lakesink.application.sink_run import BatchReport

__all__ = ["BatchReport", "Config", "register", "write", "write_stream"]
