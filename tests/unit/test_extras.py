"""Which extra a missing optional module asks for, and the one line that says so."""

from __future__ import annotations

import sys

import pytest

from lakesink.adapters.storage import backend_extra
from lakesink.adapters.storage.client_cache import shared_client
from lakesink.domain.errors import MissingExtraError
from lakesink.domain.extras import missing_extra, needs_extra


@pytest.mark.parametrize(
    ("module", "extra"),
    [("pyspark.sql", "spark"), ("confluent_kafka", "spark"), ("botocore.exceptions", "s3"),
     ("google.cloud.storage", "gcs"), ("azure.identity", "azure"), ("pyiceberg", "iceberg"),
     ("deltalake", "delta"), ("moto.server", "demo")],
)
def test_a_missing_module_names_the_extra_that_installs_it(module: str, extra: str) -> None:
    missing = missing_extra(ModuleNotFoundError(f"No module named {module!r}", name=module))
    assert missing is not None
    assert (missing.extra, missing.module) == (extra, module.partition(".")[0])


def test_a_module_no_extra_installs_is_a_bug_not_a_missing_extra() -> None:
    assert missing_extra(ModuleNotFoundError("No module named 'lakesink.nowhere'", name="lakesink.nowhere")) is None
    with pytest.raises(ModuleNotFoundError, match="lakesink.nowhere"), needs_extra("s3"):
        raise ModuleNotFoundError("No module named 'lakesink.nowhere'", name="lakesink.nowhere")


def test_inside_a_feature_the_features_own_extra_is_named_in_one_line() -> None:
    with pytest.raises(MissingExtraError) as raised, needs_extra("s3"):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
    assert raised.value.line("lakesink sink") == (
        "lakesink sink needs the s3 extra (pyarrow is not installed): pip install 'lakesink[s3]'"
    )
    assert isinstance(raised.value, ImportError)  # what `import lakesink.spark` callers catch


def test_each_store_names_its_own_extra_and_the_local_directory_the_data_path() -> None:
    assert [backend_extra(name) for name in ("s3", "gcs", "azure", "local", "memory")] == [
        "s3", "gcs", "azure", "spark", "spark"
    ]


def test_a_store_whose_sdk_is_missing_names_its_extra_when_its_client_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)  # what Python's import does for an absent package

    def build(_settings: object) -> object:
        import boto3

        return boto3

    with pytest.raises(MissingExtraError) as raised:
        shared_client("s3", "settings of a store without boto3", build)
    assert (raised.value.extra, raised.value.module) == ("s3", "boto3")
