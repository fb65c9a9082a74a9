"""A minimal Confluent Schema Registry client: fetch a writer schema by id, cached.

The Avro converter needs exactly one call, ``GET /schemas/ids/{id}``; a full client library
would be a heavy dependency for that. Schemas never change under an id, so each id is fetched
once per client. Settings follow the Confluent converter names:
``schema.registry.url`` (comma-separated URLs tried in order),
``basic.auth.credentials.source`` (``USER_INFO`` or ``URL``) and ``basic.auth.user.info``
(``user:password``, a :class:`~lakesink.domain.config.secret.Secret`).
"""

from __future__ import annotations

import base64
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lakesink.domain.config.secret import Secret
from lakesink.domain.config.values import as_choice, as_float
from lakesink.domain.errors import ConfigError, LakesinkError

logger = logging.getLogger(__name__)

URL = "schema.registry.url"
CREDENTIALS_SOURCE = "basic.auth.credentials.source"
USER_INFO = "basic.auth.user.info"
TIMEOUT = "schema.registry.timeout.seconds"
TIMEOUT_DEFAULT_S = 10.0


class SchemaRegistryError(LakesinkError, ConnectionError):
    """The Schema Registry could not be reached or answered with an error."""


class SchemaNotFoundError(SchemaRegistryError, LookupError):
    """The registry does not know the schema id a message refers to."""


@dataclass(frozen=True, slots=True)
class RegistrySettings:
    """Where the registry is and how to authenticate; the password never prints."""

    urls: tuple[str, ...]
    user_info: Secret | None = field(default=None, repr=False)
    timeout_s: float = TIMEOUT_DEFAULT_S

    @classmethod
    def from_settings(cls, settings: Mapping[str, str | Secret]) -> RegistrySettings:
        """Read the Confluent converter settings (already stripped of ``value.converter.``)."""
        raw_urls = settings.get(URL)
        if not raw_urls:
            raise ConfigError(f"Missing required setting {URL} for the Avro converter.")
        urls = tuple(u.strip().rstrip("/") for u in str(_plain(raw_urls)).split(",") if u.strip())
        source = as_choice(
            CREDENTIALS_SOURCE,
            str(_plain(settings.get(CREDENTIALS_SOURCE, "URL"))),
            {"user_info": "USER_INFO", "url": "URL"},
        )
        user_info: Secret | None = None
        if source == "USER_INFO":
            raw = settings.get(USER_INFO)
            if not raw:
                raise ConfigError(f"{CREDENTIALS_SOURCE}=USER_INFO needs {USER_INFO} (user:password).")
            user_info = raw if isinstance(raw, Secret) else Secret(raw)
        timeout = as_float(TIMEOUT, str(_plain(settings.get(TIMEOUT, str(TIMEOUT_DEFAULT_S)))), minimum=0.1)
        return cls(urls=urls, user_info=user_info, timeout_s=timeout)


class SchemaRegistryClient:
    """Fetches Avro writer schemas by id; safe to pickle (the cache is dropped)."""

    def __init__(self, settings: RegistrySettings) -> None:
        self._settings = settings
        self._schemas: dict[int, dict[str, Any] | list[Any] | str] = {}

    def __getstate__(self) -> RegistrySettings:
        return self._settings

    def __setstate__(self, settings: RegistrySettings) -> None:
        self._settings = settings
        self._schemas = {}

    def schema(self, schema_id: int) -> dict[str, Any] | list[Any] | str:
        """The parsed Avro schema JSON registered under ``schema_id``."""
        cached = self._schemas.get(schema_id)
        if cached is None:
            cached = self._fetch(schema_id)
            self._schemas[schema_id] = cached
        return cached

    def _fetch(self, schema_id: int) -> dict[str, Any] | list[Any] | str:
        last_error: Exception | None = None
        for base in self._settings.urls:
            try:
                body = self._get(f"{base}/schemas/ids/{schema_id}")
            except SchemaNotFoundError:
                raise
            except SchemaRegistryError as exc:
                last_error = exc
                logger.warning("Schema Registry %s failed: %s", _without_userinfo(base), exc)
                continue
            schema_type = body.get("schemaType", "AVRO")
            if schema_type != "AVRO":
                raise SchemaRegistryError(f"Schema id {schema_id} is {schema_type}, the converter reads AVRO")
            parsed: dict[str, Any] | list[Any] | str = json.loads(body["schema"])
            return parsed
        raise SchemaRegistryError(f"No Schema Registry answered for schema id {schema_id}: {last_error}")

    def _get(self, url: str) -> dict[str, Any]:
        request = urllib.request.Request(_without_userinfo(url), headers=self._headers(url))
        try:
            with urllib.request.urlopen(request, timeout=self._settings.timeout_s) as response:
                body: dict[str, Any] = json.loads(response.read())
                return body
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise SchemaNotFoundError(
                    f"Schema Registry has no schema at {_without_userinfo(url)}"
                ) from None
            raise SchemaRegistryError(f"HTTP {exc.code} from {_without_userinfo(url)}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise SchemaRegistryError(f"{_without_userinfo(url)}: {exc}") from None

    def _headers(self, url: str) -> dict[str, str]:
        headers = {"Accept": "application/vnd.schemaregistry.v1+json, application/json"}
        user_info = self._settings.user_info.reveal() if self._settings.user_info else _url_userinfo(url)
        if user_info:
            headers["Authorization"] = "Basic " + base64.b64encode(user_info.encode()).decode("ascii")
        return headers


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
