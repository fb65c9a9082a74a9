"""A fresh bucket on S3, GCS or Azure emulators, read back with the store's own SDK.

Tests that check what a sink wrote must not read it through lakesink's adapters; these readers use
boto3, google-cloud-storage and azure-storage-blob directly. Each also says which ``connect.*`` keys
point a Lenses sink config at its emulator (through an endpoint the test chooses, e.g. a fault proxy).
"""

from __future__ import annotations

from typing import Any, Protocol

from tests.support.boto_bucket import BotoBucket
from tests.support.emulators import AZURITE_ACCOUNT, AZURITE_KEY


class StoreBucket(Protocol):
    name: str
    prefix: str
    """The connector's settings prefix for the store (``connect.s3``...)."""

    def keys(self) -> list[str]:
        """Every data object's key (the index under ``.indexes/`` left out), sorted."""
        ...

    def read(self, key: str) -> bytes: ...

    def connector_settings(self, endpoint: str) -> dict[str, str]:
        """The connector settings that reach the bucket at ``endpoint``."""
        ...


class S3Bucket:
    """A bucket on an S3 API server (moto), read with boto3."""

    prefix = "connect.s3"

    def __init__(self, url: str, name: str) -> None:
        self.name, self._url = name, url
        self._bucket = BotoBucket(url, name)

    def keys(self) -> list[str]:
        return self._bucket.keys()

    def read(self, key: str) -> bytes:
        return self._bucket.read(key)

    def connector_settings(self, endpoint: str) -> dict[str, str]:
        return {
            "connect.s3.aws.auth.mode": "Credentials",
            "connect.s3.aws.access.key": "testing",
            "connect.s3.aws.secret.key": "testing",
            "connect.s3.aws.region": "us-east-1",
            "connect.s3.custom.endpoint": endpoint,
            "connect.s3.vhost.bucket": "false",
        }


class GcsBucket:
    """A bucket on fake-gcs-server, read with google-cloud-storage (anonymous)."""

    prefix = "connect.gcpstorage"

    def __init__(self, url: str, name: str) -> None:
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        self.name = name
        self._client: Any = storage.Client(project="test", credentials=AnonymousCredentials(),
                                           client_options={"api_endpoint": url})
        self._client.create_bucket(name)

    def keys(self) -> list[str]:
        return sorted(b.name for b in self._client.list_blobs(self.name) if not b.name.startswith(".indexes/"))

    def read(self, key: str) -> bytes:
        return bytes(self._client.bucket(self.name).blob(key).download_as_bytes())

    def connector_settings(self, endpoint: str) -> dict[str, str]:
        return {
            "connect.gcpstorage.gcp.auth.mode": "None",
            "connect.gcpstorage.gcp.project.id": "test",
            "connect.gcpstorage.endpoint": endpoint,
        }


class AzureContainer:
    """A container on Azurite (its public development account), read with azure-storage-blob."""

    prefix = "connect.datalake"

    def __init__(self, url: str, name: str) -> None:
        from azure.storage.blob import BlobServiceClient

        self.name = name
        service = BlobServiceClient(url, credential={"account_name": AZURITE_ACCOUNT, "account_key": AZURITE_KEY})
        self._container: Any = service.create_container(name)

    def keys(self) -> list[str]:
        return sorted(b.name for b in self._container.list_blobs() if not b.name.startswith(".indexes/"))

    def read(self, key: str) -> bytes:
        return bytes(self._container.download_blob(key).readall())

    def connector_settings(self, endpoint: str) -> dict[str, str]:
        return {
            "connect.datalake.azure.auth.mode": "Credentials",
            "connect.datalake.azure.account.name": AZURITE_ACCOUNT,
            "connect.datalake.azure.account.key": AZURITE_KEY,
            "connect.datalake.endpoint": endpoint,
        }
