"""The use cases (sink, restore, verify, explain, demo) and the composition root that wires them.

A use case talks to ports and to the domain and imports no Spark, Arrow, cloud SDK or Kafka client;
:mod:`.bootstrap` picks the adapters (import-linter holds both).
"""
