"""confluent-kafka client configs built from the connector's pass-through settings.

Kafka Connect style settings (optionally ``kafka.``-prefixed) go to librdkafka unchanged where the
names agree; the Java-only spellings a Connect config carries are translated, Java key stores
rejected. Secrets are revealed here only, where they are handed to the client library
(:func:`is_sensitive` names the keys never shown). See docs/kafka.md, "Options".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lakesink.adapters.kafka.client_logs import client_logger
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError

if TYPE_CHECKING:  # the client library loads only where a client is built (not in Spark's planning workers)
    from confluent_kafka import Consumer, KafkaError, KafkaException, Producer

SettingValue = str | Secret

_PASS_THROUGH_KEYS = frozenset(
    {
        "bootstrap.servers",
        "security.protocol",
        "client.id",
        "client.rack",
        "isolation.level",
        "fetch.min.bytes",
        "fetch.max.bytes",
        "fetch.wait.max.ms",
        "fetch.queue.backoff.ms",
        "max.partition.fetch.bytes",
        "receive.message.max.bytes",
        "socket.timeout.ms",
        "session.timeout.ms",
        "request.timeout.ms",
        "message.max.bytes",
        "compression.type",
        "linger.ms",
        "batch.size",
        "batch.num.messages",
        "acks",
        "enable.idempotence",
        "enable.sparse.connections",
    }
)
_PASS_THROUGH_PREFIXES = ("sasl.", "ssl.", "queued.", "queue.buffering.")
_RENAMED = {"fetch.max.wait.ms": "fetch.wait.max.ms"}
_UNSUPPORTED = {
    "ssl.truststore.location": "use ssl.ca.location (PEM) instead of a Java trust store",
    "ssl.truststore.password": "use ssl.ca.location (PEM) instead of a Java trust store",
    "ssl.truststore.type": "use ssl.ca.location (PEM) instead of a Java trust store",
    "ssl.keystore.type": "librdkafka reads PKCS#12 key stores only; drop ssl.keystore.type",
}

SENSITIVE_KEYS = frozenset(
    {
        "sasl.password",
        "sasl.jaas.config",
        "sasl.oauthbearer.client.secret",
        "ssl.key.password",
        "ssl.key.pem",
        "ssl.keystore.password",
        "basic.auth.user.info",
    }
)
"""Keys whose values are credentials, wherever they appear (with or without a prefix)."""

_JAAS_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule",
    "org.apache.kafka.common.security.scram.ScramLoginModule",
}
_JAAS = re.compile(r"^\s*(?P<module>[\w.$]+)\s+required\s*(?P<options>.*?)\s*;?\s*$", re.DOTALL)
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')
_QUOTED_VALUE = re.compile(r'Invalid value ".*" for', re.DOTALL)


def is_sensitive(key: str) -> bool:
    """Whether ``key`` (e.g. ``kafka.sasl.password``) names a credential."""
    return any(key == name or key.endswith("." + name) for name in SENSITIVE_KEYS)


FETCH_QUEUE_BACKOFF_MS = 10
"""Default ``fetch.queue.backoff.ms`` of lakesink's consumers (librdkafka's own: 1000).

A range is read as fast as the broker answers, so the prefetch queue reaches
``queued.min.messages`` (100,000) within a few fetches; librdkafka then postpones the next fetch
by ``fetch.queue.backoff.ms``, and with its 1 s default the task drained the queue and sat idle
for most of that second (one Tansu partition of 250,000 records: 1.3 s with 1000 ms, 0.5 s with
10 ms). Rechecking every 10 ms keeps the queue (and its memory) at the same bound and sends no
request while it is full. Set ``fetch.queue.backoff.ms`` to override.
"""


def connector_client_settings(settings: ConnectorSettings) -> dict[str, SettingValue]:
    """The Kafka client settings a connector's config gives (``bootstrap.servers`` included; secrets
    stay wrapped until a client is configured)."""
    client: dict[str, SettingValue] = {
        key: value if isinstance(value, Secret) else str(value) for key, value in settings.kafka_client.items()
    }
    client["bootstrap.servers"] = settings.bootstrap_servers or ""
    return client


def consumer_config(settings: Mapping[str, SettingValue], *, group_id: str) -> dict[str, Any]:
    """A consumer config that never commits offsets by itself (lakesink tracks positions)."""
    config = {"fetch.queue.backoff.ms": FETCH_QUEUE_BACKOFF_MS, **_client_settings(settings)}
    config.update(
        {
            "group.id": group_id,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",
        }
    )
    return config


SPARSE_CONNECTIONS = False
"""Default ``enable.sparse.connections`` of lakesink's producers (librdkafka's own: true).

