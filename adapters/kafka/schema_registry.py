"""The Avro converter's Schema Registry client: writer schemas by id, through Confluent's own client.

Maps the Confluent converter's settings (as Kafka Connect spells them, ``value.converter.``
stripped) onto :class:`SchemaRegistryClient`'s configuration, keeps one parsed schema per id (a
schema never changes under its id) and turns its errors into lakesink's. See docs/kafka.md,
"Converters".
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka.schema_registry import SchemaRegistryClient as ConfluentRegistryClient
from confluent_kafka.schema_registry.error import OAuthTokenError
from confluent_kafka.schema_registry.error import SchemaRegistryError as ConfluentRegistryError

try:  # the HTTP client the registry client runs on: httpx2 where installed, else httpx (its own rule)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - only without httpx2
    import httpx  # type: ignore[no-redef]

from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_choice, as_float, as_int
from lakesink.domain.errors import ConfigError, LakesinkError

URL = "schema.registry.url"
CREDENTIALS_SOURCE = "basic.auth.credentials.source"
USER_INFO = "basic.auth.user.info"
TIMEOUT = "schema.registry.timeout.seconds"
TIMEOUT_DEFAULT_S = 10.0
SSL = "schema.registry.ssl."

# The converter's TLS settings → the client's. Java's trust and key stores of type PEM are PEM
# files too; JKS and PKCS12 stores are not readable here (the refusal says what to use).
_TLS_PATHS = {
    "ca.location": "ssl.ca.location",
    "certificate.location": "ssl.certificate.location",
    "key.location": "ssl.key.location",
}
_PEM_STORES = {"truststore": "ssl.ca.location", "keystore": "ssl.certificate.location"}
_KEY_PASSWORD = "key.password"
# Bearer tokens and OAuth: the same names in Confluent's converter and client.
BEARER_SOURCE = "bearer.auth.credentials.source"
_BEARER_SOURCES = {"static_token": "STATIC_TOKEN", "oauthbearer": "OAUTHBEARER"}
_BEARER_SETTINGS = (
    "bearer.auth.logical.cluster",
    "bearer.auth.identity.pool.id",
    "bearer.auth.issuer.endpoint.url",
    "bearer.auth.client.id",
    "bearer.auth.scope",
)
_BEARER_SECRETS = ("bearer.auth.token", "bearer.auth.client.secret")
# Retries of each request (per URL), with exponential backoff: the client's, under the Java names.
_RETRY_SETTINGS = ("max.retries", "retries.wait.ms", "retries.max.wait.ms")


class SchemaRegistryError(LakesinkError, ConnectionError):
    """The Schema Registry could not be reached or answered with an error."""


class SchemaNotFoundError(SchemaRegistryError, LookupError):
    """The registry does not know the schema id a message refers to."""


@dataclass(frozen=True, slots=True)
class RegistrySettings:
    """Where the registry is and how to reach it; every secret is a :class:`Secret`.

    ``urls`` hold no user info: credentials written in a URL are moved to ``user_info``.
    ``options`` are the client's other settings (TLS files, bearer/OAuth, retries) by its names.
    """

    urls: tuple[str, ...]
    user_info: Secret | None = field(default=None, repr=False)
    timeout_s: float = TIMEOUT_DEFAULT_S
    options: tuple[tuple[str, str | int | Secret], ...] = ()

    @classmethod
    def from_settings(cls, settings: Mapping[str, str | Secret]) -> RegistrySettings:
        """Read the Confluent converter settings (already stripped of ``value.converter.``)."""
        raw_urls = settings.get(URL)
        if not raw_urls:
            raise ConfigError(f"Missing required setting {URL} for the Avro converter.")
        written = [u.strip().rstrip("/") for u in _plain(raw_urls).split(",") if u.strip()]
        source = as_choice(
            CREDENTIALS_SOURCE,
            _plain(settings.get(CREDENTIALS_SOURCE, "URL")),
            {"user_info": "USER_INFO", "url": "URL"},
        )
        if source == "USER_INFO":
            raw = settings.get(USER_INFO)
            if not raw:
                raise ConfigError(f"{CREDENTIALS_SOURCE}=USER_INFO needs {USER_INFO} (user:password).")
            user_info: Secret | None = raw if isinstance(raw, Secret) else Secret(raw)
        else:
            user_info = next((Secret(info) for info in map(_url_userinfo, written) if info), None)
        timeout = as_float(TIMEOUT, _plain(settings.get(TIMEOUT, str(TIMEOUT_DEFAULT_S))), minimum=0.1)
        options = {**_tls_options(settings), **_bearer_options(settings), **_retry_options(settings)}
        return cls(tuple(map(_without_userinfo, written)), user_info, timeout, tuple(options.items()))

    def client_config(self) -> dict[str, Any]:
        """The configuration of Confluent's client, secrets revealed: hand it to the client only."""
        config: dict[str, Any] = {"url": ",".join(self.urls), "timeout": self.timeout_s}
        if self.user_info is not None:
            config[USER_INFO] = self.user_info.reveal()
        config.update({key: _plain(value) if isinstance(value, Secret) else value for key, value in self.options})
        return config


