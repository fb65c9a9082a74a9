"""``lakesink config validate``: every problem of a config at once, per setting, without running it.

Kafka Connect's ``PUT /connector-plugins/{class}/config/validate`` answers so; lakesink's loaders
stop at the first problem, so the config is loaded as the run would load it (:func:`load_for_run`),
each problem naming settings of the file is recorded against them, and those are set aside before
loading again. Nothing is contacted unless ``connect`` is asked for.
See docs/operations.md, "Validating a config".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from lakesink.application.restore.command import load_plan
from lakesink.application.sink_settings import runnable_sink_settings
from lakesink.domain.config.config_role import lenses_role
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.hidden import HiddenValues
from lakesink.domain.config.providers import ResolvedConfig, is_provider_key
from lakesink.domain.config.secret_keys import holds_secret
from lakesink.domain.config.setting_notes import setting_note
from lakesink.domain.dialects.aiven.source_config import is_aiven_source_config
from lakesink.domain.dialects.registry import sink_dialect
from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.restore.plan import RestorePlan

SCHEMA = "lakesink.validate/1"
#: How a secret's value is shown: never the value.
SECRET_SHOWN = "<secret>"
#: How the key check introduces a single problem; the report names the key anyway.
_KEY_CHECK_HEADING = "Invalid connector config: "
_SUGGESTION = re.compile(r" ?\(did you mean [^)]*\)")

Loaded = ConnectorSettings | RestorePlan
"""What a valid config loads into: a sink's settings, or a restore's plan."""

ClientCheck = Callable[[Loaded], None]
"""Translates what a config loaded into to its run's Kafka client settings (librdkafka's), raising
ConfigError for what the run's clients would refuse (a JAAS line lakesink cannot translate, a
Java-only setting)."""


@dataclass(frozen=True, slots=True)
class SettingCheck:
    """One key of the file, as Kafka Connect's validate reports a ``ConfigValue``.

    ``value`` is the value as written (a config provider reference as written, never what it
    resolved to), :data:`SECRET_SHOWN` for a secret written literally;
    ``note`` says when the key has no effect here (or only its default is accepted).
    """

    name: str
    value: str
    errors: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """Every key of the config with its problems, and the problems that name no key of the file."""

    file: str
    dialect: str
    settings: tuple[SettingCheck, ...]
    problems: tuple[str, ...] = ()
    connect_checked: bool = False

    @property
    def valid(self) -> bool:
        """No problem anywhere."""
        return not self.problems and not any(setting.errors for setting in self.settings)

    @property
    def error_count(self) -> int:
        """Problems in all, each setting's counted one by one."""
        return len(self.problems) + sum(len(setting.errors) for setting in self.settings)

    def to_json(self) -> str:
        """The ``lakesink.validate/1`` document (docs/operations.md, "Validating a config")."""
        document = {
            "schema": SCHEMA,
            "file": self.file,
            "dialect": self.dialect,
            "valid": self.valid,
            "error_count": self.error_count,
            "connect_checked": self.connect_checked,
            "configs": [
                {"name": s.name, "value": s.value, "errors": list(s.errors), **({"note": s.note} if s.note else {})}
                for s in self.settings
            ],
            "problems": list(self.problems),
        }
        return json.dumps(document, indent=2, ensure_ascii=False)

    def to_text(self) -> str:
        """One line per problem (``key=value: error``), the notes, then a verdict line."""
        lines = [f"{s.name}={s.value}: {error}" for s in self.settings for error in s.errors]
        lines += list(self.problems)
        lines += [f"{s.name}: {s.note}" for s in self.settings if s.note and not s.errors]
        checked = " (bucket and Kafka cluster answered)" if self.connect_checked and self.valid else ""
        verdict = "valid" if self.valid else f"invalid: {self.error_count} problem(s)"
        lines.append(f"{self.file}: {self.dialect} config, {verdict}{checked}")
        return "\n".join(lines)


def dialect_of(values: Mapping[str, str]) -> str:
    """How the report names the config's dialect and role."""
    dialect = sink_dialect(values)
    if dialect is not None:
        return dialect.title
    if is_aiven_source_config(values):
        return "Aiven S3 source"
    return "Lenses source" if lenses_role(values) == "source" else "Lenses sink"


def load_for_run(values: Mapping[str, str], provided: Collection[str], clients: ClientCheck) -> Loaded:
    """Load a config as ``lakesink sink`` or ``lakesink restore`` would before either starts Spark,
    its Kafka client settings translated for librdkafka as the run's clients get them (a JAAS line
    lakesink cannot translate, a Java-only setting it refuses).

    Raises:
        ConfigError: the first problem found.
    """
    loaded: Loaded = (
        load_plan(values, provided=provided)
        if _restores(values)
        else runnable_sink_settings(ResolvedConfig(dict(values), frozenset(provided)))
    )
    clients(loaded)
    return loaded


