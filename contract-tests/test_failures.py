"""Failures arrive as the port's errors: missing bucket/key, denied access, transient faults."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import Harness, Target, unique
from fault_proxy import FaultProxy

from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ObjectNotFoundError,
    TransientStorageError,
)
from lakesink.domain.ports import ObjectStore


@pytest.fixture
def missing_bucket(harness: Harness) -> str:
    return unique("absent")


def test_check_bucket_raises_bucket_not_found_for_a_missing_bucket(target: Target, missing_bucket: str) -> None:
    with pytest.raises(BucketNotFoundError):
        target.store.check_bucket(missing_bucket)


@pytest.mark.parametrize("operation", ["get", "head", "put", "put_if_absent", "list", "download", "delete"])
def test_operations_on_a_missing_bucket_raise_bucket_not_found(
    target: Target, missing_bucket: str, operation: str, tmp_path: Path
) -> None:
    store = target.store
    calls = {
        "get": lambda: store.get(missing_bucket, "k"),
        "head": lambda: store.head(missing_bucket, "k"),
        "put": lambda: store.put(missing_bucket, "k", b"x"),
        "put_if_absent": lambda: store.put_if_absent(missing_bucket, "k", b"x"),
        "list": lambda: list(store.list_pages(missing_bucket)),
        "download": lambda: store.download_file(missing_bucket, "k", tmp_path / "out"),
        "delete": lambda: store.delete(missing_bucket, "k"),
    }
    with pytest.raises(BucketNotFoundError) as caught:
        calls[operation]()
    assert missing_bucket in str(caught.value)


@pytest.mark.parametrize("operation", ["get", "head", "copy", "download"])
def test_reading_a_missing_key_raises_object_not_found_naming_bucket_and_key(
    target: Target, operation: str, tmp_path: Path
) -> None:
    store, key = target.store, target.key("no/such/key")
    calls = {
        "get": lambda: store.get(target.bucket, key),
        "head": lambda: store.head(target.bucket, key),
        "copy": lambda: store.copy(target.bucket, key, target.key("dst")),
        "download": lambda: store.download_file(target.bucket, key, tmp_path / "out"),
    }
    with pytest.raises(ObjectNotFoundError) as caught:
        calls[operation]()
    assert target.bucket in str(caught.value) and key in str(caught.value)


def _denied(harness: Harness) -> ObjectStore:
    store = harness.denied_store()
    if store is None:
        pytest.skip(f"{harness.name} has no credentials to get wrong (no access control to test)")
    return store


def test_wrong_credentials_raise_access_denied(target: Target) -> None:
    store = _denied(target.harness)
    with pytest.raises(AccessDeniedError) as caught:
        store.put(target.bucket, target.key("k"), b"x")
    assert "not-the-secret" not in str(caught.value)


def test_wrong_credentials_fail_check_bucket_with_access_denied(target: Target) -> None:
    store = _denied(target.harness)
    with pytest.raises(AccessDeniedError):
        store.check_bucket(target.bucket)


@pytest.mark.parametrize("mode", ["503", "reset"])
def test_transient_faults_fewer_than_the_retries_are_absorbed(
    target: Target, fault_proxy: FaultProxy, mode: str
) -> None:
    store = target.harness.store(**target.harness.endpoint_override(fault_proxy.url), http_max_retries=2)
    etag = store.put(target.bucket, target.key("flaky-object"), b"v")  # warm the client first
    fault_proxy.fail_next(2, mode, path_contains="flaky-object")
    assert store.get(target.bucket, target.key("flaky-object")).etag == etag
    assert fault_proxy.faults_served == 2


@pytest.mark.parametrize("mode", ["503", "reset"])
def test_transient_faults_outnumbering_the_retries_surface_as_transient_storage_error(
    target: Target, fault_proxy: FaultProxy, mode: str
) -> None:
    store = target.harness.store(**target.harness.endpoint_override(fault_proxy.url), http_max_retries=2)
    store.put(target.bucket, target.key("flaky-object"), b"v")
    fault_proxy.fail_next(3, mode, path_contains="flaky-object")
    with pytest.raises(TransientStorageError) as caught:
        store.get(target.bucket, target.key("flaky-object"))
    assert fault_proxy.faults_served == 3
    assert target.key("flaky-object") in str(caught.value)

