"""``kcql explain`` of a Confluent or Aiven S3 sink config: each dialect's report on the shared skeleton
(:mod:`lakesink.application.explain_keys`)."""
