"""Whole connector configs through lakesink's Aiven dialect and through Aiven's sink task (the commons'
grouper and writers, driven as S3SinkTask drives them: tests/support/aiven_oracle/AivenSinkTaskOracle.java),
one JVM run: the object keys and bytes each uploads for seed 003's two configs (the console's and the
curl example's, with ``aws.s3.prefix``), the default template, prefixes, string keys that need care,
output fields and encodings, wall-clock names, and records spread over Connect flushes.

csv/json/jsonl only: parquet and avro do not run in Aiven's commons here (test_aiven_writers.py pins
why), so a seed config set to either is compared by its names alone, never its bytes (none of seed
003's configs is)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakesink.adapters.dialects.aiven.compression import decompressed
from lakesink.adapters.dialects.aiven.files import AivenFiles
from lakesink.domain.dialects.aiven.naming import AivenCompression, content_compression
from lakesink.domain.dialects.aiven.sink_config import AivenSinkConfig
from lakesink.domain.errors import ConfigError
from lakesink.domain.records import Record
from tests.support.aiven_configs import CONSOLE_WITH_AWS, CURL
from tests.support.aiven_oracle.java_side import (
    SINK_TASK,
    aiven_oracle_missing_reason,
    record_json,
    run_aiven,
)

HEADERS = (("trace-id", b"abc-123"), ("ünïcode", "✓ 🙂".encode()))
#: Keys, null keys, tombstones, headers, unicode, three partitions, in offset order per partition.
RECORDS = (
    Record("orders", 0, 0, 1_700_000_000_000, b"k1", b'{"id":1,"name":"caf\xc3\xa9"}', HEADERS),
    Record("orders", 0, 1, 1_700_000_000_001, None, b"no key", ()),
    Record("orders", 0, 2, 1_700_000_000_002, b"k1", None, ()),  # a tombstone
    Record("orders", 1, 40, 1_700_000_000_003, "ключ".encode(), "значение 🙂".encode(), HEADERS[:1]),
    Record("orders", 1, 41, 1_700_000_000_004, b"k1", b"a,b;c:d\ne", ()),
    Record("orders", 2, 7, 1_700_000_000_005, b"k2", b"v", ()),
)
#: String keys (StringConverter) that need care: a slash, unicode, empty, null; ``a/b`` twice.
STRING_KEYS = (
    Record("orders", 0, 0, 1_700_000_000_000, b"a/b", b"1", ()),
    Record("orders", 0, 1, 1_700_000_000_001, "ключ 🙂".encode(), b"2", ()),
    Record("orders", 0, 2, 1_700_000_000_002, b"", b"3", ()),
    Record("orders", 0, 3, 1_700_000_000_003, None, b"4", ()),
    Record("orders", 1, 5, 1_700_000_000_004, b"a/b", b"5", ()),
)
STRING_CONVERTER = {"key.converter": "org.apache.kafka.connect.storage.StringConverter"}
HOUR = "{{timestamp:unit=yyyy}}{{timestamp:unit=MM}}{{timestamp:unit=dd}}{{timestamp:unit=HH}}"

#: case id -> (config, records), the records handed over in one flush
CASES: dict[str, tuple[dict[str, str], tuple[Record, ...]]] = {
    "seed-003-curl": (CURL, RECORDS),
    "console-compression-none": ({**CONSOLE_WITH_AWS, "file.compression.type": "none"}, RECORDS),
    "console-zstd-jsonl-all-fields-none": ({
        **CONSOLE_WITH_AWS, "file.compression.type": "zstd", "format.output.type": "jsonl",
        "format.output.fields": "key,value,offset,timestamp,headers",
        "format.output.fields.value.encoding": "none",
    }, RECORDS),
    "json-all-fields-base64-snappy": ({
        **CONSOLE_WITH_AWS, "file.compression.type": "snappy", "format.output.type": "json",
        "format.output.fields": "key,value,offset,timestamp,headers",
    }, RECORDS),
    "jsonl-value-no-envelope": ({
        **CONSOLE_WITH_AWS, "file.compression.type": "none", "format.output.type": "jsonl",
        "format.output.envelope": "false", "format.output.fields": "value",
        "format.output.fields.value.encoding": "none",
    }, RECORDS),
    "prefix-topic-partition-default-gzip": ({
        **CONSOLE_WITH_AWS, "aws.s3.prefix": "raw/{{topic}}/{{partition}}/", "file.max.records": "2",
    }, RECORDS),
    "prefix-csv-none": ({**CURL, "file.compression.type": "none"}, RECORDS),
    "template-max-records-padded": ({
        **CONSOLE_WITH_AWS, "file.compression.type": "none", "file.max.records": "2", "format.output.fields": "key,value",
        "file.name.template": "{{topic}}/{{partition:padding=true}}/{{start_offset:padding=true}}.csv",
    }, RECORDS),
    "string-key": ({
        **CONSOLE_WITH_AWS, **STRING_CONVERTER, "file.compression.type": "none", "file.name.template": "{{key}}",
        "format.output.fields": "key,value",
    }, STRING_KEYS),
    "string-topic-partition-key": ({
        **CONSOLE_WITH_AWS, **STRING_CONVERTER, "file.compression.type": "none",
        "file.name.template": "{{topic}}/{{partition}}/{{key}}.csv",
    }, STRING_KEYS),
}
#: Names that read the clock: the wall-clock hour in a template, dates and hours in a prefix (an
#: event hour in Helsinki beside the local date).
CLOCKED = {
    "wallclock": {
        **CONSOLE_WITH_AWS, "file.compression.type": "none",
        "file.name.template": f"{{{{topic}}}}/{HOUR}/{{{{partition}}}}-{{{{start_offset}}}}",
        "file.name.timestamp.source": "wallclock",
    },
    "prefix-utc-date-start-offset": {
        **CURL, "aws.s3.prefix": "{{utc_date}}/{{topic}}-{{start_offset:padding=true}}-{{start_offset}}/",
    },    "prefix-local-date-event-hour-helsinki": {
        **CURL, "aws.s3.prefix": "{{local_date}}/{{timestamp:unit=yyyy}}-{{timestamp:unit=HH}}/",
        "timestamp.source": "event", "timestamp.timezone": "Europe/Helsinki",
    },
    "prefix-wallclock-hour": {**CURL, "aws.s3.prefix": "{{timestamp:unit=dd}}{{timestamp:unit=HH}}/"},
}
#: No envelope and no ``format.output.fields``: 2.x runs it, 3.x refuses it.
BARE_WITHOUT_FIELDS = {**CONSOLE_WITH_AWS, "file.compression.type": "none", "format.output.envelope": "false",
                       "format.output.type": "jsonl"}
#: One partition's records over two Connect flushes (``offset.flush.interval.ms`` apart).
FLUSHES = ((0, 1), (2,))
FLUSHED = {**CONSOLE_WITH_AWS, "file.compression.type": "none", "format.output.fields": "key,value"}


def _case(case_id: str, config: dict[str, str], flushes: list[tuple[Record, ...]]) -> dict[str, Any]:
    string_keys = config.get("key.converter", "").endswith("StringConverter")
    return {
        "id": case_id, "config": config,
        "flushes": [[{**record_json(r), "string_key": string_keys} for r in flush] for flush in flushes],
    }


@pytest.fixture(scope="module")
def aiven_objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Aiven's objects (key -> bytes in hex) or error for every case, by id, from one JVM run."""
    reason = aiven_oracle_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    cases = [_case(case_id, config, [records]) for case_id, (config, records) in CASES.items()] + [
        *(_case(case_id, config, [RECORDS]) for case_id, config in CLOCKED.items()),
        _case("seed-003-console", CONSOLE_WITH_AWS, [RECORDS]),
        _case("two-flushes", FLUSHED, [tuple(RECORDS[i] for i in flush) for flush in FLUSHES]),
        _case("key-two-flushes", CASES["string-key"][0], [STRING_KEYS[:3], STRING_KEYS[3:]]),
        _case("bare-without-fields", BARE_WITHOUT_FIELDS, [RECORDS]),
    ]
    return run_aiven(SINK_TASK, cases, tmp_path_factory.mktemp("aiven-sink-task"))


