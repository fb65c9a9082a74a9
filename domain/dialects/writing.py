"""What the sink asks of a Kafka Connect dialect's writing, whichever connector it is.

A Confluent or Aiven config replaces the KCQL layout and flush rule with its connector's own
names, files and rotation (:class:`~lakesink.domain.dialects.confluent.writing.ConfluentWriting`,
:class:`~lakesink.domain.dialects.aiven.writing.AivenWriting`). The settings and each statement's plan carry
it as one ``writing`` value (None for a Lenses config); the driver, the verifier and the executor
ask it these questions instead of asking which connector it is.
"""

from __future__ import annotations

from typing import Protocol


class DialectWriting(Protocol):
    """How one Kafka Connect sink's config writes (see the module)."""

    @property
    def dialect(self) -> str:
        """The dialect's name (:data:`~lakesink.domain.dialects.registry.DIALECTS`): store keys, messages."""
        ...

    @property
    def reads_clock(self) -> bool:
        """Whether object keys read the wall clock (the batch clock stands in, recorded in the range plans)."""
        ...

    @property
    def decodes_key(self) -> bool:
        """Whether records need their converted key (written, or naming or rotating files)."""
        ...

    @property
    def decodes_headers(self) -> bool:
        """Whether records need their converted headers (written)."""
        ...

    @property
    def holds_records(self) -> bool:
        """Whether a range may end with records held back in an open file (the next range starts at them)."""
        ...

    @property
    def skips_converted_nulls(self) -> bool:
        """Whether a record whose value is null after conversion and transforms is skipped, not written."""
        ...

    @property
    def consecutive_files(self) -> bool:
        """Whether each file of a Kafka partition holds the offsets after the previous file's: the
        verifier can then report gaps between files."""
        ...

    def wall_clock_note(self) -> str | None:
        """The WARN line a run starts with when object keys depend on the wall clock, else None."""
        ...
