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


@pytest.mark.parametrize(
    ("code", "status", "operation", "key", "names"),
    [
        ("AccessDenied", 403, "PutObject", "out/0/000000000009.json", "s3:PutObject denied on s3://bkt/out/0/000000000009.json"),
        ("403", 403, "HeadBucket", None, "s3:ListBucket denied on s3://bkt ("),
        ("AccessDenied", 403, "ListObjectsV2", None, "s3:ListBucket denied on s3://bkt ("),
        ("403", 403, "HeadObject", ".indexes/.locks/Topic(t)/0.lock", "s3:GetObject denied on s3://bkt/.indexes/.locks/"),
        ("AccessDenied", 403, "UploadPart", "out/big.parquet", "s3:PutObject denied on s3://bkt/out/big.parquet"),
    ],
)
def test_a_refused_permission_names_the_iam_action_to_grant(
    code: str, status: int, operation: str, key: str | None, names: str
) -> None:
    error = translate_s3_error(_error(code, status), "bkt", key, operation)
    assert isinstance(error, AccessDeniedError)
    assert names in str(error) and "docs/storage.md#permissions" in str(error) and "\n" not in str(error)


@pytest.mark.parametrize("code", ["InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "RequestTimeTooSkewed"])
def test_a_refused_credential_names_no_action(code: str) -> None:
    """No grant fixes a wrong key or an expired token: the message must not send the operator to IAM."""
    error = translate_s3_error(_error(code, 403), "bkt", "k", "PutObject")
    assert isinstance(error, AccessDeniedError)
    assert "s3:" not in str(error) and code in str(error)


def test_a_delete_batch_refused_key_by_key_names_delete_object(stubbed: tuple[S3ObjectStore, Stubber]) -> None:
    """DeleteObjects answers 200 and refuses inside, key by key (AWS authorizes each as DeleteObject)."""
    store, stubber = stubbed
    stubber.add_response("delete_objects", {"Errors": [
        {"Key": ".indexes/s/.plans/Topic(t)/0/00000000000000000005.json", "Code": "AccessDenied", "Message": "m"}]})
    with pytest.raises(AccessDeniedError, match=r"^s3:DeleteObject denied on s3://bkt/\.indexes/s/\.plans/"):
        store.delete_many("bkt", [".indexes/s/.plans/Topic(t)/0/00000000000000000005.json"])
