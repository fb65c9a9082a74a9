"""The restore's pure core: object keys parsed back into Kafka coordinates, the compact index,
ordering, progress records and the restore plan. No I/O; the adapters list, read and produce."""
