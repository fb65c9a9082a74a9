"""Kafka through confluent-kafka: the PySpark streaming data source (offset ranges planned from the
store's index, admitted by the domain's flush rule), partition readers into Arrow, producers and admin
client settings, converters (bytes, string, JSON, Schema Registry Avro) and the embedded test broker.
"""
