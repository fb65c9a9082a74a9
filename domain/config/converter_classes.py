"""The converter classes lakesink has, checked when a config is loaded.

Why here and not only in the converter adapters: the adapters build a converter inside a Spark
task, after the JVM started and the first batch was planned. A config naming a converter lakesink
does not have (``io.confluent.connect.protobuf.ProtobufConverter``) or a converter setting it
cannot read must be refused by ``sink``, ``restore``, ``kcql explain`` and ``config validate``
before any of that, in one line naming the key. The adapters take the class names from here.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping

from lakesink.domain.config.secret import MASK, Secret
from lakesink.domain.config.values import as_bool
from lakesink.domain.errors import ConfigError

BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
AVRO = "io.confluent.connect.avro.AvroConverter"
SIMPLE_HEADER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

#: Short names accepted in place of the Connect class (lower-case).
ALIASES = {
    "bytes": BYTE_ARRAY,
    "bytearray": BYTE_ARRAY,
    "string": STRING,
    "json": JSON,
    "avro": AVRO,
}
#: What ``key.converter`` / ``value.converter`` may name.
RECORD_CONVERTERS = (BYTE_ARRAY, STRING, JSON, AVRO)
#: What ``header.converter`` may name (Avro has no header form).
HEADER_CONVERTERS = (SIMPLE_HEADER, STRING, BYTE_ARRAY, JSON)

_REGISTRY_URL = "schema.registry.url"


def canonical_name(class_name: str) -> str:
    """The Connect class a converter setting names, its alias (``json``, ``bytes``…) resolved."""
    return ALIASES.get(class_name.strip().lower(), class_name.strip())


def supported_names(which: str) -> str:
    """The classes and aliases ``<which>.converter`` accepts, for error messages."""
    classes = HEADER_CONVERTERS if which == "header" else RECORD_CONVERTERS
    aliases = [alias for alias, target in sorted(ALIASES.items()) if target in classes]
    return ", ".join([*classes, *aliases])


def check_converter(which: str, class_name: str | None, settings: Mapping[str, str | Secret]) -> None:
    """Refuse a converter lakesink does not have, or a setting of it that it could not apply.

    ``which`` is ``key``, ``value`` or ``header``; ``settings`` are the ``<which>.converter.*``
    keys with that prefix removed.

    Raises:
        ConfigError: one line naming the key at fault and, for the class, the supported ones.
    """
    base = f"{which}.converter"
    if class_name is None:
        return
    canonical = canonical_name(class_name)
    if canonical not in (HEADER_CONVERTERS if which == "header" else RECORD_CONVERTERS):
        raise ConfigError(f"Unsupported {base} {class_name!r}: expected one of {supported_names(which)}.")
    if canonical == JSON and "schemas.enable" in settings:
        enabled = settings["schemas.enable"]
        as_bool(f"{base}.schemas.enable", _text(enabled), secret=isinstance(enabled, Secret))
    if canonical == STRING and "converter.encoding" in settings:
        raw = settings["converter.encoding"]
        try:
            codecs.lookup(_text(raw))
        except LookupError:
            shown = MASK if isinstance(raw, Secret) else repr(raw)
            raise ConfigError(
                f"Invalid value {shown} for {base}.converter.encoding: not a character encoding "
                "(UTF-8, ISO-8859-1, UTF-16...)."
            ) from None
    if canonical == AVRO and not _text(settings.get(_REGISTRY_URL, "")).strip():
        raise ConfigError(f"Missing required setting {base}.{_REGISTRY_URL} for the Avro converter.")


def _text(value: str | Secret) -> str:
    return value.reveal() if isinstance(value, Secret) else value
