"""The exactly-once commit protocol: lock format and keys, range plans, chunk bounds and the decisions.

What the sink reads on start-up, what it writes before and after uploading, and what a lost
response, a 412 or another writer means. Facts in, store calls out; nothing here does I/O.
"""
