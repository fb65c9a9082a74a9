"""Backend detection and typed backend settings in one call, for tests of the backend parsers.

Production loads a whole config (``ConnectorSettings.from_properties``, which also checks every
key against the catalog); these tests look at the storage part alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.backend_parsing import backend_settings, detect_backend, normalise_keys
from lakesink.domain.config.backends import BackendSettings
from lakesink.domain.config.reader import PropertyReader


def parse_backend(props: Mapping[str, str]) -> tuple[str, BackendSettings]:
    """The backend name and its typed settings."""
    normalised = normalise_keys(props)
    backend, prefix = detect_backend(normalised)
    return backend, backend_settings(backend, PropertyReader(normalised, prefix))
