"""Failures arrive as the port's errors: missing bucket/key, denied access, transient faults."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from backends import Harness, Target, unique

from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ObjectNotFoundError,
    StorageError,
    TransientStorageError,
)
from lakesink.domain.ports import ObjectStore
from tests.support.fault_proxy import FaultProxy


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


@pytest.mark.parametrize("mode", ["503", "throttle", "reset"])
def test_transient_faults_fewer_than_the_retries_are_absorbed(
    target: Target, fault_proxy: FaultProxy, mode: str
) -> None:
    store = target.harness.store(**target.harness.endpoint_override(fault_proxy.url), http_max_retries=2)
    etag = store.put(target.bucket, target.key("flaky-object"), b"v")  # warm the client first
    fault_proxy.fail_next(2, mode, path_contains="flaky-object")
    assert store.get(target.bucket, target.key("flaky-object")).etag == etag
    assert fault_proxy.faults_served == 2


def _secrets(harness: Harness) -> list[str]:
    values = (getattr(harness.settings, f.name) for f in dataclasses.fields(harness.settings))
    return [value.reveal() for value in values if isinstance(value, Secret) and value]


@pytest.mark.parametrize("operation", ["get", "put_if_absent"])
@pytest.mark.parametrize("mode", ["503", "reset"])
def test_transient_faults_outnumbering_the_retries_surface_as_transient_storage_error(
    target: Target, fault_proxy: FaultProxy, mode: str, operation: str
) -> None:
    store = target.harness.store(**target.harness.endpoint_override(fault_proxy.url), http_max_retries=2,
                                 http_retry_interval_ms=10)
    key = target.key("flaky-object")
    store.put(target.bucket, key, b"v")
    calls = {"get": lambda: store.get(target.bucket, key),
             "put_if_absent": lambda: store.put_if_absent(target.bucket, target.key("flaky-object-new"), b"v")}
    fault_proxy.fail_next(10, mode, path_contains="flaky-object")

    with pytest.raises(TransientStorageError) as caught:
        calls[operation]()

    assert fault_proxy.faults_served == 3  # the first attempt and two retries, all by the SDK
    message = str(caught.value)
    assert target.bucket in message and target.key("flaky-object") in message and "http.max.retries=2" in message
    assert not [secret for secret in _secrets(target.harness) if secret in message]


def test_a_request_the_store_will_never_serve_fails_at_once_and_is_not_transient(
    target: Target, fault_proxy: FaultProxy
) -> None:
    """501 Not Implemented is a 5xx, but asking again cannot help: no SDK retry, no waiting it out."""
    store = target.harness.store(**target.harness.endpoint_override(fault_proxy.url), http_max_retries=2,
                                 http_retry_interval_ms=10)
    store.check_bucket(target.bucket)  # warm the client before the fault
    fault_proxy.fail_next(10, "not-implemented", path_contains="unserved-object")

    with pytest.raises(StorageError) as caught:
        store.put_if_absent(target.bucket, target.key("unserved-object"), b"v")

    assert not isinstance(caught.value, TransientStorageError), caught.value
    assert fault_proxy.faults_served == 1  # not retried by the SDK
