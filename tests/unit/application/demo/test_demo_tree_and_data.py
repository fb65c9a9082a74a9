"""The demo's object tree, sample events and connector configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakesink.adapters.demo.readback import ListedObject
from lakesink.adapters.demo.s3 import S3Endpoint
from lakesink.application.demo.configs import local_json_config, s3_parquet_config, write_config
from lakesink.application.demo.data import order_events
from lakesink.application.demo.tree import render_tree
from lakesink.domain.config.connector import ConnectorSettings
from lakesink.domain.config.properties_text import load_config_text
from lakesink.domain.progress import human_size
from lakesink.domain.statement_plan import plan_sink


def test_tree_nests_keys_by_folder_and_shows_sizes() -> None:
    tree = render_tree("bucket/", [ListedObject("a/x.json", 10), ListedObject("a/b/y.json", 2048),
                                   ListedObject("z.json", 1)])

    assert tree.splitlines() == [
        "bucket/  (3 objects, 2.0 KiB)",
        "├── a/",
        "│   ├── b/",
        "│   │   └── y.json  2.0 KiB",
        "│   └── x.json  10 B",
        "└── z.json  1 B",
    ]


def test_tree_cuts_long_folders_and_counts_what_it_hid() -> None:
    objects = [ListedObject(f"f{n}.json", 100) for n in range(5)]

    lines = render_tree("b/", objects, max_entries=2).splitlines()

    assert lines[1:] == [
        "├── f0.json  100 B",
        "├── f1.json  100 B",
        "└── … 3 more entries (3 objects, 300 B)",
    ]


def test_human_size_uses_binary_units() -> None:
    sizes = (0, 1023, 1536, 5 * 1024 * 1024)
    assert [human_size(n) for n in sizes] == ["0 B", "1023 B", "1.5 KiB", "5.0 MiB"]


def test_order_events_are_reproducible_from_the_seed_and_have_unique_keys() -> None:
    first = list(order_events(300, seed=7, start_ms=1_000))
    again = list(order_events(300, seed=7, start_ms=1_000))

    assert first == again
    assert len({event.key for event in first}) == 300
    assert [event.timestamp_ms for event in first] == sorted(event.timestamp_ms for event in first)
    assert all(dict(event.headers).keys() == {"region", "channel", "trace-id"} for event in first)


def test_order_values_keep_one_shape_so_parquet_infers_one_schema() -> None:
    shapes = {
        tuple(sorted((name, type(value).__name__) for name, value in json.loads(event.value).items()))
        for event in order_events(500, seed=3, start_ms=0)
    }

    assert len(shapes) == 1


def test_written_configs_load_as_valid_sink_configs(tmp_path: Path) -> None:
    endpoint = S3Endpoint("http://127.0.0.1:9")
    s3 = s3_parquet_config("demo-s3", topic="orders", bootstrap_servers="127.0.0.1:1",
                           s3_settings=endpoint.connector_settings(), bucket="bkt", prefix="orders",
                           flush_count=10, flush_interval_s=2)
    local = local_json_config("demo-local", topic="orders", bootstrap_servers="127.0.0.1:1", root=tmp_path,
                              bucket="bkt", prefix="orders", flush_count=10)

    for settings in (s3, local):
        path = write_config(tmp_path, settings)
        loaded = load_config_text(path.read_text(), filename=path.name)
        assert loaded == settings
        plan_sink(ConnectorSettings.from_properties(loaded))  # raises on any invalid setting
    assert "'flush.interval'=2" in s3["connect.s3.kcql"]
    assert (tmp_path / "bkt").is_dir()


def test_demo_refuses_more_records_than_the_embedded_broker_keeps() -> None:
    from lakesink.application.demo.run import MAX_RECORDS, DemoOptions
    from lakesink.domain.errors import ConfigError

    DemoOptions(records=MAX_RECORDS)
    with pytest.raises(ConfigError, match="--records must be between 1 and"):
        DemoOptions(records=MAX_RECORDS + 1)
    with pytest.raises(ConfigError, match="--records"):
        DemoOptions(records=0)
