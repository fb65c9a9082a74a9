"""One harness per backend: how to build its store, make a fresh bucket, and provoke failures.

A harness is all a backend needs to join the contract suite. Emulator harnesses get a fresh bucket
per test; "real account" harnesses (enabled by environment variables, see docs/storage.md) share one
bucket and isolate each test under a unique key prefix instead.
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakesink.adapters.storage import open_store
from lakesink.domain.config.backends import (
    AzureSettings,
    GcsSettings,
    LocalSettings,
    MemorySettings,
    S3Settings,
)
from lakesink.domain.config.secret import Secret
from lakesink.domain.ports import ObjectStore
from tests.support.emulators import AZURITE_ACCOUNT, AZURITE_KEY


def unique(stem: str) -> str:
    """A bucket-name-safe unique name (lowercase, digits, dashes; 3..63 chars)."""
    return f"{stem}-{uuid.uuid4().hex[:12]}"


@dataclass
class Target:
    """Where one test writes: a store, a bucket, and a key prefix that isolates the test."""

    store: ObjectStore
    bucket: str
    prefix: str
    harness: Harness

    def key(self, name: str) -> str:
        return self.prefix + name


@dataclass
class Harness:
    """Builds stores of one backend; subclasses override the hooks their backend supports."""

    name: str
    backend: str
    settings: Any
    shared_bucket: str | None = None  # real accounts: use this bucket, isolate by prefix
    network: bool = True
    stores: dict[str, ObjectStore] = field(default_factory=dict)
    #: objects are files of a POSIX tree (versitygw): a key ending in "/" is a directory and takes no
    #: data, an empty segment ("a//b") lists back collapsed; lakesink's own keys have neither
    keys_are_paths: bool = False

    def store(self, **overrides: Any) -> ObjectStore:
        """A store of this backend; settings fields in ``overrides`` replace the defaults."""
        return open_store(self.backend, dataclasses.replace(self.settings, **overrides))

    @property
    def default_store(self) -> ObjectStore:
        if "default" not in self.stores:
            self.stores["default"] = self.store()
        return self.stores["default"]

    def new_target(self) -> Target:
        if self.shared_bucket is not None:
            return Target(self.default_store, self.shared_bucket, f"lakesink-contract/{uuid.uuid4().hex}/", self)
        bucket = unique("contract")
        self.create_bucket(bucket)
        return Target(self.default_store, bucket, "", self)

    def create_bucket(self, bucket: str) -> None:
        raise NotImplementedError

    def endpoint_override(self, url: str) -> dict[str, Any]:
        """Settings overrides that send this backend's traffic to ``url`` (the fault proxy)."""
        raise NotImplementedError

    @property
    def upstream(self) -> str:
        raise NotImplementedError

    def denied_store(self) -> ObjectStore | None:
        """A store whose every request is refused, or None when the backend cannot express that."""
        return None


class MemoryHarness(Harness):
    def __init__(self) -> None:
        super().__init__("memory", "memory", MemorySettings(), network=False)

    def store(self, **overrides: Any) -> ObjectStore:
        return self.default_store if not overrides else super().store(**overrides)

    @property
    def default_store(self) -> ObjectStore:
        if "default" not in self.stores:
            self.stores["default"] = open_store("memory", self.settings)
        return self.stores["default"]

    def create_bucket(self, bucket: str) -> None:
        self.default_store.create_bucket(bucket)  # type: ignore[attr-defined]


class LocalHarness(Harness):
    def __init__(self, root: Path) -> None:
        super().__init__("local", "local", LocalSettings(root), network=False)

    def create_bucket(self, bucket: str) -> None:
        (self.settings.root / bucket).mkdir()


class S3Harness(Harness):
    def __init__(self, name: str, endpoint: str | None, access_key: str | None, secret_key: str | None,
                 *, region: str = "us-east-1", shared_bucket: str | None = None,
                 denied_endpoint: str | None = None) -> None:
        credentials = {"auth_mode": "Credentials", "access_key": Secret(access_key), "secret_key": Secret(secret_key)} \
            if access_key and secret_key else {}
        settings = S3Settings(region=region, custom_endpoint=endpoint, path_style_access=endpoint is not None,
                              http_max_retries=2, **credentials)  # type: ignore[arg-type]
        super().__init__(name, "s3", settings, shared_bucket=shared_bucket)
        self.denied_endpoint = denied_endpoint

    def create_bucket(self, bucket: str) -> None:
        self.default_store.client.create_bucket(Bucket=bucket)  # type: ignore[attr-defined]

    def endpoint_override(self, url: str) -> dict[str, Any]:
        return {"custom_endpoint": url, "path_style_access": True}

    @property
    def upstream(self) -> str:
        return str(self.settings.custom_endpoint)

    def denied_store(self) -> ObjectStore | None:
        # moto accepts any key unless started with auth enforced (a second server); real services
        # reject an unknown key on their normal endpoint.
        if self.denied_endpoint is None and self.shared_bucket is None:
            return None
        endpoint = self.denied_endpoint or self.settings.custom_endpoint
        return self.store(custom_endpoint=endpoint, auth_mode="Credentials",
                          access_key=Secret("AKIAUNKNOWNKEY000000"), secret_key=Secret("not-the-secret"))


class GcsHarness(Harness):
    def __init__(self, name: str, endpoint: str | None, *, shared_bucket: str | None = None) -> None:
        settings = GcsSettings(auth_mode="None" if endpoint else "Default", endpoint=endpoint,
                               project_id=os.environ.get("LAKESINK_TEST_GCS_PROJECT") or ("test" if endpoint else None),
                               http_max_retries=2, http_retry_interval_ms=10, http_retry_timeout_multiplier=1.0)
        super().__init__(name, "gcs", settings, shared_bucket=shared_bucket)

    def create_bucket(self, bucket: str) -> None:
        self.default_store.client.create_bucket(bucket)  # type: ignore[attr-defined]

    def endpoint_override(self, url: str) -> dict[str, Any]:
        return {"endpoint": url}

    @property
    def upstream(self) -> str:
        return str(self.settings.endpoint)


class AzureHarness(Harness):
    def __init__(self, name: str, settings: AzureSettings, *, shared_bucket: str | None = None) -> None:
        super().__init__(name, "azure", dataclasses.replace(settings, http_max_retries=2, http_retry_interval_ms=10),
                         shared_bucket=shared_bucket)

    @classmethod
    def azurite(cls, url: str) -> AzureHarness:
        return cls("azure", AzureSettings(auth_mode="Credentials", account_name=AZURITE_ACCOUNT,
                                          account_key=Secret(AZURITE_KEY), endpoint=url))

    def create_bucket(self, bucket: str) -> None:
        self.default_store.client.create_container(bucket)  # type: ignore[attr-defined]

    def endpoint_override(self, url: str) -> dict[str, Any]:
        return {"endpoint": url}

    @property
    def upstream(self) -> str:
        return str(self.settings.endpoint)

    def denied_store(self) -> ObjectStore | None:
        if self.settings.auth_mode != "Credentials":
            return None
        return self.store(account_key=Secret("d3Jvbmcta2V5LWZvci1jb250cmFjdC10ZXN0cw=="))
