"""The Avro writer's compiled path writes byte for byte the files fastavro alone writes.

Every test writes the same records twice: as shipped, and with :func:`row_encoder` answering
None, which makes the writer encode every row with fastavro's ``Writer.write`` (the reference).
Files, the record at which a schema change rolls the file, and ``bytes_written`` after every
record (what flush.size rolls on) must all be equal.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pytest

from lakesink.adapters.formats import avro
from lakesink.adapters.formats.avro import AvroWriter
from lakesink.domain.errors import RecordError, SchemaChangedError
from lakesink.domain.formats import SUPPORTED_CODECS, CompressionCodec, Format
from lakesink.domain.records import Record
from lakesink.domain.schema.envelope_fields import EnvelopeFields

pytestmark = pytest.mark.integration

AVRO_CODECS = sorted(SUPPORTED_CODECS[Format.AVRO], key=lambda codec: codec.value)
HEADERS_OF_EVERY_TYPE = (
    ("bytes", b"\x00\xff"), ("str", "s"), ("int", 3), ("float", 0.5), ("bool", True), ("null", None),
    ("nested", {"a": [1, 2]}), ("when", datetime(2024, 1, 1, tzinfo=UTC)), ("dup", b"first"), ("dup", b"last"),
)


class Outcome:
    """What writing records one by one gave: the files' bytes, sizes seen, where files rolled."""

    def __init__(self) -> None:
        self.files: list[bytes] = []
        self.sizes: list[int] = []
        self.rolls: list[int] = []


def write_all(directory: Path, records: Sequence[Record], **options: Any) -> Outcome:
    """Write records as RangeWriter does: a schema change seals the file and the record starts the next."""
    directory.mkdir()
    outcome = Outcome()
    writer = AvroWriter(directory / "0.avro", **options)
    for record in records:
        try:
            writer.write(record)
        except SchemaChangedError:
            writer.close()
            outcome.rolls.append(record.offset)
            writer = AvroWriter(directory / f"{len(outcome.rolls)}.avro", **options)
            writer.write(record)
        outcome.sizes.append(writer.bytes_written)
    writer.close()
    outcome.files = [(directory / f"{number}.avro").read_bytes() for number in range(len(outcome.rolls) + 1)]
    return outcome


def both(tmp_path: Path, records: Sequence[Record], *, compiled: bool = True, **options: Any) -> tuple[Outcome, Outcome]:
    """Both outcomes; ``compiled`` says whether every file of the fast run must take the compiled path."""
    answers: list[bool] = []
    real = avro.row_encoder

    def spy(schema: Any, envelope: Any) -> Any:
        encoder = real(schema, envelope)
        answers.append(encoder is not None)
        return encoder

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(avro, "row_encoder", spy)
        fast = write_all(tmp_path / "fast", records, **options)
        patch.setattr(avro, "row_encoder", lambda schema, envelope: None)
        reference = write_all(tmp_path / "reference", records, **options)
    assert answers and all(answer == compiled for answer in answers), answers
    return fast, reference


def assert_identical(fast: Outcome, reference: Outcome) -> None:
    assert fast.rolls == reference.rolls
    assert fast.sizes == reference.sizes
    assert fast.files == reference.files


def order(offset: int, **changes: Any) -> Record:
    value: dict[str, Any] = {
        "id": f"o-{offset:06d}",
        "customer": {"id": f"c-{offset % 97}", "tier": ("basic", "gold")[offset % 2]},
        "amount": round(offset * 1.37, 2),
        "items": offset % 9,
        "note": "é😀" * (offset % 4) + "x" * (offset % 90),
        "tags": ["a", "b", "c"][: 1 + offset % 3],
    }
    fields = {"key": f"k{offset}", "value": value, "headers": (("origin", b"bench"), ("trace", f"{offset:x}".encode()))}
    fields.update(changes)
    return Record("orders", 3, offset, 1_763_000_000_000 + offset * 13, **fields)


@pytest.mark.parametrize("codec", AVRO_CODECS, ids=lambda codec: codec.value)
def test_envelope_files_over_many_blocks_are_identical_for_every_codec(tmp_path: Path, codec: CompressionCodec) -> None:
    records = [order(offset) for offset in range(3_000)]  # several 64 KiB blocks

    fast, reference = both(tmp_path, records, codec=codec, envelope=EnvelopeFields())

    assert_identical(fast, reference)
    assert len(fast.files) == 1 and len(fast.files[0]) > 3 * avro.SYNC_INTERVAL // 10


