"""Kafka config providers: ``${provider:[path:]key}`` references in setting values.

References are resolved from the connector config itself, before anything is validated; where
Kafka leaves one it cannot resolve as text, lakesink fails naming the setting (else the reference
could be sent as a password), and no message contains a resolved value. Files and the environment
are reached through :class:`ConfigSource`. See docs/configuration.md, "Config providers".
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath
from typing import Protocol

from lakesink.domain.errors import ConfigError

#: Keys that declare providers; they are never resolved themselves (as on a Kafka Connect worker).
PROVIDERS_KEY = "config.providers"
_PROVIDER_KEY_PREFIX = PROVIDERS_KEY + "."
#: Kafka's ConfigTransformer syntax: ``${alias:key}`` or ``${alias:path:key}``; ``}`` ends a reference.
_REFERENCE = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")
_ALLOWED_PATHS = "allowed.paths"
_ALLOWLIST_PATTERN = "allowlist.pattern"


class ConfigSourceError(Exception):
    """A :class:`ConfigSource` could not read what a reference names.

    The message names the path and the reason (``No such file or directory``), never content.
    """


class ConfigSource(Protocol):
    """Where provider values come from: files and the process environment."""

    def read_properties(self, path: str) -> Mapping[str, str]:
        """Every entry of the Java ``.properties`` file at ``path`` (UTF-8).

        Raises:
            ConfigSourceError: the file cannot be read or is not valid ``.properties`` text.
        """
        ...

    def read_file(self, directory: str, name: str) -> str:
        """The whole content (UTF-8) of the regular file ``name`` directly inside ``directory``.

        Raises:
            ConfigSourceError: ``directory`` is not a directory, or has no regular file ``name``.
        """
        ...

    def environment(self, name: str) -> str | None:
        """The environment variable ``name``, or None when it is not set."""
        ...

    def path_exists(self, path: str) -> bool:
        """Whether anything exists at ``path`` (checks the entries of ``allowed.paths``)."""
        ...


class ProviderKind(Enum):
    """Kafka's provider classes lakesink implements, by their Java names."""

    FILE = "org.apache.kafka.common.config.provider.FileConfigProvider"
    DIRECTORY = "org.apache.kafka.common.config.provider.DirectoryConfigProvider"
    ENV = "org.apache.kafka.common.config.provider.EnvVarConfigProvider"

    @property
    def simple_name(self) -> str:
        """The class name without its package, for messages."""
        return self.value.rsplit(".", 1)[-1]


#: The ``param.*`` names each provider reads (Kafka's providers take no others).
_PARAMETERS = {
    ProviderKind.FILE: (_ALLOWED_PATHS,),
    ProviderKind.DIRECTORY: (_ALLOWED_PATHS,),
    ProviderKind.ENV: (_ALLOWLIST_PATTERN,),
}


@dataclass(frozen=True, slots=True)
class ResolvedConfig:
    """A config with its provider references replaced.

    Attributes:
        values: every key of the config; values that held references hold the resolved text.
        provided: the keys whose value contained at least one reference; whatever they hold
            must be treated as a secret (it came from outside the config file).
    """

    values: dict[str, str]
    provided: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Reference:
    text: str
    alias: str
    path: str
    key: str


@dataclass(frozen=True, slots=True)
class _Provider:
    alias: str
    kind: ProviderKind
    allowed_paths: tuple[PurePosixPath, ...] | None = None  # None: every path
    allowlist: re.Pattern[str] | None = None  # None: every variable

    def parameter_key(self, name: str) -> str:
        return f"{_PROVIDER_KEY_PREFIX}{self.alias}.param.{name}"


def has_reference(value: str) -> bool:
    """Whether ``value`` holds a ``${provider:...}`` reference (its secret is elsewhere)."""
    return _REFERENCE.search(value) is not None


def is_provider_key(key: str) -> bool:
    """Whether ``key`` declares or configures a config provider (``config.providers*``)."""
    return key == PROVIDERS_KEY or key.startswith(_PROVIDER_KEY_PREFIX)


