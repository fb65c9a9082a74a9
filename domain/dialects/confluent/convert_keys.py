"""Why a Confluent key that ``lakesink config convert`` cannot carry over is left out.

The keys the converter maps or copies are its own business
(:mod:`lakesink.domain.dialects.confluent.convert`); this module answers for the rest of the
Confluent key table (:mod:`lakesink.domain.dialects.confluent.keys`): Kafka Connect error
handling, tuning keys of Confluent's Java code, features accepted only at their default, and
Confluent rotation and naming rules with no Lenses counterpart. Every answer is one line.
"""

from __future__ import annotations

from lakesink.domain.config.lenses_conversion import key_table_reason
from lakesink.domain.dialects.confluent.keys import DEFAULT_ONLY, NO_EFFECT, POLICY
from lakesink.domain.dialects.kafka_connect import key_policy

_LEFT_OUT = {
    "rotate.interval.ms": (
        "record-time rotation has no Lenses equivalent: Lenses' 'flush.interval' counts wall-clock "
        "seconds since the file was opened"
    ),
    "rotate.file.on.partition.change": (
        "no Lenses equivalent: Lenses keeps one open file per partition directory and never rolls "
        "a file because the next record goes elsewhere"
    ),
    "tombstone.encoded.partition": "no Lenses equivalent (see behavior.on.null.values)",
    "format.bytearray.separator": "Lenses' BYTES format stores one record per object, with no separator",
    "format.bytearray.extension": "Lenses names BYTES objects .bytes",
    "json.decimal.format": "no Lenses key: Lenses' JSON writes decimals its own way",
    "report.null.values.to.dlq": "lakesink does not send skipped null values to the dead-letter topic",
    "errors.tolerance": (
        "Lenses tolerates no bad record (errors.tolerance=none); connect.s3.error.policy decides "
        "what happens when a write fails"
    ),
}


def left_out_reason(key: str) -> str:
    """Why ``key`` does not appear in the converted config (one line, no value quoted)."""
    if key in _LEFT_OUT:
        return _LEFT_OUT[key]
    reason = key_table_reason(key, "Confluent", NO_EFFECT, DEFAULT_ONLY)
    if reason is not None:
        return reason
    if POLICY.key_class(key) == key_policy.NO_EFFECT:
        return "lakesink has no Hive integration"
    return "no Lenses equivalent"
