"""The use cases (sink, restore, explain, demo) and the composition root that wires settings to adapters.

Nothing here imports Spark, Arrow, a cloud SDK or a Kafka client (import-linter holds it): a use
case talks to ports and to the domain; :mod:`.compose` picks the adapters.
"""