def resolve_references(props: Mapping[str, str], source: ConfigSource) -> ResolvedConfig:
    """Replace every ``${alias:[path:]key}`` reference with the value its provider gives.

    A value may hold several references and text around them; resolved text is not scanned
    again. ``config.providers*`` keys are kept and never resolved.

    Raises:
        ConfigError: a provider declaration is invalid (naming its key), or a reference cannot
            be resolved (naming the setting that holds it and the reference, never a value).
    """
    providers = _declared_providers(props, source)
    values = dict(props)
    provided: set[str] = set()
    for key, value in props.items():
        if is_provider_key(key) or not _REFERENCE.search(value):
            continue
        values[key] = _REFERENCE.sub(
            lambda match, k=key: _lookup(k, _reference(match), providers, source), value
        )
        provided.add(key)
    return ResolvedConfig(values, frozenset(provided))


# --- declarations ----------------------------------------------------------------------------


def _declared_providers(props: Mapping[str, str], source: ConfigSource) -> dict[str, _Provider]:
    aliases = [alias.strip() for alias in props.get(PROVIDERS_KEY, "").split(",") if alias.strip()]
    providers = {alias: _provider(props, alias, source) for alias in dict.fromkeys(aliases)}
    for key in props:
        if key.startswith(_PROVIDER_KEY_PREFIX):
            _check_declaration_key(key, providers)
    return providers


def _provider(props: Mapping[str, str], alias: str, source: ConfigSource) -> _Provider:
    class_key = f"{_PROVIDER_KEY_PREFIX}{alias}.class"
    class_name = props.get(class_key, "").strip()
    if not class_name:
        raise ConfigError(f"{class_key} is required: {PROVIDERS_KEY} lists {alias!r}.")
    kind = next((kind for kind in ProviderKind if kind.value == class_name), None)
    if kind is None:
        supported = ", ".join(kind.value for kind in ProviderKind)
        raise ConfigError(
            f"Unsupported config provider class {class_name} in {class_key}; supported: {supported}."
        )
    bare = _Provider(alias, kind)
    if kind is ProviderKind.ENV:
        pattern_key = bare.parameter_key(_ALLOWLIST_PATTERN)
        return dataclasses.replace(bare, allowlist=_allowlist(pattern_key, props.get(pattern_key)))
    paths_key = bare.parameter_key(_ALLOWED_PATHS)
    return dataclasses.replace(
        bare, allowed_paths=_allowed_paths(paths_key, props.get(paths_key, ""), source)
    )


def _check_declaration_key(key: str, providers: Mapping[str, _Provider]) -> None:
    """Every ``config.providers.<alias>.*`` key must configure a listed provider."""
    rest = key[len(_PROVIDER_KEY_PREFIX) :]
    alias = next((a for a in sorted(providers, key=len, reverse=True) if rest.startswith(a + ".")), None)
    if alias is None:
        raise ConfigError(f"{key} configures a provider that {PROVIDERS_KEY} does not list.")
    setting = rest[len(alias) + 1 :]
    if setting == "class":
        return
    kind = providers[alias].kind
    if not setting.startswith("param.") or setting[len("param.") :] not in _PARAMETERS[kind]:
        allowed = ", ".join(f"param.{name}" for name in _PARAMETERS[kind])
        raise ConfigError(f"Unknown setting {key}: a {kind.simple_name} takes class and {allowed}.")


def _allowed_paths(key: str, raw: str, source: ConfigSource) -> tuple[PurePosixPath, ...] | None:
    """Kafka's ``allowed.paths``: absolute, existing paths; empty means no restriction."""
    if not raw.strip():
        return None
    paths = []
    for entry in (part.strip() for part in raw.split(",")):
        normal = posixpath.normpath(entry) if entry else ""
        if not posixpath.isabs(normal):
            raise ConfigError(f"Invalid path {entry!r} in {key}: allowed paths must be absolute.")
        if not source.path_exists(normal):
            raise ConfigError(f"Invalid path {entry!r} in {key}: it does not exist.")
        paths.append(PurePosixPath(normal))
    return tuple(paths)


