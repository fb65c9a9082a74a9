"""Objects bigger than the multipart threshold stream through intact, with bounded memory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from backends import Harness, Target

from lakesink.domain.errors import ObjectNotFoundError, PreconditionFailedError, TransientStorageError
from tests.support.fault_proxy import FaultProxy

SIZE = 17 * 1024 * 1024 + 123  # over the 16 MiB S3 multipart threshold, not a multiple of the part size
_BLOCK = 1024 * 1024


def _write_random_file(path: Path, size: int) -> str:
    """Write ``size`` pseudo-random bytes one block at a time; returns their SHA-256."""
    digest = hashlib.sha256()
    seed = hashlib.sha256(b"lakesink").digest()
    with open(path, "wb") as out:
        written = 0
        counter = 0
        while written < size:
            block = hashlib.shake_256(seed + counter.to_bytes(8, "big")).digest(min(_BLOCK, size - written))
            out.write(block)
            digest.update(block)
            written += len(block)
            counter += 1
    return digest.hexdigest()


def _sha256(path: Path) -> str:
    with open(path, "rb") as source:
        return hashlib.file_digest(source, "sha256").hexdigest()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("big") / "big.bin"
    return path, _write_random_file(path, SIZE)


def test_a_file_over_the_multipart_threshold_uploads_and_downloads_intact(
    target: Target, big_file: tuple[Path, str], tmp_path: Path
) -> None:
    source, expected = big_file
    etag = target.store.upload_file(target.bucket, target.key("big.bin"), source, if_absent=True)
    info = target.store.download_file(target.bucket, target.key("big.bin"), tmp_path / "back.bin")
    assert (info.size, info.etag) == (SIZE, etag)
    assert _sha256(tmp_path / "back.bin") == expected
    assert target.store.head(target.bucket, target.key("big.bin")).size == SIZE


def test_a_large_create_only_upload_loses_to_an_existing_key(
    target: Target, big_file: tuple[Path, str]
) -> None:
    target.store.put(target.bucket, target.key("taken"), b"small")
    with pytest.raises(PreconditionFailedError):
        target.store.upload_file(target.bucket, target.key("taken"), big_file[0], if_absent=True)
    assert target.store.get(target.bucket, target.key("taken")).data == b"small"


def test_a_failed_part_aborts_a_multipart_upload_and_leaves_nothing_behind(
    harness: Harness, target: Target, fault_proxy: FaultProxy, big_file: tuple[Path, str]
) -> None:
    if harness.backend != "s3":
        pytest.skip("multipart parts are an S3 notion")
    proxied = harness.store(**harness.endpoint_override(fault_proxy.url))
    attempts = harness.settings.http_max_retries + 1
    fault_proxy.fail_next(attempts, path_contains="partNumber=2")

    with pytest.raises(TransientStorageError):
        proxied.upload_file(target.bucket, target.key("big.bin"), big_file[0], if_absent=True)

    assert fault_proxy.faults_served == attempts
    with pytest.raises(ObjectNotFoundError):
        target.store.head(target.bucket, target.key("big.bin"))
    uploads = target.store.client.list_multipart_uploads(Bucket=target.bucket)  # type: ignore[attr-defined]
    assert uploads.get("Uploads", []) == []
