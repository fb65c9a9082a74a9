"""A continuous sink serves its Prometheus metrics while it runs, and they agree with the store."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from pyspark.sql import SparkSession

from lakesink.adapters.kafka.embedded_broker import EmbeddedKafka
from lakesink.adapters.metrics.prometheus import PrometheusSinkMetrics
from lakesink.adapters.storage import open_store
from lakesink.application.bootstrap.sink import serving_metrics, sink_run
from lakesink.domain.config.connector import ConnectorSettings
from tests.integration.sink.conftest import PARTITIONS, data_keys, local_props, produce_ids, run_until_drained

pytestmark = [pytest.mark.integration, pytest.mark.slow]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
FLUSH_COUNT = 25


def _scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_running_sink_serves_records_offsets_lag_and_file_rolls(
    spark: SparkSession, kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    kcql = (
        f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON` "
        f"PROPERTIES('flush.count'={FLUSH_COUNT}, 'flush.interval'=1)"
    )
    props = local_props(tmp_path / "store", kcql, topic, kafka, **{"connect.local.metrics.port": "0"})
    settings = ConnectorSettings.from_properties(props)
    produce_ids(kafka, topic, range(200))

    seen_batch = threading.Event()

    def feed() -> None:
        """Records while the sink runs; the last ones only once a scrape saw a committed batch, so
        the run goes on after that scrape (a fast start could otherwise take everything in one batch)."""
        for start in range(200, 400, 40):
            time.sleep(0.5)
            if start == 360:
                seen_batch.wait(120)
            produce_ids(kafka, topic, range(start, start + 40))

    feeding = threading.Thread(target=feed, name="feed", daemon=True)
    scrapes: list[Samples] = []
    failures: list[OSError] = []
    stop = threading.Event()
    with serving_metrics(settings) as metrics:
        assert isinstance(metrics, PrometheusSinkMetrics)
        port = metrics.port

        def scrape_while_running() -> None:
            while not stop.wait(0.3):
                try:
                    scrapes.append(_scrape(port))
                except OSError as error:  # a busy machine: the next scrape tries again
                    failures.append(error)
                    continue
                if scrapes[-1][("lakesink_batches_total", (("connector", settings.name),))] >= 1:
                    seen_batch.set()

        scraper = threading.Thread(target=scrape_while_running, name="scrape", daemon=True)
        job = sink_run(settings, spark, checkpoint_dir=str(tmp_path / "ck"), metrics=metrics)
        scraper.start()
        feeding.start()
        try:
            run_until_drained(spark, job, feeding=feeding)
        finally:
            stop.set()
            scraper.join()
        final = _scrape(port)

    connector = ("connector", settings.name)
    during = [sample[("lakesink_batches_total", (connector,))] for sample in scrapes]
    assert any(batches >= 1 for batches in during), f"no scrape saw a batch: {during}, {failures}"
    assert final["lakesink_records_written_total", (connector, ("topic", topic))] == 400
    for partition in range(PARTITIONS):
        where = (connector, ("partition", str(partition)), ("topic", topic))
        assert final["lakesink_committed_offset", where] == 400 // PARTITIONS - 1
        assert final["lakesink_consumer_lag", where] == 0

    store = open_store(settings.backend, settings.storage)
    keys = data_keys(store, "bkt")
    lines = [len(store.get("bkt", key).data.splitlines()) for key in keys]
    assert sorted(json.loads(line)["id"] for key in keys for line in store.get("bkt", key).data.splitlines()) == list(
        range(400)
    )
    rolled = {reason: final["lakesink_files_rolled_total", (connector, ("reason", reason))]
              for reason in ("count", "end_of_batch", "size", "schema_change")}
    assert rolled["count"] == sum(1 for n in lines if n == FLUSH_COUNT) > 0
    assert rolled["end_of_batch"] == sum(1 for n in lines if n < FLUSH_COUNT)
    assert rolled["size"] == rolled["schema_change"] == 0
    assert final["lakesink_objects_written_total", (connector,)] == len(keys)
    assert final["lakesink_store_requests_total", (connector,)] > len(keys)  # plans, uploads and locks
    assert final["lakesink_batch_duration_seconds_count", (connector,)] == len(job.reports)


def test_the_command_flag_wins_over_the_setting_and_logs_where_it_serves(
    kafka: EmbeddedKafka, topic: str, tmp_path: Path
) -> None:
    (tmp_path / "store" / "bkt").mkdir(parents=True)
    produce_ids(kafka, topic, range(20))
    with socket.socket() as taken:  # the setting names a port that is taken: only the flag lets the run start
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        props = local_props(
            tmp_path / "store", f"INSERT INTO bkt:out SELECT * FROM {topic} STOREAS `JSON`", topic, kafka,
            **{"connect.local.metrics.port": str(taken.getsockname()[1])},
        )
        config = tmp_path / "sink.json"
        config.write_text(json.dumps(props))
        done = subprocess.run(
            [sys.executable, "-m", "lakesink.application.cli", "sink", "--once", "--config", str(config),
             "--metrics-port", "0", "--log-level", "INFO", "--quiet"],
            capture_output=True, text=True, timeout=300, check=False,
        )

    assert done.returncode == 0, done.stderr[-3000:]
    served = re.search(rf"Prometheus metrics of {props['name']} on http://127\.0\.0\.1:(\d+)/metrics", done.stderr)
    assert served is not None and served.group(1) != "0", done.stderr[-3000:]
    assert "sink_run: Batch 0: " in done.stderr  # --quiet leaves the logs alone, drops the progress lines
    assert not re.search(r"^(batch \d+|sink summary):", done.stderr, re.M), done.stderr[-3000:]