def _lakesink_objects(
    config: dict[str, str], batches: list[tuple[Record, ...]], tmp_path: Path, clock_ms: int | None = None
) -> dict[str, bytes]:
    """What lakesink uploads for ``batches`` (each a micro-batch: one range per partition), content
    decompressed: object key -> bytes, a later batch's object replacing an earlier one's."""
    writing = AivenSinkConfig.from_properties(config).writing
    objects: dict[str, bytes] = {}
    for number, batch in enumerate(batches):
        for partition in sorted({r.partition for r in batch}):
            files = AivenFiles(writing, "bucket", tmp_path / f"{number}-{partition}", clock_ms)
            for record in batch:
                if record.partition == partition:
                    files.write(record, ())
            for sealed in files.finish():
                assert sealed.key not in objects or sealed.replaces, f"{sealed.key} written twice"
                objects[sealed.key] = sealed.path.read_bytes()
    return _content(config, objects)


def _content(config: dict[str, str], objects: dict[str, bytes]) -> dict[str, bytes]:
    """Each object's content: gzip and snappy are compared decompressed (test_aiven_writers.py pins
    their framing, which differs; none and zstd are byte-identical there)."""
    compression = content_compression(config)
    if compression in (AivenCompression.GZIP, AivenCompression.SNAPPY):
        return {key: decompressed(compression, data) for key, data in objects.items()}
    return objects


