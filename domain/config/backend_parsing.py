"""Which storage backend a config targets, and its typed settings.

The backend follows from the key prefix in use (``connect.s3.*`` → s3, ...), or failing that
from a Lenses ``connector.class``. Auth modes, endpoints and HTTP client knobs keep the Lenses
names and defaults; unlike Lenses, a bad value or an incomplete auth mode is an error here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from lakesink.domain.config.backends import (
    BACKEND_PREFIXES,
    AzureSettings,
    BackendSettings,
    GcsSettings,
    LocalSettings,
    MemorySettings,
    S3Settings,
)
from lakesink.domain.config.connector_classes import lenses_target
from lakesink.domain.config.reader import PropertyReader
from lakesink.domain.errors import ConfigError

_S3_MISSING_CREDENTIALS = (
    "Configured to use credentials however one or both of `AWS_ACCESS_KEY` or `AWS_SECRET_KEY` are missing."
)
_S3_DEFAULT_POOL = 50
_S3_MIN_PART = 5 * 1024 * 1024
_S3_CHECKSUM_MODES = {"when_supported": "when_supported", "when_required": "when_required"}


# --- keys and backend detection --------------------------------------------------------------


def prefix_of(key: str) -> str | None:
    """The backend prefix a key starts with (case-insensitively), or None."""
    lowered = key.lower()
    return next((prefix for prefix in BACKEND_PREFIXES if lowered.startswith(prefix + ".")), None)


def normal_key(key: str) -> str:
    """A key as :func:`normalise_keys` spells it: lower-cased under a backend prefix."""
    return key.lower() if prefix_of(key) else key


def normalise_keys(props: Mapping[str, str]) -> dict[str, str]:
    """Lower-case keys under a backend prefix, as Lenses does; other keys stay case-sensitive."""
    result: dict[str, str] = {}
    for key, value in props.items():
        normal = normal_key(key)
        if normal in result:
            raise ConfigError(f"{key} is given twice (keys under connect.<backend>. are case-insensitive).")
        result[normal] = value
    return result


def connector_class_target(props: Mapping[str, str]) -> tuple[str, str] | None:
    """(backend, role) named by a Lenses ``connector.class``, or None for absent/other classes."""
    class_name = props.get("connector.class", "").strip()
    return lenses_target(class_name) if class_name else None


def detect_backend(props: Mapping[str, str]) -> tuple[str, str]:
    """(backend name, key prefix) of a config; mixed prefixes are an error."""
    prefixes = sorted({p for p in map(prefix_of, props) if p is not None})
    if len(prefixes) > 1:
        raise ConfigError(
            f"Settings for more than one storage backend: {', '.join(p + '.*' for p in prefixes)}. "
            "One connector writes to one backend; split the config."
        )
    from_class = connector_class_target(props)
    if prefixes:
        backend = BACKEND_PREFIXES[prefixes[0]]
        if from_class is not None and from_class[0] != backend:
            raise ConfigError(
                f"connector.class {props['connector.class']!r} is a {from_class[0]} connector "
                f"but the settings use {prefixes[0]}.*."
            )
        return backend, prefixes[0]
    if from_class is not None:
        backend = from_class[0]
        return backend, next(p for p, b in BACKEND_PREFIXES.items() if b == backend)
    known = ", ".join(f"{p}.*" for p in BACKEND_PREFIXES)
    raise ConfigError(f"Cannot tell the storage backend: no {known} setting and no Lenses connector.class.")


def backend_settings(backend: str, reader: PropertyReader) -> BackendSettings:
    """Typed settings of an already detected backend, read through ``reader``."""
    return _PARSERS[backend](reader)


# --- shared pieces ---------------------------------------------------------------------------


def _auth_mode(reader: PropertyReader, name: str, modes: tuple[str, ...]) -> str:
    raw = reader.text(name) or ""
    canonical = {mode.lower(): mode for mode in modes}.get(raw.lower())
    if canonical is None:
        raise ConfigError(
            f"Unsupported auth mode `{raw}` for {reader.key(name)}: expected one of {', '.join(modes)}."
        )
    return canonical


def _endpoint(reader: PropertyReader, name: str) -> str | None:
    url = reader.text(name)
    if url is not None and not url.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"Invalid value {url!r} for {reader.key(name)}: expected an http:// or https:// URL."
        )
    return url


def _millis(reader: PropertyReader, name: str) -> int:
    return _required_int(reader, name, minimum=0)


def _required_int(reader: PropertyReader, name: str, *, minimum: int | None = None) -> int:
    value = reader.integer(name, minimum=minimum)
    if value is None:
        raise KeyError(f"{name} has no default in the catalog")
    return value


def _pool_size(reader: PropertyReader) -> int | None:
    """``pool.max.connections``: -1 means "not set"; otherwise at least 1."""
    value = _required_int(reader, "pool.max.connections", minimum=-1)
    if value == 0:
        raise ConfigError(f"Invalid value 0 for {reader.key('pool.max.connections')}: use -1 or at least 1.")
    return None if value == -1 else value


def _reject_unused(reader: PropertyReader, mode_key: str, mode: str, unused: tuple[str, ...]) -> None:
    """Credentials given for another auth mode would be silently ignored: say so instead."""
    given = [reader.key(name) for name in unused if reader.is_set(name)]
    if given:
        raise ConfigError(
            f"{', '.join(given)} set but {reader.key(mode_key)} is {mode}, so they would be ignored; "
            f"set {reader.key(mode_key)} to the mode that uses them or remove them."
        )


# --- one parser per backend ----------------------------------------------------------------


def _parse_s3(reader: PropertyReader) -> S3Settings:
    mode = _auth_mode(reader, "aws.auth.mode", ("Credentials", "Default"))
    access_key, secret_key = reader.secret("aws.access.key"), reader.secret("aws.secret.key")
    if mode == "Credentials" and not (access_key and secret_key):
        raise ConfigError(
            f"{_S3_MISSING_CREDENTIALS} "
            f"Set {reader.key('aws.access.key')} and {reader.key('aws.secret.key')}."
        )
    if mode == "Default":
        _reject_unused(reader, "aws.auth.mode", mode, ("aws.access.key", "aws.secret.key"))
    path_style = reader.boolean("path.style.access")
    if path_style is None:
        path_style = reader.flag("vhost.bucket")  # deprecated and inverted: true means path-style
    part_size = _required_int(reader, "multipart.part.size", minimum=_S3_MIN_PART)
    return S3Settings(
        auth_mode=mode,
        access_key=access_key,
        secret_key=secret_key,
        region=reader.text("aws.region"),
        custom_endpoint=_endpoint(reader, "custom.endpoint"),
        ca_bundle=_ca_bundle(reader),
        path_style_access=path_style,
        http_max_retries=_required_int(reader, "http.max.retries", minimum=0),
        http_retry_interval_ms=_millis(reader, "http.retry.interval"),
        http_socket_timeout_ms=_millis(reader, "http.socket.timeout"),
        http_connection_timeout_ms=_millis(reader, "http.connection.timeout"),
        pool_max_connections=_pool_size(reader) or _S3_DEFAULT_POOL,
        multipart_threshold_bytes=_required_int(reader, "multipart.threshold", minimum=_S3_MIN_PART),
        multipart_part_size_bytes=part_size,
        checksum_calculation=reader.choice("checksum.calculation", _S3_CHECKSUM_MODES),
    )


def _ca_bundle(reader: PropertyReader) -> str | None:
    """An absolute path: a relative one would name another file on each executor (other working directory)."""
    path = reader.text("ca.bundle")
    if path is not None and not path.startswith("/"):
        raise ConfigError(f"{reader.key('ca.bundle')} must be an absolute path (the same on every executor), "
                          f"not {path!r}.")
    return path


def _parse_gcs(reader: PropertyReader) -> GcsSettings:
    mode = _auth_mode(reader, "gcp.auth.mode", ("Credentials", "File", "Default", "None"))
    credentials, credentials_file = reader.secret("gcp.credentials"), reader.text("gcp.file")
    if mode == "Credentials" and not credentials:
        raise ConfigError(f"{reader.key('gcp.auth.mode')} is Credentials but {reader.key('gcp.credentials')} "
                          "is missing.")
    if mode == "File" and not credentials_file:
        raise ConfigError(f"{reader.key('gcp.auth.mode')} is File but {reader.key('gcp.file')} is missing.")
    by_mode = (("gcp.credentials", "Credentials"), ("gcp.file", "File"))
    _reject_unused(reader, "gcp.auth.mode", mode, tuple(name for name, used_by in by_mode if used_by != mode))
    multiplier = reader.number("http.retry.timeout.multiplier", minimum=1.0)
    return GcsSettings(
        auth_mode=mode,
        credentials=credentials,
        credentials_file=credentials_file,
        project_id=reader.text("gcp.project.id"),
        endpoint=_endpoint(reader, "endpoint"),
        http_max_retries=_required_int(reader, "http.max.retries", minimum=0),
        http_retry_interval_ms=_millis(reader, "http.retry.interval"),
        http_retry_timeout_multiplier=3.0 if multiplier is None else multiplier,
        http_socket_timeout_ms=_millis(reader, "http.socket.timeout"),
        http_connection_timeout_ms=_millis(reader, "http.connection.timeout"),
    )


def _parse_azure(reader: PropertyReader) -> AzureSettings:
    mode = _auth_mode(reader, "azure.auth.mode", ("Credentials", "ConnectionString", "Default"))
    account_name = reader.text("azure.account.name")
    account_key = reader.secret("azure.account.key")
    connection_string = reader.secret("azure.connection.string")
    if mode == "Credentials" and not (account_name and account_key):
        raise ConfigError(f"{reader.key('azure.auth.mode')} is Credentials but one or both of "
                          f"{reader.key('azure.account.name')} or {reader.key('azure.account.key')} "
                          "are missing.")
    if mode == "ConnectionString" and not connection_string:
        raise ConfigError(f"{reader.key('azure.auth.mode')} is ConnectionString but "
                          f"{reader.key('azure.connection.string')} is missing.")
    unused = {"Credentials": ("azure.connection.string",),
              "ConnectionString": ("azure.account.key",),
              "Default": ("azure.account.key", "azure.connection.string")}[mode]
    _reject_unused(reader, "azure.auth.mode", mode, unused)
    return AzureSettings(
        auth_mode=mode,
        account_name=account_name,
        account_key=account_key,
        connection_string=connection_string,
        endpoint=_endpoint(reader, "endpoint"),
        http_max_retries=_required_int(reader, "http.max.retries", minimum=0),
        http_retry_interval_ms=_millis(reader, "http.retry.interval"),
        http_socket_timeout_ms=_millis(reader, "http.socket.timeout"),
        http_connection_timeout_ms=_millis(reader, "http.connection.timeout"),
        pool_max_connections=_pool_size(reader),
    )


def _parse_local(reader: PropertyReader) -> LocalSettings:
    root = reader.text("root")
    if root is None:
        raise ConfigError(f"{reader.key('root')} is required: the directory that holds the buckets.")
    return LocalSettings(root=Path(root))


def _parse_memory(reader: PropertyReader) -> MemorySettings:
    return MemorySettings(name=reader.text("name") or "default")


_PARSERS: dict[str, Callable[[PropertyReader], BackendSettings]] = {
    "s3": _parse_s3,
    "gcs": _parse_gcs,
    "azure": _parse_azure,
    "local": _parse_local,
    "memory": _parse_memory,
}
