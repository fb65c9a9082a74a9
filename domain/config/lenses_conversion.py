"""What every ``lakesink config convert`` shares, whatever dialect it converts from.

Both converters (:mod:`lakesink.domain.dialects.confluent.convert`, :mod:`lakesink.domain.dialects.aiven.convert`)
copy values as the file wrote them (a ``${file:...}`` reference stays one), write or note every
source key with the reason, and carry the same keys over unchanged (credentials, converters,
transforms, predicates, config providers, Kafka client settings), so both print, quote and scrub alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from lakesink.domain.config.framework_keys import framework_no_effect
from lakesink.domain.config.properties_text import properties_line, properties_value
from lakesink.domain.config.providers import is_provider_key
from lakesink.domain.errors import ConfigError
from lakesink.domain.kcql.cursor import KEYWORDS
from lakesink.domain.kcql.lexer import needs_backticks, quote

LENSES_S3_SINK = "io.lenses.streamreactor.connect.aws.s3.sink.S3SinkConnector"
#: Between two statements of ``connect.s3.kcql`` in :attr:`Conversion.properties`; printed as
#: ``;`` and a continuation line, so the loaded value is ``statement;statement``.
STATEMENT_SEPARATOR = ";\n"
#: Key families both dialects pass to Kafka Connect's converters, transforms and predicates.
COPIED_PREFIXES = ("key.converter", "value.converter", "header.converter", "transforms", "predicates")
#: Kafka client key families both dialects copy (Lenses reads them the same way).
CLIENT_PREFIXES = ("consumer.", "sasl.", "ssl.")
#: Kafka Connect's ``errors.*`` families a conversion does not copy, and why.
ERROR_FAMILIES = {
    "errors.deadletterqueue.": (
        "not copied: the Lenses dialect reads the same errors.deadletterqueue.* keys, but needs "
        "connect.s3.error.policy=NOOP to send skipped records to the dead-letter topic; add both to keep it"
    ),
    "errors.retry.": (
        "Kafka Connect's operation retries do not apply; connect.s3.error.policy=RETRY retries failed writes"
    ),
    "errors.log.": "not copied: the Lenses dialect reads the same errors.log.* keys; lakesink logs skipped records either way",
}


@dataclass(frozen=True, slots=True)
class Conversion:
    """The Lenses-dialect config, in print order, and (source key, why) for what did not carry over.

    ``heading`` is printed as ``#`` comment lines above the config: where it comes from and the
    differences a user must see before running it.
    """

    properties: tuple[tuple[str, str], ...]
    notes: tuple[tuple[str, str], ...]
    heading: tuple[str, ...] = ()

    def properties_text(self) -> str:
        """The config as ``.properties`` text, one KCQL statement per continuation line."""
        lines = [f"# {line}" for line in self.heading]
        for key, value in self.properties:
            if key == "connect.s3.kcql":
                statements = (properties_value(statement) for statement in value.split(STATEMENT_SEPARATOR))
                lines.append(properties_line(key, "") + ";\\\n    ".join(statements))
            else:
                lines.append(properties_line(key, value))
        return "\n".join(lines) + "\n"

    def note_lines(self) -> list[str]:
        """One ``<source key>: <why>`` line per key."""
        return [f"{key}: {why}" for key, why in self.notes]


@dataclass(slots=True)
class Piece:
    """Part of a conversion: Lenses settings (connector keys or KCQL PROPERTIES), notes, keys read."""

    properties: dict[str, str] = field(default_factory=dict)
    notes: list[tuple[str, str]] = field(default_factory=list)
    handled: set[str] = field(default_factory=set)

    def note(self, key: str, why: str) -> None:
        """Say why ``key`` did not carry over as it is (the key counts as accounted for)."""
        self.notes.append((key, why))
        self.handled.add(key)


class ConversionBuilder:
    """One conversion under way: the properties written, the notes, the source keys accounted for."""

    def __init__(self, raw: Mapping[str, str], handled: Iterable[str] = ()) -> None:
        self.raw = raw
        self.out: dict[str, str] = {}
        self.notes: dict[str, list[str]] = {}
        self.handled: set[str] = set(handled)

    def copy_connector(self, name: str) -> None:
        """The connector's name (as written, else ``name``), Lenses' class, and the subscription as written."""
        self.out["name"] = self.raw.get("name", name)
        self.out["connector.class"] = LENSES_S3_SINK
        self.handled.update({"name", "connector.class"})
        for key in ("tasks.max", "topics", "topics.regex", "bootstrap.servers"):
            self.copy(key)

    def copy(self, key: str, to: str | None = None) -> None:
        """Write ``key``'s value as the file gave it, under ``to`` (default: the same key)."""
        if key in self.raw:
            self.out[to or key] = self.raw[key]
            self.handled.add(key)

    def note(self, key: str, why: str) -> None:
        """Say why ``key`` did not carry over as it is; several reasons become one line."""
        self.notes.setdefault(key, []).append(why)
        self.handled.add(key)

    def take(self, piece: Piece) -> dict[str, str]:
        """A piece's notes and handled keys recorded; its properties returned."""
        for key, why in piece.notes:
            self.note(key, why)
        self.handled.update(piece.handled)
        return piece.properties

    def copy_credentials(self, has_static: bool) -> None:
        """``aws.access.key.id`` / ``aws.secret.access.key`` (both dialects' names) as Lenses' keys, as written."""
        if has_static:
            self.out["connect.s3.aws.auth.mode"] = "Credentials"
            self.copy("aws.access.key.id", "connect.s3.aws.access.key")
            self.copy("aws.secret.access.key", "connect.s3.aws.secret.key")

    def copy_passthrough(self, client_keys: Iterable[str]) -> None:
        """Config providers, converters, transforms, predicates, then Kafka client settings, as written."""
        for key in self.raw:
            if is_provider_key(key) or key.startswith(COPIED_PREFIXES):
                self.copy(key)
        client = frozenset(client_keys)
        for key in self.raw:
            if key.startswith(CLIENT_PREFIXES) or key in client:
                self.copy(key)

    def note_rest(self, reason: Callable[[str], str]) -> None:
        """Every key not yet written or noted, noted with ``reason(key)``."""
        for key in self.raw:
            if key not in self.handled:
                self.note(key, reason(key))

    def conversion(self, heading: tuple[str, ...], scrub: Callable[[str], str]) -> Conversion:
        """The result; ``scrub`` masks any provided or secret value a reason might quote."""
        notes = tuple((key, scrub("; ".join(whys))) for key, whys in self.notes.items())
        return Conversion(tuple(self.out.items()), notes, heading)


