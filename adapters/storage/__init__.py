"""The storage backend registry: backend name → adapter class, imported only when first used.

Each adapter (and its SDK) is imported when its backend is first opened, then cached. Third-party
backends join through the ``lakesink.storage`` entry-point group (``name = "package.module:Class"``)
and :func:`register_backend`, as the built-in ones, so this table is the single source of truth. An
adapter class takes the backend's settings object as its only argument.
See docs/storage.md, "Adding a backend".
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from lakesink.domain.config.backends import BackendSettings, S3Settings
from lakesink.domain.errors import (
    BackendNotInstalledError,
    ConfigError,
    MissingExtraError,
    UnknownBackendError,
)
from lakesink.domain.extras import needs_extra
from lakesink.domain.ports import ObjectStore

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "lakesink.storage"


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """Where a backend's adapter class lives and what to install when it is missing."""

    target: str  # "package.module:ClassName"
    install_hint: str
    extra: str = ""  # a built-in backend's extra of lakesink ("s3"), named when its SDK is missing


_backends: dict[str, BackendSpec] = {}
_classes: dict[str, type[Any]] = {}
_lock = threading.Lock()
_entry_points_loaded = False


def register_backend(name: str, target: str, *, install_hint: str = "", replace: bool = False) -> None:
    """Make ``name`` open the adapter class at ``target`` (``"module:Class"``).

    Raises:
        ConfigError: ``name`` is already registered and ``replace`` is false, or ``target`` is
            not of the form ``module:Class``.
    """
    module, _, attribute = target.partition(":")
    if not module or not attribute:
        raise ConfigError(f"Storage backend {name!r}: target {target!r} must look like 'package.module:Class'.")
    with _lock:
        if name in _backends and not replace:
            raise ConfigError(
                f"Storage backend {name!r} is already registered ({_backends[name].target}); "
                "pass replace=True to override it."
            )
        _backends[name] = BackendSpec(target, install_hint or f"install the package providing {module}")
        _classes.pop(name, None)


def backend_class(name: str) -> type[Any]:
    """The adapter class of ``name``, imported on first use.

    Raises:
        UnknownBackendError: nothing is registered under ``name``.
        MissingExtraError: a built-in backend's SDK is not installed (its extra names it).
        BackendNotInstalledError: the adapter or its SDK cannot be imported.
    """
    _load_entry_points()
    with _lock:
        cached = _classes.get(name)
        spec = _backends.get(name)
    if cached is not None:
        return cached
    if spec is None:
        known = ", ".join(sorted(_backends))
        raise UnknownBackendError(f"Unknown storage backend {name!r}; known backends: {known}.")
    module_name, _, attribute = spec.target.partition(":")
    try:
        with needs_extra(spec.extra) if spec.extra else contextlib.nullcontext():
            cls = getattr(importlib.import_module(module_name), attribute)
    except MissingExtraError:
        raise
    except (ImportError, AttributeError) as exc:
        raise BackendNotInstalledError(
            f"Storage backend {name!r} is not available ({exc}); {spec.install_hint}."
        ) from exc
    with _lock:
        _classes[name] = cls
    return cls


def backend_extra(name: str) -> str:
    """The extra of lakesink a run on backend ``name`` needs: the store's own (``s3``), which brings
    the data path too, or the data path's (``spark``) for the local directory and other backends."""
    spec = _backends.get(name)
    return spec.extra if spec is not None and spec.extra else "spark"


def open_store(name: str, settings: BackendSettings) -> ObjectStore:
    """Build the adapter for backend ``name`` from its settings (no network call is made).

    Raises:
        UnknownBackendError, MissingExtraError, BackendNotInstalledError
    """
    store: ObjectStore = backend_class(name)(settings)
    logger.info("Opened storage backend %s (%s)", name, type(store).__name__)
    return store


def settled_storage(settings: BackendSettings, bucket: str, probe_key: str, *, writes: bool) -> BackendSettings:
    """``settings`` with what a run must find out from the store at start decided, so that every
    client of the run (executors' included, built from the settings) asks the same way.

    Only S3 has something to decide: whether the store takes boto3's default request checksums
    (:mod:`.s3_checksums`); ``probe_key`` in ``bucket`` is written, read and deleted (``writes``),
    or only read, and must not exist then. Other backends' settings come back unchanged.

    Raises:
        StorageError: the store refused the probe whatever the client sent.
    """
    if not isinstance(settings, S3Settings):
        return settings
    from lakesink.adapters.storage.s3_checksums import settle_checksums

    return settle_checksums(settings, bucket, probe_key, writes=writes)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _backends:
            logger.warning("Ignoring entry point %s=%s: backend already registered", point.name, point.value)
            continue
        register_backend(point.name, point.value, install_hint=f"reinstall the distribution providing {point.value}")


# The built-in backends, by the extra of lakesink that brings each one's SDK ("" ships with the core).
_BUILT_IN = {
    "memory": ("lakesink.adapters.storage.memory:InMemoryObjectStore", ""),
    "local": ("lakesink.adapters.storage.local:LocalObjectStore", ""),
    "s3": ("lakesink.adapters.storage.s3:S3ObjectStore", "s3"),
    "gcs": ("lakesink.adapters.storage.gcs:GcsObjectStore", "gcs"),
    "azure": ("lakesink.adapters.storage.azure_blob:AzureBlobObjectStore", "azure"),
}
_backends.update(
    {name: BackendSpec(target, "it ships with lakesink", extra) for name, (target, extra) in _BUILT_IN.items()}
)
