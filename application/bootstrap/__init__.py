"""The composition root: the only application package that imports adapters (import-linter holds it).

A module per command opens what the command needs (stores, Kafka clients, Spark, metrics servers)
and hands it to the use case as ports; the command line is the only module that enters here.
See docs/architecture.md.
"""
