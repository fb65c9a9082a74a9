"""The outside world of ``lakesink demo``: mock Kafka and moto S3 on 127.0.0.1, producing, reading back.

Implements the ports of :mod:`lakesink.application.demo.ports` structurally (no import of the
application); the read-back shares no code with the sink, so the demo never trusts lakesink to check lakesink.
"""
