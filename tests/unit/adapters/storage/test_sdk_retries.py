"""The connector's retry settings become each SDK's own retry policy (no network involved)."""

from __future__ import annotations

import logging
import time
import types

import pytest

from lakesink.adapters.storage.azure_blob import AzureBlobObjectStore
from lakesink.adapters.storage.azure_blob import retry_policy as azure_retry_policy
from lakesink.adapters.storage.gcs import MAX_BACKOFF_S
from lakesink.adapters.storage.gcs import retry_policy as gcs_retry_policy
from lakesink.adapters.storage.s3 import S3ObjectStore, retry_options
from lakesink.domain.config.backends import AzureSettings, GcsSettings, S3Settings
from lakesink.domain.config.secret import Secret

_S3 = {"auth_mode": "Credentials", "access_key": Secret("k"), "secret_key": Secret("s"), "region": "us-east-1",
       "custom_endpoint": "http://127.0.0.1:9"}


def test_s3_max_retries_become_botocore_standard_mode_total_attempts() -> None:
    settings = S3Settings(http_max_retries=3, **_S3)  # type: ignore[arg-type]

    assert retry_options(settings) == {"mode": "standard", "total_max_attempts": 4}
    assert S3ObjectStore(settings).client.meta.config.retries == {"mode": "standard", "total_max_attempts": 4}
    assert retry_options(S3Settings(http_max_retries=0))["total_max_attempts"] == 1


def test_an_s3_retry_interval_botocore_cannot_apply_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="lakesink.adapters.storage.s3"):
        assert S3ObjectStore(S3Settings(http_retry_interval_ms=50, **_S3)).client  # type: ignore[arg-type]
        assert not caplog.records
        assert S3ObjectStore(S3Settings(http_retry_interval_ms=250, **_S3)).client  # type: ignore[arg-type]
    assert "http.retry.interval=250 ms is not applied" in caplog.text


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    from google.api_core.retry import retry_unary

    recorded: list[float] = []
    # A stand-in for the module's ``time`` only: patching ``time.sleep`` itself made every other
    # thread's sleep (a server's poll loop) return at once and land in the list, millions of times.
    clock = types.SimpleNamespace(sleep=recorded.append, monotonic=time.monotonic, time=time.time)
    monkeypatch.setattr(retry_unary, "time", clock)
    return recorded


def _failing(error: Exception) -> tuple[list[int], object]:
    calls: list[int] = []

    def call() -> None:
        calls.append(1)
        raise error

    return calls, call


def test_gcs_retry_makes_max_retries_retries_with_growing_jittered_waits(sleeps: list[float]) -> None:
    from google.api_core.exceptions import ServiceUnavailable

    settings = GcsSettings(http_max_retries=4, http_retry_interval_ms=100, http_retry_timeout_multiplier=3.0)
    calls, call = _failing(ServiceUnavailable("busy"))

    with pytest.raises(ServiceUnavailable):
        gcs_retry_policy(settings)(call)()  # type: ignore[arg-type]

    assert len(calls) == 5
    assert len(sleeps) == 4
    assert all(0 <= wait <= 0.1 * 3.0**n for n, wait in enumerate(sleeps))


def test_gcs_retry_waits_are_capped_and_no_deadline_cuts_the_budget_short(sleeps: list[float]) -> None:
    from google.api_core.exceptions import ServiceUnavailable

    settings = GcsSettings(http_max_retries=30, http_retry_interval_ms=10_000, http_retry_timeout_multiplier=10.0)
    calls, call = _failing(ServiceUnavailable("busy"))
    with pytest.raises(ServiceUnavailable):
        gcs_retry_policy(settings)(call)()  # type: ignore[arg-type]
    assert len(calls) == 31  # 30 waits of up to 20 s: far past api-core's default 120 s deadline
    assert max(sleeps) <= MAX_BACKOFF_S and sum(sleeps) > 120


def test_each_gcs_retry_policy_has_its_own_budget(sleeps: list[float]) -> None:
    from google.api_core.exceptions import ServiceUnavailable

    settings = GcsSettings(http_max_retries=1, http_retry_interval_ms=1)
    first_calls, first = _failing(ServiceUnavailable("busy"))
    second_calls, second = _failing(ServiceUnavailable("busy"))
    for call in (first, second):
        with pytest.raises(ServiceUnavailable):
            gcs_retry_policy(settings)(call)()  # type: ignore[arg-type]
    assert (len(first_calls), len(second_calls)) == (2, 2)


@pytest.mark.parametrize("error_name", ["PreconditionFailed", "NotFound", "Forbidden"])
def test_gcs_retry_leaves_permanent_failures_alone(sleeps: list[float], error_name: str) -> None:
    from google.api_core import exceptions

    calls, call = _failing(getattr(exceptions, error_name)("no"))
    with pytest.raises(getattr(exceptions, error_name)):
        gcs_retry_policy(GcsSettings(http_max_retries=5))(call)()  # type: ignore[arg-type]
    assert len(calls) == 1 and not sleeps


@pytest.mark.parametrize(("status", "retried"), [(503, True), (429, True), (412, False), (404, False)])
def test_gcs_retry_classifies_media_layer_responses_by_status(sleeps: list[float], status: int, retried: bool) -> None:
    import requests
    from google.cloud.storage.exceptions import InvalidResponse

    response = requests.Response()
    response.status_code = status
    calls, call = _failing(InvalidResponse(response, "unexpected status"))
    with pytest.raises(InvalidResponse):
        gcs_retry_policy(GcsSettings(http_max_retries=2, http_retry_interval_ms=1))(call)()  # type: ignore[arg-type]
    assert len(calls) == (3 if retried else 1)


def test_azure_settings_become_a_linear_retry_with_the_interval_and_one_budget_for_every_failure() -> None:
    from azure.storage.blob import LinearRetry

    settings = AzureSettings(auth_mode="Credentials", account_name="acct", account_key=Secret("a2V5"),
                             endpoint="http://127.0.0.1:9/acct", http_max_retries=7, http_retry_interval_ms=200)
    policy = azure_retry_policy(settings)

    assert isinstance(policy, LinearRetry)
    assert (policy.total_retries, policy.connect_retries, policy.read_retries, policy.status_retries) == (7, 7, 7, 7)
    assert all(0.1 <= policy.get_backoff_time({"count": n}) <= 0.3 for n in range(1, 50))
    wired = AzureBlobObjectStore(settings).client._config.retry_policy
    assert isinstance(wired, LinearRetry) and (wired.backoff, wired.total_retries) == (0.2, 7)
