"""S3 answers that name a refusal with a 404 (versitygw) are access errors, not missing objects or
buckets; botocore's Stubber plays the server, so no network is involved."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from lakesink.adapters.storage.s3 import S3ObjectStore
from lakesink.adapters.storage.s3_errors import translate_s3_error
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import AccessDeniedError, BucketNotFoundError, ObjectNotFoundError


def _error(code: str, status: int) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}},
                       "PutObject")


@pytest.mark.parametrize("key", ["k", None])
def test_versitygw_unknown_access_key_404_is_access_denied(key: str | None) -> None:
    assert isinstance(translate_s3_error(_error("XAdminUserNotFound", 404), "bkt", key), AccessDeniedError)


def test_a_plain_404_still_means_missing_object_or_bucket() -> None:
    assert isinstance(translate_s3_error(_error("NoSuchKey", 404), "bkt", "k"), ObjectNotFoundError)
    assert isinstance(translate_s3_error(_error("404", 404), "bkt", None), BucketNotFoundError)


@pytest.fixture
def stubbed() -> Iterator[tuple[S3ObjectStore, Stubber]]:
    store = S3ObjectStore(S3Settings(auth_mode="Credentials", access_key=Secret("k"), secret_key=Secret("s"),
                                     region="us-east-1", custom_endpoint="http://127.0.0.1:9", http_max_retries=0))
    with Stubber(store.client) as stubber:
        yield store, stubber


def test_check_bucket_tells_a_refused_key_from_a_missing_bucket_by_listing(stubbed: tuple[S3ObjectStore, Stubber]) -> None:
    """A HEAD 404 has no code; the listing's answer has one."""
    store, stubber = stubbed
    stubber.add_client_error("head_bucket", http_status_code=404)
    stubber.add_client_error("list_objects_v2", "XAdminUserNotFound", http_status_code=404)
    with pytest.raises(AccessDeniedError):
        store.check_bucket("bkt")
    stubber.add_client_error("head_bucket", http_status_code=404)
    stubber.add_client_error("list_objects_v2", "NoSuchBucket", http_status_code=404)
    with pytest.raises(BucketNotFoundError):
        store.check_bucket("bkt")
    stubber.assert_no_pending_responses()
