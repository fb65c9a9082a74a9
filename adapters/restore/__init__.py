"""The restore's translations: objects read back as message batches (Avro, Parquet, lines, bytes,
envelopes), the transactional Kafka producer of an origin and the driver's Kafka calls, and the
Spark task runner. What is restored, in which order and in which transaction: application/restore/.
"""
