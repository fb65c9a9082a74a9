"""A moto S3 server fixture body for test folders that need an S3 API (crash and cluster tests).

Declared in each folder's conftest as ``moto = pytest.fixture(scope="module")(moto_s3)`` so the
server runs only while that folder's tests do.
"""

from __future__ import annotations

from collections.abc import Iterator

from lakesink.adapters.demo.s3 import MotoS3


def moto_s3() -> Iterator[MotoS3]:
    """moto's S3 on a free 127.0.0.1 port, in a thread of the test process; stopped afterwards."""
    server = MotoS3()
    server.start()
    try:
        yield server
    finally:
        server.stop()
