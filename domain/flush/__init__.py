"""When records are flushed: the one flush rule (count, size, interval, schema change) and where it applies.

``policy.py`` holds the rule (:func:`~lakesink.domain.flush.policy.flush_reason`, count or size or
interval, written once) and the per-file :class:`~lakesink.domain.flush.policy.FlushPolicy` the
executors' writers ask; ``admission.py`` applies the same rule on the driver, deciding which
partitions' waiting records enter the next micro-batch; ``schema_change.py`` holds the schema
detectors. Nothing else decides when data is flushed.
"""
