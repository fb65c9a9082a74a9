"""Fixtures of these slow tests: an S3 server (moto) on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.support.moto_s3 import moto_s3

moto = pytest.fixture(scope="module")(moto_s3)
