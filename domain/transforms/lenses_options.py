"""Option readers shared by Lenses' header SMTs (``io.lenses.connect.smt.header.*``).

Lenses compares most choices exactly (``ConfigDef.ValidString``: ``Timestamp``, not ``timestamp``)
and a few ignoring case; each reader says which rule it keeps, so a config Lenses refuses is
refused here too, with the full key in the message.
"""

from __future__ import annotations

from collections.abc import Collection

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.date_zone import Zone, resolve_zone
from lakesink.domain.layout.datetime_pattern import DateTimePattern, PatternError
from lakesink.domain.transforms.lenses_time_parsing import LocalDateTimePattern
from lakesink.domain.transforms.options import TransformOptions

HEADER_NAME = "header.name"


def header_name(options: TransformOptions, name: str = HEADER_NAME) -> str:
    """The header the transform writes (required, not empty).

    Raises:
        ConfigError: the option is missing or empty.
    """
    return options.required(name)


def exact_choice(options: TransformOptions, name: str, choices: Collection[str], default: str | None) -> str:
    """One of ``choices`` spelled exactly (``ConfigDef.ValidString``); ``default`` when absent.

    Raises:
        ConfigError: the value is none of the choices, or it is required and absent.
    """
    raw = options.text(name)
    if raw is None:
        if default is None:
            raise ConfigError(
                f"{options.key(name)} is required by {options.class_name}: one of {', '.join(choices)}."
            )
        return default
    if raw not in choices:
        raise ConfigError(
            f"Invalid value {raw!r} for {options.key(name)}: expected one of {', '.join(choices)} "
            "(case-sensitive, as in Lenses)."
        )
    return raw


def zone(options: TransformOptions, name: str) -> Zone:
    """The zone an option names (default UTC), Java's ids: ``Europe/Paris``, ``UTC``, ``+05:30``.

    Deliberate strictness: Lenses resolves zones with ``TimeZone.getTimeZone``, which silently falls
    back to GMT for an id it does not know; here an unknown zone is a ConfigError.

    Raises:
        ConfigError: the zone is unknown (Lenses would silently use GMT).
    """
    text = options.text(name) or "UTC"
    try:
        return resolve_zone(text)
    except ConfigError:
        raise ConfigError(
            f"Invalid value {text!r} for {options.key(name)}: expected a zone id such as UTC, Europe/Paris "
            "or +05:30."
        ) from None


def pattern(options: TransformOptions, name: str, pattern_text: str, in_zone: Zone) -> DateTimePattern:
    """``pattern_text`` compiled as a Java ``DateTimeFormatter`` pattern printing in ``in_zone``.

    Raises:
        ConfigError: the pattern is invalid for Java or uses a letter lakesink cannot print.
    """
    try:
        return DateTimePattern.compile(pattern_text, in_zone.id)
    except ConfigError as error:
        raise ConfigError(f"{options.key(name)}: {error}") from None


def english_locale(options: TransformOptions, name: str) -> None:
    """Check the ``locale`` option: lakesink prints Java's English texts only.

    Lenses builds ``new Locale(value)`` (default ``en``); month and day names follow it. Numbers
    print the same in every locale, but rejecting other locales keeps text output honest.

    Raises:
        ConfigError: the locale is not an English one.
    """
    text = options.text(name) or "en"
    if text.lower() != "en" and not text.lower().startswith(("en_", "en-")):
        raise ConfigError(
            f"Invalid value {text!r} for {options.key(name)}: lakesink prints English month and day names "
            "only; use en."
        )


def parse_patterns(options: TransformOptions, name: str) -> tuple[LocalDateTimePattern, ...] | None:
    """A LIST option of Java parsing patterns (comma-separated, blanks trimmed); None when absent or empty.

    Raises:
        ConfigError: a pattern Java refuses, or one that cannot give a date and a time.
    """
    compiled = []
    for text in options.items(name):
        try:
            compiled.append(LocalDateTimePattern.compile(text))
        except PatternError as error:
            raise ConfigError(f"Invalid pattern {text!r} for {options.key(name)}: {error}.") from None
    return tuple(compiled) or None