def other_dialect_error(raw: Mapping[str, str], accepted: str) -> ConfigError:
    """The refusal of a config of another ``connector.class`` (named as written); ``accepted`` says
    which configs convert."""
    shown = raw.get("connector.class", "").strip() or "not set"
    return ConfigError(f"connector.class is {shown}: only {accepted} can be converted.")


def refuse_provided(provided: frozenset[str], rewritten: frozenset[str]) -> None:
    """Refuse a key the converter rewrites whose value came from a config provider.

    Printing the rewritten value would print what the reference resolved to.

    Raises:
        ConfigError: naming the first such key (never its value).
    """
    blocked = sorted(provided & rewritten)
    if blocked:
        raise ConfigError(
            f"{blocked[0]} comes from a config provider reference: converting it would print the value it "
            "resolved to; write the value in the file to convert it."
        )


def key_table_reason(
    key: str, dialect: str, no_effect: Mapping[str, str], default_only: Mapping[str, tuple[str, str]]
) -> str | None:
    """Why a key is not copied, when the dialect's key table already says: Kafka Connect's
    ``errors.*`` families, keys ``dialect`` accepts without effect (``no_effect``: key → why) or
    only at its default (``default_only``: key → (default, why)); None for any other key."""
    family = next((why for prefix, why in ERROR_FAMILIES.items() if key.startswith(prefix)), None)
    if family is not None:
        return family
    framework = framework_no_effect(key)
    if framework is not None:
        return f"no Lenses equivalent needed: {framework}"
    if key in no_effect:
        return f"no Lenses equivalent needed: {no_effect[key][0].lower()}{no_effect[key][1:].rstrip('.')}"
    if key in default_only:
        return f"at {dialect}'s default, which is what Lenses does; no Lenses key ({default_only[key][1]})"
    return None


def kcql_name(value: str) -> str:
    """A KCQL name: bare when it can be, else in backticks."""
    return quote(value, "`") if needs_backticks(value) or value.upper() in KEYWORDS else value


def kcql_properties(properties: Mapping[str, str]) -> str:
    """The inside of a statement's ``PROPERTIES(...)``: ``'key'='value'`` pairs, in order."""
    return ", ".join(f"{quote(key, chr(39))}={quote(value, chr(39))}" for key, value in properties.items())


def given(raw: Mapping[str, str], key: str, default: str) -> str:
    """The value as written, or the dialect's default when the key is missing or blank."""
    value = raw.get(key, "")
    return value if value.strip() else default


def flag(value: bool) -> str:
    """A KCQL boolean PROPERTY value."""
    return "true" if value else "false"
