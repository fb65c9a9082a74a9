"""The local store maps keys to paths safely and reversibly, and never lists its own temp files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lakesink.adapters.storage.local import LocalObjectStore
from lakesink.adapters.storage.local_paths import decode_name, encode_segment, object_path
from lakesink.domain.errors import AccessDeniedError, StorageError


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    local = LocalObjectStore(tmp_path)
    local.create_bucket("b")
    return local


@pytest.mark.parametrize("key", ["../escape", "a/../../escape", "/etc/passwd", "a/./b", "nul\0byte", ""])
def test_keys_that_could_escape_the_bucket_are_rejected(store: LocalObjectStore, key: str) -> None:
    with pytest.raises(StorageError, match="Invalid object key"):
        store.put("b", key, b"x")


@pytest.mark.parametrize("bucket", ["..", ".hidden", "a/b", ""])
def test_bucket_names_that_are_not_plain_directory_names_are_rejected(store: LocalObjectStore, bucket: str) -> None:
    with pytest.raises(StorageError, match="Invalid bucket name"):
        store.put(bucket, "k", b"x")


@pytest.mark.parametrize("segment", ["", "%", "%25", "a%b", "100%", "plain", "é (1)=+"])
def test_segment_encoding_round_trips(segment: str) -> None:
    assert decode_name(encode_segment(segment)) == segment


def test_keys_are_stored_as_readable_paths_under_the_bucket(tmp_path: Path) -> None:
    assert object_path(tmp_path, "b", "topic/0/000.json") == tmp_path / "b" / "topic" / "0" / "000.json"


def test_temp_files_left_by_a_crash_never_appear_in_listings(store: LocalObjectStore, tmp_path: Path) -> None:
    store.put("b", "dir/real", b"x")
    (tmp_path / "b" / "dir" / "%tmp.deadbeef").write_bytes(b"half-written")
    keys = [o.key for page in store.list_pages("b") for o in page.objects]
    assert keys == ["dir/real"]


def test_a_key_cannot_be_both_an_object_and_a_prefix_of_other_keys(store: LocalObjectStore) -> None:
    store.put("b", "a/b", b"x")
    with pytest.raises(StorageError, match="prefix"):
        store.put("b", "a", b"y")


def test_deleting_the_last_key_of_a_directory_removes_the_empty_directory(
    store: LocalObjectStore, tmp_path: Path
) -> None:
    store.put("b", "x/y/z", b"1")
    store.delete("b", "x/y/z")
    assert list((tmp_path / "b").iterdir()) == []
    store.put("b", "x", b"now a file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores filesystem permissions, so access cannot be denied")
def test_an_unreadable_object_is_reported_as_access_denied(store: LocalObjectStore, tmp_path: Path) -> None:
    store.put("b", "k", b"x")
    (tmp_path / "b" / "k").chmod(0)
    with pytest.raises(AccessDeniedError):
        store.get("b", "k")
