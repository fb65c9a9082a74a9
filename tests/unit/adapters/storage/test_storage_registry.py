"""The backend registry: lazy imports, duplicate protection, clear errors."""

from __future__ import annotations

import sys

import pytest

from lakesink.adapters import storage
from lakesink.adapters.storage import backend_class, open_store, register_backend
from lakesink.domain.config.backends import MemorySettings
from lakesink.domain.errors import BackendNotInstalledError, ConfigError, UnknownBackendError


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test register names without leaking them into other tests."""
    monkeypatch.setattr(storage, "_backends", dict(storage._backends))
    monkeypatch.setattr(storage, "_classes", dict(storage._classes))


def test_built_in_backends_are_registered_by_name() -> None:
    assert {"memory", "local", "s3", "gcs", "azure"} <= set(storage._backends)
    assert storage._backends["s3"].target == "lakesink.adapters.storage.s3:S3ObjectStore"


def test_open_store_builds_the_adapter_from_its_settings() -> None:
    store = open_store("memory", MemorySettings(name="t"))
    assert type(store).__name__ == "InMemoryObjectStore"
    assert store.settings.name == "t"  # type: ignore[attr-defined]


def test_backend_class_is_imported_once_and_cached() -> None:
    assert backend_class("memory") is backend_class("memory")


def test_registering_a_taken_name_twice_is_an_error(scratch_registry: None) -> None:
    with pytest.raises(ConfigError, match="already registered"):
        register_backend("s3", "somewhere:Else")


def test_replace_true_overrides_a_registered_backend(scratch_registry: None) -> None:
    register_backend("memory", "lakesink.adapters.storage.local:LocalObjectStore", replace=True)
    assert backend_class("memory").__name__ == "LocalObjectStore"


def test_an_unknown_backend_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownBackendError, match="memory"):
        open_store("ftp", MemorySettings())


def test_a_backend_whose_module_is_missing_raises_not_installed_with_the_hint(scratch_registry: None) -> None:
    register_backend("exotic", "lakesink_exotic_backend:Store", install_hint="pip install lakesink-exotic")
    with pytest.raises(BackendNotInstalledError, match="pip install lakesink-exotic"):
        backend_class("exotic")


def test_a_malformed_target_is_rejected_at_registration(scratch_registry: None) -> None:
    with pytest.raises(ConfigError, match="module:Class"):
        register_backend("bad", "no_colon_here")


def test_importing_the_registry_does_not_import_any_cloud_sdk() -> None:
    import subprocess

    code = ("import sys, lakesink.adapters.storage as s; "
            "print(any(m.split('.')[0] in ('boto3','botocore','google','azure') for m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_entry_points_feed_the_same_registration_function(
    scratch_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.metadata import EntryPoint

    point = EntryPoint("plugged", "lakesink.adapters.storage.memory:InMemoryObjectStore", storage.ENTRY_POINT_GROUP)
    monkeypatch.setattr(storage, "entry_points", lambda group: [point] if group == storage.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(storage, "_entry_points_loaded", False)
    assert backend_class("plugged").__name__ == "InMemoryObjectStore"
    assert "plugged" in storage._backends
