"""The restore's rules: object keys back to Kafka coordinates, the compact index and origin order,
where an origin resumes, how batches are cut into transactions, which partition a record goes to,
and the ports (:mod:`.ports`) the use case runs over. No I/O.
"""
