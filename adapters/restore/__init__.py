"""The restore's I/O: listing into the compact index, reading objects back into Kafka messages,
transactional delivery with progress, and the Spark job that spreads origins over tasks."""
