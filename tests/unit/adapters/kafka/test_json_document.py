"""JsonConverter decodes every input as json.loads does, with or without its UTF-8 shortcut."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.adapters.kafka.converters import JsonConverter
from lakesink.domain.errors import RecordError


def _outcome(decode: Any, data: bytes) -> object:
    try:
        return ("ok", decode(data))
    except (ValueError, RecordError) as error:
        return ("error", str(error).rsplit(": ", 1)[-1])


def _converter_document(data: bytes) -> Any:
    return JsonConverter(schemas_enable=False).decode(data, record="t-0@0")[0]


_DOCUMENTS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(
    document=_DOCUMENTS, encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32-be"])
)
def test_encoded_documents_decode_as_json_loads_decodes_them(document: Any, encoding: str) -> None:
    data = json.dumps(document, ensure_ascii=False).encode(encoding, "surrogatepass")

    assert _outcome(_converter_document, data) == _outcome(json.loads, data)


@given(
    data=st.binary(max_size=12).map(lambda tail: b"{" + tail) | st.binary(max_size=12).map(lambda t: b"[" + t)
)
def test_arbitrary_bytes_after_a_bracket_fail_or_decode_as_json_loads(data: bytes) -> None:
    assert _outcome(_converter_document, data) == _outcome(json.loads, data)


@pytest.mark.parametrize(
    "data",
    [
        b'["\xed\xa0\x80"]',
        b"[\x00]",
        b"{\x00\x00\x00",
        b"[1]",
        b"[",
        b"{",
        b' {"a": 1}',
        b'"s"',
        b"\xef\xbb\xbf[1]",
    ],
)
def test_edge_inputs_decode_as_json_loads_decodes_them(data: bytes) -> None:
    assert _outcome(_converter_document, data) == _outcome(json.loads, data)
