"""SDK clients are built once per settings per process and shared by every adapter instance."""

from __future__ import annotations

import pickle

from lakesink.adapters.storage.client_cache import shared_client
from lakesink.adapters.storage.s3 import S3ObjectStore
from lakesink.domain.config.backends import S3Settings
from lakesink.domain.config.secret import Secret


def test_equal_settings_share_one_client_and_different_settings_get_their_own() -> None:
    built: list[S3Settings] = []

    def build(settings: object) -> object:
        built.append(settings)  # type: ignore[arg-type]
        return object()

    one = S3Settings(custom_endpoint="http://127.0.0.1:1", access_key=Secret("a"), secret_key=Secret("b"))
    same = S3Settings(custom_endpoint="http://127.0.0.1:1", access_key=Secret("a"), secret_key=Secret("b"))
    other_secret = S3Settings(custom_endpoint="http://127.0.0.1:1", access_key=Secret("a"), secret_key=Secret("c"))

    first = shared_client("test-kind", one, build)

    assert shared_client("test-kind", same, build) is first
    assert shared_client("test-kind", other_secret, build) is not first
    assert shared_client("other-kind", one, build) is not first
    assert built == [one, other_secret, one]


def test_an_unpickled_s3_store_reuses_the_client_of_its_process() -> None:
    settings = S3Settings(
        auth_mode="Credentials",
        access_key=Secret("testing"),
        secret_key=Secret("testing"),
        region="us-east-1",
        custom_endpoint="http://127.0.0.1:9",
    )
    store = S3ObjectStore(settings)
    shipped = pickle.loads(pickle.dumps(store))

    assert shipped.client is store.client
