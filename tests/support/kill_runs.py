"""The kill sequence of the dialect kill -9 tests (Confluent, Aiven): when each run dies, and a trickle of records.

Each test runs ``lakesink sink`` continuously as a :class:`~tests.support.sink_process.SinkProcess`
while a :class:`TrickleProducer` feeds its topics, and SIGKILLs the group once per :class:`Kill`
of a :class:`KillPlan`, in one of the phases of test_kill9.py:

* start-up: 2-8 s after launch (JVM, SparkSession, reading the index and the plans);
* uploads: 0-1.5 s after a data object of the run appeared in the bucket (a new key, or a
  new version of an overwritten one: the window between "durable" and "committed");
* streaming: 0-5 s after the sink logged a committed batch (the next batches in flight).

Every phase comes at least once, the remaining kills are uploads or streaming; one restart
(never the first run) begins with the checkpoint deleted, so the index alone says where to resume.
The anchors wait on what the sink does (a loaded machine stretches Spark's start from 10 to 30 s);
an anchor not seen within 45 s is reported, and each anchored phase must be hit at least once.
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from pathlib import Path

from tests.support.sink_process import GroupProcess, SinkProcess

ANCHOR_TIMEOUT_S = 45.0
COMMIT_MARKER = "lakesink.application.sink_run: Batch "  # application/sink_run.py logs each committed batch
PHASES = {"start-up": (2.0, 8.0), "uploads": (0.0, 1.5), "streaming": (0.0, 5.0)}
ANCHORED = ("uploads", "streaming")


@dataclass(frozen=True, slots=True)
class Kill:
    """When to kill one run: ``delay_s`` after the anchor of its ``phase``."""

    phase: str
    delay_s: float


@dataclass(frozen=True, slots=True)
class KillPlan:
    """The kills of a test, in order, and the run that starts without the checkpoint."""

    kills: tuple[Kill, ...]
    forget_checkpoint_before: int

    @classmethod
    def draw(cls, rng: random.Random, count: int) -> KillPlan:
        """``count`` (≥ 2) kills: each phase once, the rest uploads or streaming, shuffled."""
        phases = list(PHASES)
        phases += [rng.choice(ANCHORED) for _ in range(count - len(phases))]
        rng.shuffle(phases)
        kills = tuple(Kill(phase, round(rng.uniform(*PHASES[phase]), 2)) for phase in phases)
        return cls(kills, forget_checkpoint_before=rng.randrange(1, count))

    def run(
        self,
        config: Path,
        logs: Path,
        checkpoint: Path,
        uploads: Callable[[], Collection[Hashable]],
        launch: Callable[[Path], GroupProcess] | None = None,
    ) -> list[str]:
        """Start and kill one sink per kill (logs ``run-<n>.log`` in ``logs``); where each kill landed.

        ``uploads`` lists the run's observable writes (data keys, or key and ETag where objects
        are overwritten): the uploads anchor is an element that was not there at launch.
        ``launch`` starts a run logging to the path it is given (default: ``lakesink sink`` on
        ``config`` and ``checkpoint``).
        """
        landed: list[str] = []
        for run, kill in enumerate(self.kills):
            if run == self.forget_checkpoint_before:
                shutil.rmtree(checkpoint, ignore_errors=True)
            log = logs / f"run-{run}.log"
            sink = launch(log) if launch is not None else SinkProcess(config, log, checkpoint=checkpoint)
            landed.append(_kill_when_due(sink, kill, uploads))
            print(f"kill {run}: {landed[-1]}")
        return landed


def _kill_when_due(sink: GroupProcess, kill: Kill, uploads: Callable[[], Collection[Hashable]]) -> str:
    """Wait for the phase's anchor, then the delay; kill the group; say where the kill landed."""
    launched = time.monotonic()
    seen = True
    if kill.phase == "uploads":
        before = set(uploads())
        seen = sink.wait_for(lambda: not before.issuperset(uploads()), ANCHOR_TIMEOUT_S)
    elif kill.phase == "streaming":
        seen = sink.wait_for(lambda: sink.logged(COMMIT_MARKER), ANCHOR_TIMEOUT_S)
    time.sleep(kill.delay_s)
    assert sink.running(), f"the sink exited by itself (code {sink.process.returncode}):\n{sink.tail()}"
    sink.kill9()
    return f"{kill.phase} +{kill.delay_s}s, {time.monotonic() - launched:.1f}s after launch" + (
        "" if seen else " (anchor not seen)"
    )


def assert_anchored_phases_hit(landed: list[str]) -> None:
    """Each anchored phase was killed at least once after its anchor was seen."""
    for phase in ANCHORED:
        assert any(text.startswith(phase) and "anchor not seen" not in text for text in landed), (
            f"no kill landed in the {phase} phase, so its window was not exercised: {landed}"
        )


class TrickleProducer(threading.Thread):
    """Calls ``produce`` (which returns how many records it sent) every second until stopped."""

    def __init__(self, produce: Callable[[], int]) -> None:
        super().__init__(daemon=True)
        self._produce = produce
        self._halt = threading.Event()
        self.produced = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self._halt.is_set():
                self.produced += self._produce()
                self._halt.wait(1.0)
        except BaseException as error:  # reported by the test thread
            self.error = error

    def stop(self) -> int:
        """Stop producing; raises what producing raised; returns how many records were produced."""
        self._halt.set()
        self.join(timeout=30)
        assert self.error is None, f"producing failed: {self.error!r}"
        return self.produced


def finish_after_kills(config: Path, directory: Path, checkpoint: Path, *, timeout_s: float = 180) -> None:
    """The last ``--once`` run after the kills: it must finish cleanly (exit 0), its log in ``directory``."""
    final = SinkProcess(config, directory / "final.log", checkpoint=checkpoint, once=True)
    assert final.wait(timeout_s=timeout_s) == 0, final.tail()
