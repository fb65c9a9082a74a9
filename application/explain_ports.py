"""What ``lakesink kcql explain`` reads from outside its arguments: the config file, the time, Aiven's writers.

The composition root (:mod:`lakesink.application.bootstrap.explain`) hands them in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lakesink.domain.config.providers import ResolvedConfig
from lakesink.domain.dialects.aiven.output import AivenOutput
from lakesink.domain.ports import Clock
from lakesink.domain.records import Record

AivenPreview = Callable[[AivenOutput, Record], str]
"""What a file of only the record holds as Aiven's writer of ``output`` writes it (raises RecordError
or FormatError when that writer would fail the record)."""


@dataclass(frozen=True, slots=True)
class ExplainPorts:
    """The config file's reader, the clock time-reading transforms and wall-clock names read, and
    Aiven's file preview."""

    load_config: Callable[[str], ResolvedConfig]
    clock: Clock
    aiven_preview: AivenPreview