def _allowlist(key: str, raw: str | None) -> re.Pattern[str] | None:
    """Kafka's ``allowlist.pattern``: variables whose name it matches anywhere (not anchored)."""
    if raw is None:
        return None
    try:
        return re.compile(raw)
    except re.error as error:
        raise ConfigError(f"Invalid regular expression in {key}: {error}.") from None


# --- lookups ---------------------------------------------------------------------------------


def _reference(match: re.Match[str]) -> _Reference:
    return _Reference(
        text=match.group(0), alias=match.group(1), path=match.group(3) or "", key=match.group(4)
    )


def _lookup(setting: str, ref: _Reference, providers: Mapping[str, _Provider], source: ConfigSource) -> str:
    provider = providers.get(ref.alias)
    if provider is None:
        declared = ", ".join(providers) if providers else "none"
        raise ConfigError(
            f"{setting} refers to config provider {ref.alias!r} in {ref.text}, which {PROVIDERS_KEY} "
            f"does not declare (declared: {declared})."
        )
    lookup = _LOOKUPS[provider.kind]
    return lookup(setting, ref, provider, source)


def _from_file(setting: str, ref: _Reference, provider: _Provider, source: ConfigSource) -> str:
    path = _allowed_path(setting, ref, provider)
    try:
        entries = source.read_properties(path)
    except ConfigSourceError as error:
        raise ConfigError(f"{setting}: cannot resolve {ref.text}: {error}") from None
    value = entries.get(ref.key)
    if value is None:
        raise ConfigError(f"{setting}: cannot resolve {ref.text}: {path} has no key {ref.key!r}.")
    return value


def _from_directory(setting: str, ref: _Reference, provider: _Provider, source: ConfigSource) -> str:
    directory = _allowed_path(setting, ref, provider)
    if not _is_file_name(ref.key):
        raise ConfigError(f"{setting}: cannot resolve {ref.text}: {ref.key!r} is not a file name.")
    try:
        return source.read_file(directory, ref.key)
    except ConfigSourceError as error:
        raise ConfigError(f"{setting}: cannot resolve {ref.text}: {error}") from None


def _from_environment(setting: str, ref: _Reference, provider: _Provider, source: ConfigSource) -> str:
    if ref.path:
        raise ConfigError(
            f"{setting}: cannot resolve {ref.text}: an EnvVarConfigProvider reference takes no path "
            f"(write ${{{ref.alias}:NAME}})."
        )
    if provider.allowlist is not None and not provider.allowlist.search(ref.key):
        raise ConfigError(
            f"{setting}: cannot resolve {ref.text}: {ref.key} does not match "
            f"{provider.parameter_key(_ALLOWLIST_PATTERN)}."
        )
    value = source.environment(ref.key)
    if value is None:
        raise ConfigError(
            f"{setting}: cannot resolve {ref.text}: the environment variable {ref.key} is not set."
        )
    return value


_LOOKUPS: dict[ProviderKind, Callable[[str, _Reference, _Provider, ConfigSource], str]] = {
    ProviderKind.FILE: _from_file,
    ProviderKind.DIRECTORY: _from_directory,
    ProviderKind.ENV: _from_environment,
}


def _allowed_path(setting: str, ref: _Reference, provider: _Provider) -> str:
    """The path to read: normalised when ``allowed.paths`` restricts it, as Kafka does."""
    if not ref.path:
        raise ConfigError(
            f"{setting}: cannot resolve {ref.text}: a {provider.kind.simple_name} reference needs a path "
            f"(write ${{{ref.alias}:PATH:KEY}})."
        )
    if provider.allowed_paths is None:
        return ref.path
    normal = PurePosixPath(posixpath.normpath(ref.path))
    if not any(normal.is_relative_to(allowed) for allowed in provider.allowed_paths):
        raise ConfigError(
            f"{setting}: cannot resolve {ref.text}: {ref.path} is outside "
            f"{provider.parameter_key(_ALLOWED_PATHS)}."
        )
    return str(normal)


def _is_file_name(name: str) -> bool:
    """A directory entry's name: DirectoryConfigProvider never looks outside its directory."""
    return bool(name) and "/" not in name and name not in (".", "..") and "\0" not in name