A sparse producer connects to a broker only once it has something to send there. After the
first metadata answer librdkafka drops its bootstrap connection and, with no broker connected,
its transaction coordinator lookup waits for the next run of its 500 ms coordinator timer:
``init_transactions`` took 0.05-0.52 s against Tansu (the spread is which timer fires first),
4-9 ms with every broker connected at once. Each restore origin initialises its own
transactional producer, and a task waits for its first one, so that was up to half a second
on the critical path of every task (and of every fence the driver runs). The cost is one
connection per broker per producer, a few producers per task. Set
``producer.enable.sparse.connections`` to override.
"""


def producer_config(settings: Mapping[str, SettingValue]) -> dict[str, Any]:
    """A producer config from the same pass-through settings (the restore's producers)."""
    return {"enable.sparse.connections": SPARSE_CONNECTIONS, **_client_settings(settings)}


def admin_config(settings: Mapping[str, SettingValue]) -> dict[str, Any]:
    """An admin-client config; only connection and security settings matter."""
    return {
        key: value
        for key, value in _client_settings(settings).items()
        if key in {"bootstrap.servers", "security.protocol", "client.id", "socket.timeout.ms"}
        or key.startswith(("sasl.", "ssl."))
    }


def create_consumer(config: Mapping[str, Any]) -> Consumer:
    """A Consumer; librdkafka's rejection of a setting becomes a ConfigError without values."""
    from confluent_kafka import Consumer, KafkaException

    try:
        return Consumer(dict(config), logger=client_logger())
    except KafkaException as exc:
        raise ConfigError(f"Invalid Kafka consumer setting: {_without_values(exc)}") from None


def create_producer(config: Mapping[str, Any]) -> Producer:
    """A Producer; librdkafka's rejection of a setting becomes a ConfigError without values."""
    from confluent_kafka import KafkaException, Producer

    try:
        return Producer(dict(config), logger=client_logger())
    except KafkaException as exc:
        raise ConfigError(f"Invalid Kafka producer setting: {_without_values(exc)}") from None


def _client_settings(settings: Mapping[str, SettingValue]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for raw_key, raw_value in settings.items():
        key = raw_key.removeprefix("kafka.")
        if key in _UNSUPPORTED:
            raise ConfigError(f"Unsupported Kafka setting {raw_key}: {_UNSUPPORTED[key]}.")
        key = _RENAMED.get(key, key)
        if not _passes(key):
            continue
        value = raw_value.reveal() if isinstance(raw_value, Secret) else raw_value
        if key == "sasl.jaas.config":
            config.update(_from_jaas(raw_key, value))
        else:
            config[key] = value
    if "bootstrap.servers" not in config:
        raise ConfigError("Missing required setting bootstrap.servers (Kafka brokers, host:port,...).")
    return config


def _passes(key: str) -> bool:
    """Whether a (renamed, un-prefixed) setting is handed to librdkafka."""
    return key in _PASS_THROUGH_KEYS or key.startswith(_PASS_THROUGH_PREFIXES)


def ignored_settings(settings: Mapping[str, SettingValue]) -> list[str]:
    """The keys of ``settings`` no client config hands to librdkafka (Java-only or unknown settings).

    ``group.id`` is not among them: the readers name their consumers with it.
    """
    names = {key: key.removeprefix("kafka.") for key in settings}
    return sorted(key for key, name in names.items() if name != "group.id" and not _passes(_RENAMED.get(name, name)))


def _from_jaas(key: str, jaas: str) -> dict[str, str]:
    """username/password of a PLAIN or SCRAM JAAS line, as librdkafka's sasl.username/password."""
    match = _JAAS.match(jaas)
    if match is None or match.group("module") not in _JAAS_MODULES:
        module = match.group("module") if match else "an unparsable login module"
        raise ConfigError(
            f"Unsupported {key}: {module} (only PlainLoginModule and ScramLoginModule translate "
            "to librdkafka; set sasl.mechanism and sasl.* settings directly)."
        )
    pairs = _JAAS_OPTION.findall(match.group("options"))
    options = {name: value.replace('\\"', '"') for name, value in pairs}
    if "username" not in options or "password" not in options:
        raise ConfigError(f"Invalid {key}: username and password are both required.")
    return {"sasl.username": options["username"], "sasl.password": options["password"]}


def error_text(exc: KafkaException) -> str:
    """librdkafka's own message of ``exc`` (its KafkaError's text, not the exception's repr)."""
    error = exc.args[0] if exc.args else None
    return error.str() if hasattr(error, "str") else str(exc)


def error_code(error: BaseException | KafkaError | None) -> int | None:
    """The librdkafka code of a KafkaException (or KafkaError), None for anything else."""
    from confluent_kafka import KafkaError, KafkaException

    if isinstance(error, KafkaException):
        error = error.args[0] if error.args else None
    return error.code() if isinstance(error, KafkaError) else None


def _without_values(exc: KafkaException) -> str:
    """librdkafka's message quotes the rejected value, which may be a credential: drop it."""
    return _QUOTED_VALUE.sub("Invalid value for", error_text(exc))
