"""lakesink's Aiven object names against Aiven's own grouper and template (the code its S3 sink names
every object with), one JVM run: ``file.name.template`` with topic, partition, start_offset (padded
and not), timestamp units in two zones, key groupings, and ``file.max.records``; each file's name and
the offsets it holds must be Aiven's.

Pinned deviation: a bytes key (ByteArrayConverter) is named by its UTF-8 text in lakesink; Aiven's
``{{key}}`` prints Java's ``[B@<identity hash>``, another name on every run (docs/dialects.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.aiven.files import AivenFiles
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.records import Record
from tests.support.aiven_configs import CONSOLE_WITH_AWS
from tests.support.aiven_oracle.java_side import NAMES, aiven_oracle_missing_reason, record_json, run_aiven

#: Two partitions of five records, an hour apart (the timestamp names cross a day in Helsinki, not in UTC).
RECORDS = tuple(
    Record("orders", partition, offset, 1_700_002_800_000 + offset * 3_600_000, f"k{offset % 2}".encode(), b"v")
    for partition in (0, 1)
    for offset in range(5)
)
TIME = "{{timestamp:unit=yyyy}}{{timestamp:unit=MM}}{{timestamp:unit=dd}}{{timestamp:unit=HH}}"
CASES: dict[str, dict[str, str]] = {
    "default-parts": {"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}"},
    "padded-max-2": {
        "file.name.template": "{{topic}}-{{partition:padding=true}}-{{start_offset:padding=true}}.gz",
        "file.max.records": "2",
    },
    "max-1": {"file.name.template": "{{topic}}-{{partition}}-{{start_offset}}", "file.max.records": "1"},
    "event-time-utc": {
        "file.name.template": f"{{{{topic}}}}-{TIME}-{{{{partition}}}}-{{{{start_offset}}}}",
        "file.name.timestamp.source": "event", "file.max.records": "3",
    },
    "event-time-helsinki": {
        "file.name.template": f"{{{{topic}}}}/{TIME}/{{{{partition}}}}-{{{{start_offset}}}}",
        "file.name.timestamp.source": "event", "file.name.timestamp.timezone": "Europe/Helsinki",
    },
}
KEY_CASES: dict[str, dict[str, str]] = {
    "key": {"file.name.template": "{{key}}"},
    "topic-partition-key": {"file.name.template": "{{topic}}/{{partition}}/{{key}}"},
}


@pytest.fixture(scope="module")
def aiven_names(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Aiven's files (name -> offsets) for every case, by case id, from one JVM run."""
    reason = aiven_oracle_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    cases = [
        {"id": case_id, "config": config, "records": [record_json(record) for record in RECORDS]}
        for case_id, config in {**CASES, **KEY_CASES}.items()
    ]
    return run_aiven(NAMES, cases, tmp_path_factory.mktemp("aiven-names"))


def _lakesink_files(config: dict[str, str], tmp_path: Path) -> dict[str, list[int]]:
    """What lakesink files ``RECORDS`` under: object key -> the offsets of the records it holds
    (one range per partition, as a sink task writes them)."""
    writing = AivenSinkConfig.from_properties({**CONSOLE_WITH_AWS, **config}).writing
    files: dict[str, list[int]] = {}
    for partition in (0, 1):
        range_files = AivenFiles(writing, "bucket", tmp_path / str(partition))
        for record in RECORDS:
            if record.partition == partition:
                range_files.write(record, ())
        for sealed in range_files.finish():
            first = sealed.last_offset if sealed.replaces else sealed.first_offset
            files[sealed.key] = list(range(first, sealed.last_offset + 1))
    return files


@pytest.mark.parametrize("case_id", CASES)
def test_lakesink_names_files_as_aivens_grouper_does(
    aiven_names: dict[str, dict[str, Any]], case_id: str, tmp_path: Path
) -> None:
    aiven = aiven_names[case_id]
    assert "error" not in aiven, aiven.get("error")
    assert _lakesink_files(CASES[case_id], tmp_path) == aiven["files"]


@pytest.mark.parametrize("case_id", KEY_CASES)
def test_a_bytes_key_names_by_its_text_where_aiven_prints_a_java_reference(
    aiven_names: dict[str, dict[str, Any]], case_id: str, tmp_path: Path
) -> None:
    aiven = aiven_names[case_id]
    assert "error" not in aiven, aiven.get("error")
    ours = _lakesink_files(KEY_CASES[case_id], tmp_path)
    assert all(re.search(r"\[B@[0-9a-f]+$", name) for name in aiven["files"])
    # each byte[] is another object to Java: Aiven files every record under a name of its own, no
    # record replaces another; lakesink keeps the latest record of each key (of each partition, where
    # the template names one), as Aiven does for string keys
    assert sorted(offsets for offsets in aiven["files"].values()) == sorted([r.offset] for r in RECORDS)
    last = {(r.partition, r.key): r.offset for r in RECORDS}
    per_partition = "{{partition}}" in KEY_CASES[case_id]["file.name.template"]
    expected = {
        f"orders/{partition}/{key.decode()}" if per_partition else key.decode(): [offset]
        for (partition, key), offset in last.items()
    }
    assert ours == expected
