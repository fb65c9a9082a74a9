from __future__ import annotations

import dataclasses
import pickle

import pyarrow as pa
import pytest

from lakesink.adapters.kafka.range_rows import RangeReader, range_batch, ranges_in
from lakesink.adapters.kafka.source_options import SourceOptions, encode_options
from lakesink.domain.config.secret import Secret
from lakesink.domain.errors import ConfigError
from lakesink.domain.offset_range import OffsetRange


def test_a_range_becomes_one_row_and_comes_back_unchanged() -> None:
    offset_range = OffsetRange("orders", 3, 40, 95)

    batch = range_batch(offset_range)

    assert batch.num_rows == 1
    assert batch.schema.names == ["topic", "partition", "start", "end"]
    assert batch.schema.field("partition").type == pa.int32()
    assert ranges_in(batch) == [offset_range]


def test_ranges_of_several_rows_keep_their_order() -> None:
    batches = [range_batch(OffsetRange("a", p, p, p + 10)) for p in (2, 0, 1)]

    merged = pa.Table.from_batches(batches).combine_chunks().to_batches()[0]

    assert [r.partition for r in ranges_in(merged)] == [2, 0, 1]


def test_ranges_only_is_off_unless_set_and_rejects_non_booleans() -> None:
    base = {"kafka.bootstrap.servers": "b:1", "subscribe": "t"}

    assert SourceOptions.parse(base).ranges_only is False
    assert SourceOptions.parse({**base, "RANGESONLY": "TRUE"}).ranges_only is True
    with pytest.raises(ConfigError, match="rangesOnly"):
        SourceOptions.parse({**base, "rangesOnly": "sometimes"})


def test_range_reader_keeps_the_source_consumer_settings_and_secrets_through_pickling() -> None:
    options = SourceOptions.parse(
        encode_options(
            {
                "kafka.bootstrap.servers": "b:1",
                "subscribe": "t",
                "kafka.sasl.password": Secret("pw"),
                "kafka.group.id": "g",
                "arrowBatchRecords": "123",
                "readStallTimeoutSeconds": "5",
                "includeHeaders": "true",
                "failOnDataLoss": "false",
            }
        )
    )

    reader = pickle.loads(pickle.dumps(RangeReader.of(options)))

    assert reader.client_settings["sasl.password"] == Secret("pw")
    assert (reader.group_id, reader.batch_records, reader.stall_timeout_s) == ("g", 123, 5.0)
    assert (reader.header_column, reader.fail_on_data_loss) == (True, False)
    assert "pw" not in repr(reader)


def test_a_reader_without_headers_differs_only_in_headers_and_stays_so_through_pickling() -> None:
    reader = RangeReader.of(SourceOptions.parse({"kafka.bootstrap.servers": "b:1", "subscribe": "t"}))

    bare = pickle.loads(pickle.dumps(reader.without_headers()))

    assert (reader.headers, bare.headers) == (True, False)
    assert bare == dataclasses.replace(reader, headers=False)


def test_reading_an_empty_range_needs_no_broker() -> None:
    reader = RangeReader.of(SourceOptions.parse({"kafka.bootstrap.servers": "127.0.0.1:1", "subscribe": "t"}))

    assert list(reader.read(OffsetRange("t", 0, 5, 5))) == []
