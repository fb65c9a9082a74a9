"""SIGTERM stops a continuous ``lakesink sink`` after its batch in progress, with exit code 0.

The command runs as a child process; the signal goes to the Python driver only (as ``docker stop``
sends it to a container's main process), once the sink has committed what the topic held and
waits for more. Records produced meanwhile must be in the store exactly once when it has exited.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.storage import open_store
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.ports import ObjectStore
from tests.integration.sink.conftest import assert_exactly_once, data_keys, local_props, produce_ids

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _stored_ids(store: ObjectStore) -> list[int]:
    return [json.loads(line)["id"] for key in data_keys(store, "bkt") for line in store.get("bkt", key).data.splitlines()]


def test_sigterm_stops_a_continuous_sink_after_its_batch_with_exit_code_0(
    kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` PROPERTIES('flush.interval'=1)"
    props = local_props(tmp_path / "store", kcql, topic, kafka)
    config = tmp_path / "sink.json"
    config.write_text(json.dumps(props))
    settings = ConnectorSettings.from_properties(props)
    store = open_store(settings.backend, settings.storage)
    produce_ids(kafka, topic, range(20))
    log = (tmp_path / "sink.log").open("w")
    sink = subprocess.Popen(
        [sys.executable, "-m", "lakesink.application.cli", "--log-level", "INFO", "sink", "--config", str(config),
         "--master", "local[1]"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 180
        while sorted(_stored_ids(store)) != list(range(20)):
            assert sink.poll() is None, (tmp_path / "sink.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the first records were not written in time"
            time.sleep(0.5)
        produce_ids(kafka, topic, range(20, 28))  # the next batch may be under way when the signal comes

        sink.send_signal(signal.SIGTERM)
        code = sink.wait(timeout=120)
    finally:
        if sink.poll() is None:
            sink.kill()
        log.close()

    text = (tmp_path / "sink.log").read_text()
    assert code == 0, text[-3000:]
    assert "SIGTERM: the sink stops after the batch in progress" in text
    assert f"Sink {props['name']} stopped; its next batch starts at" in text
    assert re.search(r"^batch 0: \d+ records -> \d+ objects \(.+\), lag \d+, [\d.]+ s$", text, re.M), text[-3000:]
    summary = re.search(r"^sink summary: \d+ batches, (\d+) records -> \d+ objects .+ records/s\), lag \d+$", text, re.M)
    assert summary is not None and 20 <= int(summary.group(1)) <= 28, text[-3000:]  # the run's, SIGTERM or not
    assert summary.start() > text.index("SIGTERM: the sink stops")
    stored = _stored_ids(store)
    assert len(stored) == len(set(stored)), "each record once"
    assert set(range(20)) <= set(stored) <= set(range(28))
    produce_ids(kafka, topic, range(28, 30))
    once = subprocess.run([sys.executable, "-m", "lakesink.application.cli", "sink", "--once", "--config", str(config),
                           "--master", "local[1]"], capture_output=True, text=True, timeout=300, check=False)
    assert once.returncode == 0, once.stderr[-3000:]
    batch = re.search(r"^batch 0: (\d+ records -> \d+ objects \(.+\)), lag 0, [\d.]+ s$", once.stderr, re.M)
    assert batch is not None, once.stderr[-3000:]  # at the default log level
    assert re.search(rf"^sink summary: 1 batches, {re.escape(batch.group(1))} in ", once.stderr, re.M), once.stderr
    assert once.stdout == ""  # progress is stderr's: stdout stays a script's
    assert_exactly_once(_stored_ids(store), range(30))  # the next run takes up exactly where it stopped
