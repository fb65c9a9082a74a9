"""The restore settings the Lenses catalog does not have, taken out before it validates the rest.

* ``connect.<p>.source.partition.extractor.type``: besides Lenses' ``hierarchical`` and
  ``regex``, the restore accepts ``layout`` (the default: envelope metadata, else the
  partition named by the key layout) and ``none`` (no partition: the producer's partitioner).
* ``connect.<p>.source.partition.remap``: ``none`` (default; too few target partitions is an
  error) or ``modulo`` (partition ``p`` goes to ``p % partitions``).
* ``connect.<p>.source.transaction.timeout.ms``: the producers' transaction timeout
  (default 60000); also how long a restart waits for a transaction a crashed run left open.

They are removed from the properties handed to :class:`ConnectorSettings`, which would
otherwise reject them as unknown; ``hierarchical`` and ``regex`` stay for it to validate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lakesink.domain.config.backends import BACKEND_PREFIXES
from lakesink.domain.config.values import as_int
from lakesink.domain.errors import ConfigError
from lakesink.domain.restore.plan import PartitionMode

_EXTRACTOR = "source.partition.extractor.type"
_REMAP = "source.partition.remap"
_TIMEOUT = "source.transaction.timeout.ms"
_OWN_EXTRACTORS = {PartitionMode.LAYOUT, PartitionMode.NONE}
_REMAPS = ("none", "modulo")


@dataclass(frozen=True, slots=True)
class RestoreOptions:
    """The restore-only settings; None = not given (Lenses' extractor, if any, applies)."""

    partition_mode: str | None = None
    remap_modulo: bool = False
    transaction_timeout_ms: int = 60_000


def split_restore_options(props: Mapping[str, str]) -> tuple[RestoreOptions, dict[str, str]]:
    """The restore-only options, and ``props`` without them.

    Raises:
        ConfigError: an invalid remap value or timeout, naming the key.
    """
    remaining = dict(props)
    mode: str | None = None
    remap = False
    timeout = 60_000
    for key, value in props.items():
        lowered = key.lower()
        prefix = next((p for p in BACKEND_PREFIXES if lowered.startswith(p + ".")), None)
        if prefix is None:
            continue
        name = lowered[len(prefix) + 1 :]
        if name == _EXTRACTOR and value.strip().lower() in _OWN_EXTRACTORS:
            mode = value.strip().lower()
            del remaining[key]
        elif name == _REMAP:
            choice = value.strip().lower()
            if choice not in _REMAPS:
                raise ConfigError(f"Invalid value {value!r} for {key}: expected none or modulo.")
            remap = choice == "modulo"
            del remaining[key]
        elif name == _TIMEOUT:
            timeout = as_int(key, value, minimum=1000, maximum=900_000)
            del remaining[key]
    return RestoreOptions(mode, remap, timeout), remaining
