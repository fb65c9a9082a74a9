"""The SDKs' own retries, as configured from the connector settings, seen through a faulty network.

Every backend the fault proxy can front runs these: transient faults on a share of the requests are
ridden through, and a conditional write whose answer is lost on the way back is retried with its
condition intact, so it meets its own first attempt and reports PreconditionFailedError while the
object holds that first attempt's bytes (what ``domain/ports.py`` tells callers to expect).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from backends import Target

from lakesink.domain.errors import PreconditionFailedError
from lakesink.domain.ports import ObjectStore, StoredObject
from tests.support.fault_proxy import FaultProxy

_UPLOADS = ("PUT", "POST")  # S3 PutObject and Azure Put Blob are PUTs, a GCS upload is a POST


def _proxied(target: Target, proxy: FaultProxy, *, max_retries: int = 2) -> ObjectStore:
    """A store reaching the backend through ``proxy``, with short SDK backoffs (10 ms where the SDK
    takes a base delay from the settings; botocore uses its own 50 ms base for 5xx replies)."""
    return target.harness.store(**target.harness.endpoint_override(proxy.url), http_max_retries=max_retries,
                                http_retry_interval_ms=10)


@pytest.mark.parametrize("mode", ["503", "reset"])
def test_transient_faults_on_every_third_request_are_ridden_through(
    target: Target, fault_proxy: FaultProxy, mode: str
) -> None:
    store = _proxied(target, fault_proxy)
    store.check_bucket(target.bucket)  # warm the client (credentials, bucket metadata) before the faults
    fault_proxy.fail_every(3, mode)
    names = [target.key(f"ridden-{n}") for n in range(6)]

    etags = {name: store.put(target.bucket, name, name.encode()) for name in names}
    created = store.put_if_absent(target.bucket, target.key("ridden-created"), b"once")
    read = {name: store.get(target.bucket, name) for name in names}
    listed = {o.key for page in store.list_pages(target.bucket, target.key("ridden-")) for o in page.objects}

    assert {name: (obj.data, obj.etag) for name, obj in read.items()} == {n: (n.encode(), etags[n]) for n in names}
    assert store.get(target.bucket, target.key("ridden-created")) == StoredObject(b"once", created)
    assert listed == {*names, target.key("ridden-created")}
    assert fault_proxy.faults_served >= 4  # 14+ requests, every third one failed


def _put_if_absent(store: ObjectStore, target: Target, key: str, tmp_path: Path) -> tuple[bytes, Callable[[], str]]:
    return b"first attempt", lambda: store.put_if_absent(target.bucket, key, b"first attempt")


def _upload_file_if_absent(store: ObjectStore, target: Target, key: str,
                           tmp_path: Path) -> tuple[bytes, Callable[[], str]]:
    staged = tmp_path / "staged"
    staged.write_bytes(b"first attempt, from a file")
    return staged.read_bytes(), lambda: store.upload_file(target.bucket, key, staged, if_absent=True)


def _put_if_match(store: ObjectStore, target: Target, key: str, tmp_path: Path) -> tuple[bytes, Callable[[], str]]:
    etag = store.put(target.bucket, key, b"the version read")
    return b"first attempt", lambda: store.put_if_match(target.bucket, key, b"first attempt", etag)


@pytest.mark.parametrize("write", [_put_if_absent, _upload_file_if_absent, _put_if_match],
                         ids=["put_if_absent", "upload_file_if_absent", "put_if_match"])
def test_a_lost_answer_to_an_applied_conditional_write_surfaces_as_precondition_failed_on_the_retry(
    target: Target, fault_proxy: FaultProxy, tmp_path: Path,
    write: Callable[[ObjectStore, Target, str, Path], tuple[bytes, Callable[[], str]]],
) -> None:
    store, key = _proxied(target, fault_proxy), target.key("lost-answer")
    expected, conditional_write = write(store, target, key, tmp_path)
    fault_proxy.fail_next(1, "lose-response", path_contains="lost-answer", methods=_UPLOADS)

    with pytest.raises(PreconditionFailedError) as caught:
        conditional_write()

    assert fault_proxy.faults_served == 1  # the first attempt was applied and its answer dropped
    assert target.bucket in str(caught.value) and key in str(caught.value)
    assert store.get(target.bucket, key).data == expected
