"""A local directory as an object store: ``<root>/<bucket>/<key segments...>``.

Atomic writes, create-only with one winner and race-free compare-and-swap, across threads and
processes of one host (:class:`LocalObjectStore`). See docs/storage.md, "Conditional writes per
backend".
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import shutil
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from lakesink.adapters.storage.local_paths import (
    TEMP_PREFIX,
    check_bucket_name,
    decode_name,
    object_path,
    prefix_directory,
)
from lakesink.adapters.storage.paging import CommonPrefix, paginate, roll_up
from lakesink.adapters.storage.store_base import PagedStore
from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.errors import (
    AccessDeniedError,
    BucketNotFoundError,
    ObjectNotFoundError,
    PreconditionFailedError,
    StorageError,
)
from lakesink.domain.ports import ListPage, ObjectInfo, StoredObject

_LOCK_DIR = ".lakesink-locks"
_LOCK_STRIPES = 64
_CHUNK = 1024 * 1024

_Filler = Callable[["_HashingWriter"], object]


class LocalObjectStore(PagedStore):
    """Buckets are sub-directories of ``root``; they must exist before use (``create_bucket``).

    Atomic writes: data goes to a temporary file in the destination directory (fsynced), then
    ``os.replace`` swaps it in. Create-only with one winner: ``put_if_absent`` publishes with
    ``os.link``, which fails with ``EEXIST`` when the name exists, atomically, across processes.
    Compare-and-swap: every mutation of a key holds an exclusive ``fcntl.flock`` on one of 64 lock
    files under ``<root>/.lakesink-locks`` (by a hash of bucket and key); flock locks belong to open
    file descriptions, so they exclude other threads as well as other processes on the host. Etags are
    the MD5 hex digest of the content, recomputed on ``head`` and listings (fine for development and
    tests, not for listing terabytes). A key cannot be both an object and a "directory" of other keys
    (``a`` and ``a/b``); such a write fails with a StorageError naming the key.
    """

    def __init__(self, root: LocalSettings | str | os.PathLike[str]) -> None:
        self.root = Path(root.root if isinstance(root, LocalSettings) else root)

    def create_bucket(self, bucket: str) -> None:
        """Create the bucket directory (not part of the port; for set-up and tests)."""
        check_bucket_name(bucket)
        (self.root / bucket).mkdir(parents=True, exist_ok=True)

    # --- writes -------------------------------------------------------------------------------

    def put(self, bucket: str, key: str, data: bytes) -> str:
        return self._write(bucket, key, lambda out: out.write(data), mode="replace")

    def put_if_absent(self, bucket: str, key: str, data: bytes) -> str:
        return self._write(bucket, key, lambda out: out.write(data), mode="create")

    def put_if_match(self, bucket: str, key: str, data: bytes, etag: str) -> str:
        return self._write(bucket, key, lambda out: out.write(data), mode="replace", expected_etag=etag)

    def upload_file(self, bucket: str, key: str, path: Path, *, if_absent: bool = False) -> str:
        def copy_from(out: _HashingWriter) -> None:
            with open(path, "rb") as source:
                shutil.copyfileobj(source, out, _CHUNK)

        return self._write(bucket, key, copy_from, mode="create" if if_absent else "replace")

    def delete(self, bucket: str, key: str) -> None:
        path = self._path(bucket, key)
        with self._locked(bucket, key), self._errors(bucket, key):
            with contextlib.suppress(FileNotFoundError, NotADirectoryError, IsADirectoryError):
                path.unlink()
            self._require_bucket(bucket)
            self._prune_empty_parents(bucket, path.parent)

    def delete_many(self, bucket: str, keys: Iterable[str]) -> None:
        for key in keys:
            self.delete(bucket, key)

    def copy(
        self,
        bucket: str,
        source_key: str,
        destination_key: str,
        *,
        destination_bucket: str | None = None,
        if_match: str | None = None,
    ) -> str:
        source = self._path(bucket, source_key)
        with self._errors(bucket, source_key), open(source, "rb") as reader:
            # The open descriptor pins this version even if the source is replaced meanwhile,
            # so the etag checked below is exactly the one of the bytes copied.
            def copy_from(out: _HashingWriter) -> None:
                shutil.copyfileobj(reader, out, _CHUNK)

            return self._write(destination_bucket or bucket, destination_key, copy_from, mode="replace",
                               source_check=(f"{bucket}/{source_key}", if_match))

    # --- reads --------------------------------------------------------------------------------

    def get(self, bucket: str, key: str) -> StoredObject:
        with self._errors(bucket, key):
            data = self._path(bucket, key).read_bytes()
        return StoredObject(data, _md5(data))

    def download_file(self, bucket: str, key: str, path: Path) -> ObjectInfo:
        source = self._path(bucket, key)
        digest = hashlib.md5(usedforsecurity=False)
        with self._errors(bucket, key), open(source, "rb") as reader, open(path, "wb") as out:
            stat = os.fstat(reader.fileno())
            while chunk := reader.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
        return ObjectInfo(key, stat.st_size, digest.hexdigest(), stat.st_mtime_ns // 1_000_000)

    def head(self, bucket: str, key: str) -> ObjectInfo:
        with self._errors(bucket, key):
            return _info(key, self._path(bucket, key))

    def _pages(
        self, bucket: str, prefix: str, delimiter: str | None, start_after: str | None, page_size: int
    ) -> Iterator[ListPage]:
        directory, directory_key = prefix_directory(self.root, bucket, prefix)
        self._require_bucket(bucket)
        found = sorted(_walk(directory, directory_key, prefix))
        rolled = roll_up(found, lambda item: item[0], prefix, delimiter, start_after)
        return paginate(self._infos(bucket, rolled), page_size)

    def check_bucket(self, bucket: str) -> None:
        check_bucket_name(bucket)
        self._require_bucket(bucket)

    # --- internals ----------------------------------------------------------------------------

    def _infos(
        self, bucket: str, rolled: Iterator[tuple[str, Path] | CommonPrefix]
    ) -> Iterator[ObjectInfo | CommonPrefix]:
        for entry in rolled:
            if isinstance(entry, CommonPrefix):
                yield entry
                continue
            key, path = entry
            try:
                with self._errors(bucket, key):
                    info = _info(key, path)
            except ObjectNotFoundError:  # deleted since the walk
                continue
            yield info

    def _write(
        self,
        bucket: str,
        key: str,
        fill: _Filler,
        *,
        mode: str,
        expected_etag: str | None = None,
        source_check: tuple[str, str | None] | None = None,
    ) -> str:
        path = self._path(bucket, key)
        with self._locked(bucket, key), self._errors(bucket, key):
            self._require_bucket(bucket)
            if expected_etag is not None:
                current = _current_etag(path)
                if current != expected_etag:
                    raise PreconditionFailedError(f"Object {bucket}/{key} no longer has etag {expected_etag}.")
            temp, etag = self._stage(bucket, key, path, fill)
            try:
                if source_check is not None and source_check[1] not in (None, etag):
                    raise PreconditionFailedError(f"Object {source_check[0]} no longer has etag {source_check[1]}.")
                if mode == "create":
                    try:
                        os.link(temp, path)
                    except FileExistsError:
                        raise PreconditionFailedError(f"Object {bucket}/{key} already exists.") from None
                else:
                    os.replace(temp, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    temp.unlink()
            return etag

    def _stage(self, bucket: str, key: str, path: Path, fill: _Filler) -> tuple[Path, str]:
        """Write the new content next to its destination; returns the temp path and the MD5."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StorageError(
                f"Cannot store {bucket}/{key}: a parent of the key is itself an object in this local store."
            ) from None
        temp = path.parent / f"{TEMP_PREFIX}{uuid.uuid4().hex}"
        with open(temp, "wb") as raw:
            out = _HashingWriter(raw)
            fill(out)
            raw.flush()
            os.fsync(raw.fileno())
        if path.is_dir():
            temp.unlink()
            raise StorageError(f"Cannot store {bucket}/{key}: other keys use it as a prefix in this local store.")
        return temp, out.digest.hexdigest()

    def _path(self, bucket: str, key: str) -> Path:
        return object_path(self.root, bucket, key)

    def _require_bucket(self, bucket: str) -> None:
        try:
            if (self.root / bucket).is_dir():
                return
        except PermissionError:
            raise AccessDeniedError(f"Access denied to bucket directory {self.root / bucket}.") from None
        raise BucketNotFoundError(f"Bucket {bucket} does not exist under {self.root}.")

    def _prune_empty_parents(self, bucket: str, directory: Path) -> None:
        bucket_dir = self.root / bucket
        while directory != bucket_dir and directory.is_relative_to(bucket_dir):
            try:
                directory.rmdir()
            except OSError:  # not empty (or already gone): stop climbing
                return
            directory = directory.parent

    @contextlib.contextmanager
    def _locked(self, bucket: str, key: str) -> Iterator[None]:
        stripe = zlib.crc32(f"{bucket}/{key}".encode()) % _LOCK_STRIPES
        lock_dir = self.root / _LOCK_DIR
        lock_dir.mkdir(parents=True, exist_ok=True)
        with open(lock_dir / f"{stripe}.lock", "ab") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    @contextlib.contextmanager
    def _errors(self, bucket: str, key: str) -> Iterator[None]:
        """Translate filesystem errors for ``bucket/key`` into lakesink storage errors."""
        try:
            yield
        except StorageError:
            raise
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            self._require_bucket(bucket)
            raise ObjectNotFoundError(f"Object {bucket}/{key} does not exist.") from None
        except PermissionError as exc:
            raise AccessDeniedError(f"Access denied to {bucket}/{key} under {self.root}: {exc.strerror}.") from None
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise StorageError(f"Object key {bucket}/{key} is too long for the local filesystem.") from None
            raise StorageError(f"Local store operation on {bucket}/{key} failed: {exc.strerror}.") from exc


