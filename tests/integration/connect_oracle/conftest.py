"""The Connect oracle's one JVM run, shared by every case of the session."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.connect_oracle.corpus import cases
from tests.support.connect_oracle.java_side import oracle_missing_reason, run_connect


@pytest.fixture(scope="session")
def connect_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Kafka Connect's result for every corpus case, by case id (skips when Java or the jars are missing)."""
    reason = oracle_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return run_connect(cases(), tmp_path_factory.mktemp("connect-oracle"))