class SchemaRegistryClient:
    """Fetches Avro writer schemas by id, each id once; safe to pickle (settings only: an
    executor builds its own client).

    ``confluent_kafka.schema_registry.SchemaRegistryClient`` brings what a registry in production asks
    of a client: TLS with a private CA, mutual TLS, basic auth, bearer tokens and OAuth, and retries
    with backoff on each URL before the next is tried. Secrets (``basic.auth.user.info``, credentials
    in a URL, the key's password, tokens, the OAuth client secret) stay
    :class:`~lakesink.domain.config.secret.Secret` until handed to the library and never reach a
    message or a log line: URLs are reported without their user info.
    """

    def __init__(self, settings: RegistrySettings) -> None:
        """Builds Confluent's client once here, where the config is read, so that settings it
        refuses (a key without its certificate, an unreadable CA file) fail the start."""
        self._settings = settings
        self._schemas: dict[int, dict[str, Any] | list[Any] | str] = {}
        self._client: ConfluentRegistryClient | None = _confluent_client(settings)

    def __getstate__(self) -> RegistrySettings:
        return self._settings

    def __setstate__(self, settings: RegistrySettings) -> None:
        """An executor's copy builds its client (an HTTP session, a TLS context: ~50 ms) on its
        first fetch, not in every task that only unpickles it."""
        self._settings = settings
        self._schemas = {}
        self._client = None

    def schema(self, schema_id: int) -> dict[str, Any] | list[Any] | str:
        """The parsed Avro schema JSON registered under ``schema_id``."""
        cached = self._schemas.get(schema_id)
        if cached is None:
            cached = self._fetch(schema_id)
            self._schemas[schema_id] = cached
        return cached

    def _fetch(self, schema_id: int) -> dict[str, Any] | list[Any] | str:
        if self._client is None:
            self._client = _confluent_client(self._settings)
        try:
            registered = self._client.get_schema(schema_id)
        except ConfluentRegistryError as exc:
            if exc.http_status_code == 404:
                raise SchemaNotFoundError(
                    f"Schema Registry has no schema id {schema_id} (HTTP 404: {exc.error_message})"
                ) from None
            raise SchemaRegistryError(
                f"HTTP {exc.http_status_code} from the Schema Registry for schema id {schema_id}: {exc.error_message}"
            ) from None
        except (httpx.HTTPError, OAuthTokenError, OSError) as exc:  # after the client's retries on every URL
            raise SchemaRegistryError(
                f"No Schema Registry answered for schema id {schema_id} at {', '.join(self._settings.urls)}: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        if registered.schema_type != "AVRO":
            raise SchemaRegistryError(f"Schema id {schema_id} is {registered.schema_type}, the converter reads AVRO")
        parsed: dict[str, Any] | list[Any] | str = json.loads(registered.schema_str)
        return parsed


def _confluent_client(settings: RegistrySettings) -> ConfluentRegistryClient:
    try:
        return ConfluentRegistryClient(settings.client_config())
    except (ValueError, TypeError, OSError) as exc:  # its refusals name its keys, never a value
        raise ConfigError(f"Invalid Schema Registry settings for the Avro converter: {exc}") from None


def _tls_options(settings: Mapping[str, str | Secret]) -> dict[str, str | Secret]:
    options: dict[str, str | Secret] = {}
    for key, value in settings.items():
        if not key.startswith(SSL):
            continue
        name = key[len(SSL):]
        store, _, part = name.partition(".")
        if name in _TLS_PATHS:
            options[_TLS_PATHS[name]] = _plain(value)
        elif name == _KEY_PASSWORD:
            options["ssl.key.password"] = value if isinstance(value, Secret) else Secret(value)
        elif store in _PEM_STORES and part in ("location", "type"):
            if part == "location":
                options[_PEM_STORES[store]] = _plain(value)
            kind = _plain(settings.get(f"{SSL}{store}.type", "JKS")).strip().upper()
            if kind != "PEM":
                raise ConfigError(
                    f"{SSL}{store}.type={kind}: only PEM files are read; convert the store to PEM and set "
                    f"{SSL}{store}.type=PEM, or use {SSL}{'ca.location' if store == 'truststore' else 'certificate.location'}."
                )
        elif name not in ("truststore.password", "keystore.password"):  # a PEM file has none
            known = ", ".join(SSL + k for k in [*_TLS_PATHS, _KEY_PASSWORD, "truststore.location", "keystore.location"])
            raise ConfigError(f"Unsupported setting {key}: the Avro converter's Schema Registry TLS settings are {known}.")
    return options


def _bearer_options(settings: Mapping[str, str | Secret]) -> dict[str, str | Secret]:
    raw = settings.get(BEARER_SOURCE)
    if raw is None:
        return {}
    options: dict[str, str | Secret] = {BEARER_SOURCE: as_choice(BEARER_SOURCE, _plain(raw), _BEARER_SOURCES)}
    options.update({key: _plain(settings[key]) for key in _BEARER_SETTINGS if key in settings})
    for key in _BEARER_SECRETS:
        value = settings.get(key)
        if value is not None:
            options[key] = value if isinstance(value, Secret) else Secret(value)
    return options


def _retry_options(settings: Mapping[str, str | Secret]) -> dict[str, int]:
    return {key: as_int(key, _plain(settings[key]), minimum=0) for key in _RETRY_SETTINGS if key in settings}


def _plain(value: str | Secret) -> str:
    return value.reveal() if isinstance(value, Secret) else value


def _url_userinfo(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return None
    return f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"


def _without_userinfo(url: str) -> str:
    """``url`` safe to log or raise: credentials embedded in it are removed."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