class _HashingWriter:
    """Passes writes through to a file while computing their MD5."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.digest = hashlib.md5(usedforsecurity=False)

    def write(self, chunk: bytes) -> int:
        self.digest.update(chunk)
        return self._raw.write(chunk)


def _walk(directory: Path, directory_key: str, prefix: str) -> Iterator[tuple[str, Path]]:
    """Every (key, path) below ``directory`` whose key starts with ``prefix``; temp files skipped."""
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        segment = decode_name(entry.name)
        if segment is None:
            continue
        if entry.is_dir(follow_symlinks=False):
            sub_key = f"{directory_key}{segment}/"
            if sub_key.startswith(prefix) or prefix.startswith(sub_key):
                yield from _walk(Path(entry.path), sub_key, prefix)
        elif (key := directory_key + segment).startswith(prefix):
            yield key, Path(entry.path)


def _info(key: str, path: Path) -> ObjectInfo:
    with open(path, "rb") as reader:
        stat = os.fstat(reader.fileno())
        digest = hashlib.file_digest(reader, lambda: hashlib.md5(usedforsecurity=False))
    return ObjectInfo(key, stat.st_size, digest.hexdigest(), stat.st_mtime_ns // 1_000_000)


def _current_etag(path: Path) -> str | None:
    try:
        with open(path, "rb") as reader:
            return hashlib.file_digest(reader, lambda: hashlib.md5(usedforsecurity=False)).hexdigest()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()
