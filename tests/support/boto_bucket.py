"""A fresh bucket on an S3 API server, read back with plain boto3: the independent reader of sink tests.

Tests that check what a sink wrote must not read it through lakesink's own S3 adapter; this is
the one boto3 reader they share (moto's static ``testing`` keys).
"""

from __future__ import annotations

import boto3


class BotoBucket:
    """A bucket created on ``endpoint_url``; its data objects are everything outside ``.indexes/``."""

    def __init__(self, endpoint_url: str, name: str) -> None:
        self.name = name
        self._client = boto3.client(
            "s3",
            endpoint_url=endpoint_url,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )
        self._client.create_bucket(Bucket=name)

    def objects(self) -> dict[str, str]:
        """The ETag of every data object (the sink's index under ``.indexes/`` left out), by key."""
        found = {}
        for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self.name):
            found.update({item["Key"]: item["ETag"] for item in page.get("Contents", [])})
        return {key: etag for key, etag in found.items() if not key.startswith(".indexes/")}

    def keys(self) -> list[str]:
        """Every data object's key, sorted."""
        return sorted(self.objects())

    def read(self, key: str) -> bytes:
        return bytes(self._client.get_object(Bucket=self.name, Key=key)["Body"].read())