def _aiven(aiven_objects: dict[str, dict[str, Any]], case_id: str, config: dict[str, str]) -> dict[str, bytes]:
    aiven = aiven_objects[case_id]
    assert "error" not in aiven, aiven.get("error")
    return _content(config, {key: bytes.fromhex(data) for key, data in aiven["objects"].items()})


@pytest.mark.parametrize("case_id", CASES)
def test_lakesink_uploads_the_objects_aivens_sink_task_uploads(
    aiven_objects: dict[str, dict[str, Any]], case_id: str, tmp_path: Path
) -> None:
    config, records = CASES[case_id]
    assert _lakesink_objects(config, [records], tmp_path) == _aiven(aiven_objects, case_id, config)


@pytest.mark.parametrize("case_id", CLOCKED)
def test_clocked_names_are_aivens_at_a_clock_between_before_and_after(
    aiven_objects: dict[str, dict[str, Any]], case_id: str, tmp_path: Path
) -> None:
    config = CLOCKED[case_id]
    before, after = aiven_objects[case_id]["clock"]
    theirs = _aiven(aiven_objects, case_id, config)
    # Aiven read its clock inside [before, after]; its names are lakesink's at one of the ends
    # (an hour or a day that turns between them gives two candidates, never a flaky result)
    assert theirs in (
        _lakesink_objects(config, [RECORDS], tmp_path / "before", before),
        _lakesink_objects(config, [RECORDS], tmp_path / "after", after),
    )


def test_the_default_name_has_no_gz_where_the_2x_connector_adds_it(
    aiven_objects: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """Seed 003's console config: no compression key (gzip either way), no template. The 2.x connector's
    default template takes the overridden compression getter (``.gz``); the 3.x connector's
    ``FileNameFragment`` reads the key itself (none: no extension), and lakesink follows 3.x."""
    theirs = _aiven(aiven_objects, "seed-003-console", CONSOLE_WITH_AWS)
    ours = _lakesink_objects(CONSOLE_WITH_AWS, [RECORDS], tmp_path)
    assert sorted(theirs) == ["orders-0-0.gz", "orders-1-40.gz", "orders-2-7.gz"]
    assert {f"{key}.gz": content for key, content in ours.items()} == theirs


def test_one_batch_over_two_connect_flushes_is_one_object_not_two(
    aiven_objects: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """Aiven writes every group at each Connect flush, so a partition's records of two flushes are two
    objects, the second named by its flush's first offset; lakesink's file ends at its batch, which
    may span Aiven's flushes. With batches cut where the flushes are, the objects are Aiven's."""
    theirs = _aiven(aiven_objects, "two-flushes", FLUSHED)
    batches = [tuple(RECORDS[i] for i in flush) for flush in FLUSHES]
    assert _lakesink_objects(FLUSHED, batches, tmp_path / "as-flushed") == theirs
    ours = _lakesink_objects(FLUSHED, [batches[0] + batches[1]], tmp_path / "one-batch")
    assert sorted(theirs) == ["orders-0-0", "orders-0-2"]
    assert list(ours) == ["orders-0-0"]
    # the same rows (Aiven's csv puts no newline after a file's last row)
    assert ours["orders-0-0"].split(b"\n") == theirs["orders-0-0"].split(b"\n") + theirs["orders-0-2"].split(b"\n")


def test_a_later_flush_overwrites_a_keys_object_as_a_later_batch_does(
    aiven_objects: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    config = CASES["string-key"][0]
    theirs = _aiven(aiven_objects, "key-two-flushes", config)
    assert _lakesink_objects(config, [STRING_KEYS[:3], STRING_KEYS[3:]], tmp_path) == theirs
    assert theirs["a/b"] == b"YS9i,NQ=="  # base64 of a/b and 5: the second flush's record of a/b


def test_no_envelope_without_fields_is_refused_as_3x_refuses_where_2x_writes_bare_values(
    aiven_objects: dict[str, dict[str, Any]]
) -> None:
    theirs = _aiven(aiven_objects, "bare-without-fields", BARE_WITHOUT_FIELDS)
    assert theirs["orders-2-7"] == b'"dg=="'  # 2.x: the default field, value, base64, bare
    with pytest.raises(ConfigError, match="format.output.fields must contain only one field"):
        AivenSinkConfig.from_properties(BARE_WITHOUT_FIELDS)
