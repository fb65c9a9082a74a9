"""Kafka Connect framework keys that have no effect in lakesink, accepted in every dialect.

Production configs carry the keys of Kafka Connect's own ``ConnectorConfig``,
``SinkConnectorConfig`` and ``SourceConnectorConfig`` (Apache Kafka 4.4.0); refusing them made a
working config fail for keys that cannot change what lakesink writes. The framework keys lakesink
honours are read by each dialect, not listed here; the error-handling ones act in a sink only
(:data:`SOURCE_NO_EFFECT_KEYS`).
"""

from __future__ import annotations

from collections.abc import Mapping

#: What validate and explain say of such a key, before the reason.
FRAMEWORK_NO_EFFECT = "Kafka Connect framework setting: no effect in lakesink"

_RETRY = (
    "Kafka Connect retries a failing converter or transform; lakesink retries store calls through its SDK's "
    "retry policy and connect.<backend>.error.policy=RETRY, failed Spark tasks through Spark"
)
_PLUGIN_VERSION = "lakesink has one version of each plugin"
_SOURCE_EOS = "the restore is exactly-once through Kafka transactions of its own, one per batch"

#: Exact framework keys → why they change nothing here.
NO_EFFECT_KEYS: Mapping[str, str] = {
    "tasks.max": "Spark decides the parallelism: one task per topic-partition range",
    "tasks.max.enforce": "Spark decides the parallelism",
    "config.action.reload": "lakesink reads the config once per run; restart it to apply a change",
    "errors.retry.timeout": _RETRY,
    "errors.retry.delay.max.ms": _RETRY,
    "connector.plugin.version": _PLUGIN_VERSION,
    "key.converter.plugin.version": _PLUGIN_VERSION,
    "value.converter.plugin.version": _PLUGIN_VERSION,
    "header.converter.plugin.version": _PLUGIN_VERSION,
    "exactly.once.support": _SOURCE_EOS,
    "transaction.boundary": _SOURCE_EOS,
    "transaction.boundary.interval.ms": _SOURCE_EOS,
    "offsets.storage.topic": "the restore keeps its progress in the target topics, not in a Connect offsets topic",
    "topic.creation.groups": "lakesink does not create topics: create them before restoring",
}
_NO_RECORD_STAGE = "the restore produces the stored bytes: it runs no converter or transform a record could fail in"
#: Framework keys that act in a sink and have no effect in a restore (source) config.
SOURCE_NO_EFFECT_KEYS: Mapping[str, str] = {
    "errors.tolerance": _NO_RECORD_STAGE,
    "errors.log.enable": _NO_RECORD_STAGE,
    "errors.log.include.messages": _NO_RECORD_STAGE,
}
#: Framework key families → why they change nothing here.
NO_EFFECT_PREFIXES: Mapping[str, str] = {
    "topic.creation.": "lakesink does not create topics: create them before restoring",
    "admin.override.": "lakesink's few admin requests use the consumer's settings in a sink, the producer's in a restore",
}


def framework_no_effect(key: str, role: str = "sink") -> str | None:
    """Why the framework key ``key`` has no effect in a ``role`` config, or None when it is not such a key."""
    if key in NO_EFFECT_KEYS:
        return NO_EFFECT_KEYS[key]
    if role == "source" and key in SOURCE_NO_EFFECT_KEYS:
        return SOURCE_NO_EFFECT_KEYS[key]
    return next((why for prefix, why in NO_EFFECT_PREFIXES.items() if key.startswith(prefix)), None)


def framework_note(key: str, role: str = "sink") -> str | None:
    """The line validate and explain print for a framework key without effect, or None."""
    why = framework_no_effect(key, role)
    return None if why is None else f"{FRAMEWORK_NO_EFFECT} ({why})."
