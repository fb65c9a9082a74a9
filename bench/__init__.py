"""The benchmark harness behind ``make bench`` (``python -m bench``).

It starts a Kafka-compatible broker (Tansu) and an S3 server (moto) on 127.0.0.1 in their own
processes, produces realistic order events, and measures lakesink's sink and restore next to
their ceilings (raw consume, raw encode) and next to Quix Streams' S3FileSink on the same data.
Every number is reported only after the output was counted and found complete.
"""
