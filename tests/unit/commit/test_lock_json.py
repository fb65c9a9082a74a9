"""Lock JSON: byte-exact Lenses (circe noSpaces) output and tolerant reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakesink.domain.commit.locks import (
    CopyOp,
    DeleteOp,
    IndexLock,
    LockFormatError,
    PendingState,
    UploadOp,
    decode_lock,
    encode_lock,
)
from lakesink.domain.errors import CommitError

# Lenses' temp key (no "/" after the uuid): the encoder must carry any key verbatim.
TEMP = (
    ".temp-upload/Topic(orders)/0/5f2b0c1e-0000-4000-8000-000000000000"
    + "out/orders/0/000000000001_1000_1001.json"
)
FINAL = "out/orders/0/000000000001_1000_1001.json"


def test_an_empty_lock_is_encoded_exactly_as_lenses_writes_it() -> None:
    assert (
        encode_lock(IndexLock("U", None, None)) == b'{"owner":"U","committedOffset":null,"pendingState":null}'
    )


def test_a_committed_lock_is_encoded_exactly_as_lenses_writes_it() -> None:
    assert encode_lock(IndexLock("U", 1, None)) == b'{"owner":"U","committedOffset":1,"pendingState":null}'


def test_the_index_model_test_example_matches_byte_for_byte() -> None:
    lock = IndexLock("owner-1", 1, PendingState(2, (CopyOp("bucket", "src", "dest", "myEtag"),)))
    expected = (
        b'{"owner":"owner-1","committedOffset":1,"pendingState":{"pendingOffset":2,"pendingOperations":'
        b'[{"type":"copy","bucket":"bucket","source":"src","destination":"dest","eTag":"myEtag"}]}}'
    )
    assert encode_lock(lock) == expected


def test_the_walk_through_lock_after_the_upload_matches_byte_for_byte() -> None:
    lock = IndexLock("U", None, PendingState(1, (CopyOp("b", TEMP, FINAL, "E1"), DeleteOp("b", TEMP, "E1"))))
    expected = (
        '{"owner":"U","committedOffset":null,"pendingState":{"pendingOffset":1,"pendingOperations":['
        f'{{"type":"copy","bucket":"b","source":"{TEMP}","destination":"{FINAL}","eTag":"E1"}},'
        f'{{"type":"delete","bucket":"b","source":"{TEMP}","eTag":"E1"}}]}}}}'
    ).encode()
    assert encode_lock(lock) == expected


def test_the_walk_through_lock_after_the_copy_matches_byte_for_byte() -> None:
    lock = IndexLock("U", None, PendingState(1, (DeleteOp("b", TEMP, "E1"),)))
    expected = (
        '{"owner":"U","committedOffset":null,"pendingState":{"pendingOffset":1,"pendingOperations":['
        f'{{"type":"delete","bucket":"b","source":"{TEMP}","eTag":"E1"}}]}}}}'
    ).encode()
    assert encode_lock(lock) == expected


def test_an_upload_operation_puts_type_first_then_its_fields() -> None:
    lock = IndexLock("U", 3, PendingState(4, (UploadOp("b", "/tmp/staging/file", "k"),)))
    assert encode_lock(lock) == (
        b'{"owner":"U","committedOffset":3,"pendingState":{"pendingOffset":4,"pendingOperations":'
        b'[{"type":"upload","bucket":"b","source":"/tmp/staging/file","destination":"k"}]}}'
    )


def test_strings_are_escaped_like_circe_and_non_ascii_stays_utf8() -> None:
    lock = IndexLock('a"b\\c/\n\t\x01\x7f\x85é€😀', None, None)
    assert (
        encode_lock(lock)
        == (
            '{"owner":"a\\"b\\\\c/\\n\\t\\u0001\\u007f\\u0085é€😀","committedOffset":null,"pendingState":null}'
        ).encode()
    )


def test_a_lone_surrogate_is_written_as_a_question_mark_like_the_jvm() -> None:
    assert encode_lock(IndexLock("a\ud800b", None, None)).startswith(b'{"owner":"a?b"')


@pytest.mark.parametrize(
    ("raw", "op"),
    [
        ('{"type":"upload","bucket":"b","source":"/f","destination":"d"}', UploadOp("b", "/f", "d")),
        (
            '{"type":"copy","bucket":"b","source":"s","destination":"d","eTag":"e"}',
            CopyOp("b", "s", "d", "e"),
        ),
        ('{"type":"delete","bucket":"b","source":"s","eTag":"e"}', DeleteOp("b", "s", "e")),
        ('{"eTag":"e","source":"s","bucket":"b","type":"delete"}', DeleteOp("b", "s", "e")),
    ],
)
def test_every_operation_type_decodes(raw: str, op: object) -> None:
    data = (
        f'{{"owner":"U","committedOffset":7,"pendingState":{{'
        f'"pendingOffset":8,"pendingOperations":[{raw}]}}}}'
    )
    assert decode_lock(data.encode()) == IndexLock("U", 7, PendingState(8, (op,)))  # type: ignore[arg-type]


def test_decoding_accepts_any_key_order_whitespace_and_unknown_fields() -> None:
    data = b'\n { "pendingState" : null ,\n  "extra": [1], "committedOffset" : 42, "owner" : "me" }\n'
    assert decode_lock(data) == IndexLock("me", 42, None)


def test_missing_optional_fields_mean_null() -> None:
    assert decode_lock(b'{"owner":"U"}') == IndexLock("U", None, None)


def test_an_unknown_operation_type_is_reported_like_lenses() -> None:
    data = (
        b'{"owner":"U","committedOffset":1,"pendingState":{'
        b'"pendingOffset":2,"pendingOperations":[{"type":"x"}]}}'
    )
    with pytest.raises(LockFormatError, match="Unknown type: x"):
        decode_lock(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{not json", "Malformed JSON in lock a/b.lock"),
        (b"\xff\xfe", "Malformed JSON in lock a/b.lock"),
        (b"[]", "the document must be a JSON object in lock a/b.lock"),
        (b'{"committedOffset":1}', "owner is missing in lock a/b.lock"),
        (b'{"owner":5}', "owner must be a string"),
        (b'{"owner":"U","committedOffset":"1"}', "committedOffset must be a 64-bit integer"),
        (b'{"owner":"U","committedOffset":1.5}', "committedOffset must be a 64-bit integer"),
        (b'{"owner":"U","committedOffset":true}', "committedOffset must be a 64-bit integer"),
        (b'{"owner":"U","committedOffset":9223372036854775808}', "committedOffset must be a 64-bit integer"),
        (b'{"owner":"U","pendingState":[]}', "pendingState must be a JSON object"),
        (b'{"owner":"U","pendingState":{"pendingOffset":1,"pendingOperations":[]}}', "non-empty array"),
        (
            b'{"owner":"U","pendingState":{"pendingOperations":[{"type":"delete","bucket":"b","source":"s","eTag":"e"}]}}',
            "pendingState.pendingOffset is missing",
        ),
        (
            b'{"owner":"U","pendingState":{"pendingOffset":1,"pendingOperations":[{"type":"copy","bucket":"b","source":"s","eTag":"e"}]}}',
            r"pendingState.pendingOperations\[0\].destination is missing",
        ),
    ],
)
def test_malformed_locks_are_domain_errors_naming_what_is_wrong(data: bytes, message: str) -> None:
    with pytest.raises(LockFormatError, match=message) as info:
        decode_lock(data, key="a/b.lock")
    assert isinstance(info.value, CommitError)


def test_a_pending_state_needs_at_least_one_operation() -> None:
    with pytest.raises(LockFormatError, match="at least one operation"):
        PendingState(1, ())


# --- property: whatever lakesink writes, it reads back --------------------------------------

longs = st.integers(-(2**63), 2**63 - 1)
# Any text but lone surrogates, which no UTF-8 document can hold (see the test above).
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
ops = st.one_of(
    st.builds(UploadOp, text, text, text),
    st.builds(CopyOp, text, text, text, text),
    st.builds(DeleteOp, text, text, text),
)
locks = st.builds(
    IndexLock,
    text,
    st.one_of(st.none(), longs),
    st.one_of(st.none(), st.builds(PendingState, longs, st.lists(ops, min_size=1, max_size=4).map(tuple))),
)


@settings(max_examples=300, deadline=None)
@given(locks)
def test_encode_then_decode_returns_the_same_lock(lock: IndexLock) -> None:
    assert decode_lock(encode_lock(lock)) == lock