def test_plain_values_with_logical_types_are_identical(tmp_path: Path) -> None:
    records = [
        Record("t", 0, offset, None, value={"at": datetime(2024, 1, 1, 0, 0, offset % 60, tzinfo=UTC),
                                           "price": Decimal(f"{offset}.25"), "n": offset})
        for offset in range(500)
    ]

    fast, reference = both(tmp_path, records, codec=CompressionCodec.SNAPPY)

    assert_identical(fast, reference)


def test_tombstones_null_keys_and_headers_of_every_type_are_identical(tmp_path: Path) -> None:
    records = [
        order(0, headers=HEADERS_OF_EVERY_TYPE),
        order(1, key=None, headers=HEADERS_OF_EVERY_TYPE),
        order(2, value=None, headers=HEADERS_OF_EVERY_TYPE),  # tombstone
        order(3, headers=HEADERS_OF_EVERY_TYPE[:4]),  # some headers absent: they are nullable
        Record("orders", 3, 4, None, key="no timestamp", value=None, headers=HEADERS_OF_EVERY_TYPE),
    ]

    fast, reference = both(tmp_path, records, envelope=EnvelopeFields())

    assert_identical(fast, reference)
    assert fast.rolls == []
    rows = list(fastavro.reader(io.BytesIO(fast.files[0])))
    assert rows[2]["value"] is None and rows[1]["key"] is None and rows[0]["headers"]["dup"] == b"last"


def test_schema_changes_mid_file_roll_at_the_same_records(tmp_path: Path) -> None:
    records = [
        order(0),
        order(1),
        order(2, value={"other": 1}),  # a value of another shape
        order(3, value={"other": 2}),
        order(4, value={"other": "text"}),  # a field changes type
        order(5, headers=()),  # headers "null" no longer fit
        order(6, headers=()),
        order(7, key=42),  # a key of another type
        order(8, headers=(("new", b"h"),)),
    ]

    fast, reference = both(tmp_path, records, envelope=EnvelopeFields())

    assert_identical(fast, reference)
    assert fast.rolls == [2, 4, 5, 7, 8]


def test_partial_envelopes_are_identical(tmp_path: Path) -> None:
    records = [order(offset) for offset in range(200)]
    partial = (EnvelopeFields(key=False), EnvelopeFields(value=False, metadata=False), EnvelopeFields(headers=False))
    for number, fields in enumerate(partial):
        (tmp_path / str(number)).mkdir()
        fast, reference = both(tmp_path / str(number), records, envelope=fields)
        assert_identical(fast, reference)


def test_write_many_fixes_the_batch_schema_then_writes_identical_files(tmp_path: Path) -> None:
    records = [order(0), order(1, key=None), order(2, value={**order(2).value, "extra": 1.5}), order(3)]

    def write(directory: Path) -> bytes:
        writer = AvroWriter(directory, codec=CompressionCodec.DEFLATE, envelope=EnvelopeFields())
        assert writer.write_many(records) == len(records)
        writer.close()
        return directory.read_bytes()

    fast = write(tmp_path / "fast.avro")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(avro, "row_encoder", lambda schema, envelope: None)
        assert write(tmp_path / "reference.avro") == fast


def test_a_poison_record_is_reported_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    writer = AvroWriter(tmp_path / "out.avro", envelope=EnvelopeFields())
    writer.write(order(0))
    size = writer.bytes_written

    with pytest.raises(RecordError):
        writer.write(order(1, value={"bad": {1, 2}}))

    assert writer.bytes_written == size
    writer.write(order(2))
    writer.close()
    with open(tmp_path / "out.avro", "rb") as data:
        assert [row["metadata"]["offset"] for row in fastavro.reader(data)] == [0, 2]


def test_a_union_of_several_types_is_written_by_fastavro_row_by_row(tmp_path: Path) -> None:
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": ["null", "string", "long"]}]}
    records = [Record("t", 0, offset, None, value={"v": (None, "s", offset)[offset % 3]}, value_schema=schema)
               for offset in range(30)]

    fast, reference = both(tmp_path, records, compiled=False)

    assert_identical(fast, reference)
