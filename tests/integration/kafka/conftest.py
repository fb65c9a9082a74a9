"""Fixtures of the Kafka integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.schema_registry_double import SchemaRegistryDouble

REGISTRY_USER_INFO = "reader:s3cr3t"


@pytest.fixture
def schema_registry() -> Iterator[SchemaRegistryDouble]:
    """A Schema Registry test double on 127.0.0.1 that requires basic auth."""
    with SchemaRegistryDouble(user_info=REGISTRY_USER_INFO) as registry:
        yield registry