def _restores(values: Mapping[str, str]) -> bool:
    """Whether the config is a restore's (an Aiven or Lenses source config)."""
    return sink_dialect(values) is None and (is_aiven_source_config(values) or lenses_role(values) == "source")


def validate_config(
    file: str,
    written: Mapping[str, str],
    config: ResolvedConfig,
    *,
    clients: ClientCheck,
    connect: Callable[[Mapping[str, str], Loaded, Collection[str]], None] | None = None,
) -> ValidationReport:
    """Every problem of ``config`` (``written``: the file as written, for the keys' order and values).

    ``clients`` checks the Kafka client settings as the run's clients get them (:data:`ClientCheck`).

    ``connect`` is the environment check run on a valid config (the bucket and the broker answer);
    a ConfigError from it is reported as a problem, any other failure is raised.
    """
    errors, general, loaded = _problems(config, clients)
    connect_checked = False
    if loaded is not None and not errors and not general and connect is not None:
        try:
            connect(config.values, loaded, config.provided)
            connect_checked = True
        except ConfigError as error:
            general.append(str(error))
    # A secret's value is masked wherever else it was written too (a value, a message quoting one).
    secrets = HiddenValues.of(config.values, {key for key in config.values if holds_secret(key)} | config.provided)
    settings = tuple(
        SettingCheck(
            name=key,
            value=secrets.scrub(raw) if key in config.provided or not holds_secret(key) else SECRET_SHOWN,
            errors=tuple(map(secrets.scrub, errors.get(key, ()))),
            note=None if is_provider_key(key) else setting_note(config.values, key),
        )
        for key, raw in written.items()
    )
    problems = tuple(map(secrets.scrub, general))
    return ValidationReport(file, dialect_of(config.values), settings, problems, connect_checked)


def _problems(config: ResolvedConfig, clients: ClientCheck) -> tuple[dict[str, list[str]], list[str], Loaded | None]:
    """Each faulty setting's problems, the problems naming none, and what the config loaded into
    (None unless it loaded, the faulty settings set aside)."""
    values = dict(config.values)
    errors: dict[str, list[str]] = {}
    set_aside: set[str] = set()
    for _ in range(len(values) + 1):
        try:
            return errors, [], load_for_run(values, config.provided - set_aside, clients)
        except ConfigError as error:
            faults, consequences = _attribute(error, values, set_aside)
            if not faults and not consequences:
                if not _keys_named(str(error), set_aside):
                    return errors, _messages(error), None
                consequences = {key for key in values if _in_chain(key)} if any(map(_in_chain, set_aside)) else set()
                if not consequences:
                    return errors, [], None  # follows from a setting set aside: reported once it is fixed
            for key, messages in faults.items():
                errors.setdefault(key, []).extend(messages)
            for key in {*faults, *consequences}:
                values.pop(key)
                set_aside.add(key)
    return errors, [], None


def _in_chain(key: str) -> bool:
    """Whether ``key`` configures the transform chain, which stands or falls as a whole."""
    return key.split(".", 1)[0] in ("transforms", "predicates")


def _messages(error: ConfigError) -> list[str]:
    """The problems one error holds: the key check lists several under a heading line."""
    head, *items = str(error).splitlines()
    if items and head.endswith(":"):
        return [item.strip() for item in items if item.strip()]
    return [str(error).removeprefix(_KEY_CHECK_HEADING)]


def _attribute(
    error: ConfigError, values: Mapping[str, str], set_aside: Collection[str]
) -> tuple[dict[str, list[str]], set[str]]:
    """The settings of the file each problem of ``error`` names (a KCQL error: the KCQL setting),
    and the settings named by a problem that follows from one set aside: those are set aside
    unreported (a converter's sub-setting once the converter is). A problem naming no setting of
    the file is neither: it ends the validation."""
    faults: dict[str, list[str]] = {}
    consequences: set[str] = set()
    for message in _messages(error):
        keys = _keys_named(message, values)
        if isinstance(error, KcqlError) and not keys:
            keys = [key for key in values if key.lower().endswith(".kcql")]
        if _keys_named(message, set_aside):
            consequences.update(keys)
            continue
        for key in keys:
            faults.setdefault(key, []).append(message)
    return faults, consequences


def _keys_named(message: str, keys: Collection[str]) -> list[str]:
    """The keys ``message`` names: a dotted key as a whole word (a final period does not count), a
    one-word key (``name``, ``topics``) only where a message names a setting, not in prose; a
    "did you mean" suggestion names no key."""
    text = _SUGGESTION.sub("", message)
    return [key for key in keys if re.search(_key_pattern(key), text, re.IGNORECASE)]


def _key_pattern(key: str) -> str:
    word = rf"{re.escape(key)}(?![\w-]|\.[\w-])"
    if "." in key:
        return rf"(?<![\w.-]){word}"
    return rf"(?:^|\b(?:for|configuration|setting|and|or) ){word}|(?<![\w.-]){re.escape(key)}="
