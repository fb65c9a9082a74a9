"""The source's PROPERTIES keys (reference §1.5), typed and validated.

Lenses silently drops a text mode whose companion keys are missing; here the statement is
rejected instead, naming what is missing, and Lenses' Move messages are kept word for word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

from lakesink.domain.config.values import as_bool, as_choice, as_int
from lakesink.domain.dialects.quix.naming import QUIX_FORMATS, StoreLayout
from lakesink.domain.errors import ConfigError
from lakesink.domain.formats import Format
from lakesink.domain.kcql.locations import bucket_problem, prefix_problem
from lakesink.domain.kcql.property_reader import PropertyReader

READ_TEXT_MODE = "read.text.mode"
READ_TEXT_REGEX = "read.text.regex"
READ_TEXT_START_TAG = "read.text.start.tag"
READ_TEXT_END_TAG = "read.text.end.tag"
READ_TEXT_BUFFER_SIZE = "read.text.buffer.size"
READ_TEXT_START_LINE = "read.text.start.line"
READ_TEXT_END_LINE = "read.text.end.line"
READ_TEXT_TRIM = "read.text.trim"
READ_TEXT_LAST_END_LINE_MISSING = "read.text.last.end.line.missing"
STORE_ENVELOPE = "store.envelope"
SOURCE_TOPIC_FROM_ENVELOPE = "source.topic.from.envelope"
STORE_LAYOUT = "store.layout"
POST_PROCESS_ACTION = "post.process.action"
POST_PROCESS_BUCKET = "post.process.action.bucket"
POST_PROCESS_PREFIX = "post.process.action.prefix"
POST_PROCESS_RETAIN_DIRS = "post.process.action.retain.dirs"
POST_PROCESS_LATE_ARRIVAL = "post.process.action.watermark.process.late.arrival"

_STORE_LAYOUTS = {layout.value: layout.value for layout in StoreLayout}
TEXT_MODES = {"regex": "Regex", "startendtag": "StartEndTag", "startendline": "StartEndLine"}
POST_PROCESS_ACTIONS = {"delete": "Delete", "move": "Move"}

#: Keys each text mode needs; the other read.text.* keys belong to one mode only.
_MODE_REQUIRES = {
    "Regex": (READ_TEXT_REGEX,),
    "StartEndTag": (READ_TEXT_START_TAG, READ_TEXT_END_TAG),
    "StartEndLine": (READ_TEXT_START_LINE, READ_TEXT_END_LINE),
}
_MODE_ALLOWS = {
    "Regex": (READ_TEXT_REGEX,),
    "StartEndTag": (READ_TEXT_START_TAG, READ_TEXT_END_TAG, READ_TEXT_BUFFER_SIZE),
    "StartEndLine": (
        READ_TEXT_START_LINE,
        READ_TEXT_END_LINE,
        READ_TEXT_TRIM,
        READ_TEXT_LAST_END_LINE_MISSING,
    ),
}
_TEXT_KEYS = tuple(dict.fromkeys(key for keys in _MODE_ALLOWS.values() for key in keys))

SOURCE_KEYS = (
    READ_TEXT_MODE,
    *_TEXT_KEYS,
    STORE_ENVELOPE,
    SOURCE_TOPIC_FROM_ENVELOPE,
    STORE_LAYOUT,
    POST_PROCESS_ACTION,
    POST_PROCESS_BUCKET,
    POST_PROCESS_PREFIX,
    POST_PROCESS_RETAIN_DIRS,
    POST_PROCESS_LATE_ARRIVAL,
)


@dataclass(frozen=True, slots=True)
class SourceProperties:
    """The source PROPERTIES of one statement; None means "not given", the consumer applies the default.

    The ``read.text.*`` keys and ``post.process.action.watermark.process.late.arrival`` are
    validated but not kept: the restore implements neither text modes (a TEXT object gives one
    record per line) nor late-arrival processing yet.
    """

    store_envelope: bool = False
    topic_from_envelope: bool = False
    """``source.topic.from.envelope``: each record goes to its envelope's ``metadata.topic`` (the
    ``INSERT INTO`` topic when it has none), so one statement restores a backup of many topics
    (stream-reactor PR#2219)."""
    store_layout: StoreLayout = StoreLayout.LENSES
    """``quix``: the objects are Quix Streams FileSink files (``_timestamp``/``_key``/``_value`` rows)."""
    post_process_action: str | None = None
    post_process_bucket: str | None = None
    post_process_prefix: str | None = None
    post_process_retain_dirs: bool | None = None


def read_source_properties(reader: PropertyReader, fmt: Format) -> SourceProperties:
    """Validate and type the source PROPERTIES of a statement reading ``fmt`` files."""
    reader.reject_unknown(SOURCE_KEYS, clause_owner="source")
    mode = reader.read(READ_TEXT_MODE, partial(as_choice, choices=TEXT_MODES))
    _check_text_mode(reader, mode, fmt)
    for key, check in (
        (READ_TEXT_REGEX, _regex),
        (READ_TEXT_START_TAG, _non_empty),
        (READ_TEXT_END_TAG, _non_empty),
        (READ_TEXT_BUFFER_SIZE, partial(as_int, minimum=1)),
        (READ_TEXT_TRIM, as_bool),
        (READ_TEXT_LAST_END_LINE_MISSING, as_bool),
        (POST_PROCESS_LATE_ARRIVAL, as_bool),
    ):
        reader.read(key, check)  # validated only (see SourceProperties)
    options = SourceProperties(
        store_envelope=bool(reader.read(STORE_ENVELOPE, as_bool)),
        topic_from_envelope=bool(reader.read(SOURCE_TOPIC_FROM_ENVELOPE, as_bool)),
        store_layout=StoreLayout(
            reader.read(STORE_LAYOUT, partial(as_choice, choices=_STORE_LAYOUTS)) or StoreLayout.LENSES.value
        ),
        post_process_action=reader.read(
            POST_PROCESS_ACTION, partial(as_choice, choices=POST_PROCESS_ACTIONS)
        ),
        post_process_bucket=reader.read(POST_PROCESS_BUCKET, _text),
        post_process_prefix=reader.read(POST_PROCESS_PREFIX, _text),
        post_process_retain_dirs=reader.read(POST_PROCESS_RETAIN_DIRS, as_bool),
    )
    if options.store_envelope and not fmt.supports_envelope:
        raise reader.error(STORE_ENVELOPE, f"Envelope is not supported for format {fmt.value}.")
    if options.topic_from_envelope and not options.store_envelope:
        raise reader.error(
            SOURCE_TOPIC_FROM_ENVELOPE,
            f"'{SOURCE_TOPIC_FROM_ENVELOPE}' needs 'store.envelope'=true: only an envelope's metadata names the topic.",
        )
    if options.store_layout is StoreLayout.QUIX and (fmt not in QUIX_FORMATS or options.store_envelope):
        raise reader.error(
            STORE_LAYOUT, "Quix objects are read as STOREAS `JSON` or `PARQUET`, without store.envelope."
        )
    _check_post_process(reader, options)
    return options


def _check_text_mode(reader: PropertyReader, mode: str | None, fmt: Format) -> None:
    if mode is None:
        stray = next((key for key in _TEXT_KEYS if reader.has(key)), None)
        if stray is not None:
            raise reader.error(stray, f"'{stray}' applies only together with '{READ_TEXT_MODE}'.")
        return
    if fmt is not Format.TEXT:
        raise reader.error(
            READ_TEXT_MODE, f"'{READ_TEXT_MODE}' applies only to STOREAS `TEXT`, not {fmt.value}."
        )
    missing = [key for key in _MODE_REQUIRES[mode] if not reader.has(key)]
    if missing:
        raise reader.error(READ_TEXT_MODE, f"read.text.mode={mode} also needs {', '.join(missing)}.")
    foreign = next((key for key in _TEXT_KEYS if reader.has(key) and key not in _MODE_ALLOWS[mode]), None)
    if foreign is not None:
        raise reader.error(foreign, f"'{foreign}' does not apply to read.text.mode={mode}.")


def _check_post_process(reader: PropertyReader, options: SourceProperties) -> None:
    """Lenses' Move rules; the Move-only keys (target, late arrival) are rejected otherwise."""
    if options.post_process_action == "Move":
        if not options.post_process_bucket:
            raise reader.error(POST_PROCESS_ACTION, "A bucket must be specified for moving files to.")
        if not options.post_process_prefix:
            raise reader.error(POST_PROCESS_ACTION, "A path prefix must be specified for moving files to.")
        _check_move_target(reader, options.post_process_bucket, options.post_process_prefix)
        return
    for key in (POST_PROCESS_BUCKET, POST_PROCESS_PREFIX, POST_PROCESS_LATE_ARRIVAL):
        if reader.has(key):
            raise reader.error(key, f"'{key}' applies only when '{POST_PROCESS_ACTION}' is Move.")
    if options.post_process_action is None and reader.has(POST_PROCESS_RETAIN_DIRS):
        raise reader.error(
            POST_PROCESS_RETAIN_DIRS,
            f"'{POST_PROCESS_RETAIN_DIRS}' applies only together with '{POST_PROCESS_ACTION}'.",
        )


def _check_move_target(reader: PropertyReader, bucket: str, prefix: str) -> None:
    for key, value, problem in (
        (POST_PROCESS_BUCKET, bucket, bucket_problem(bucket)),
        (POST_PROCESS_PREFIX, prefix, prefix_problem(prefix)),
    ):
        if problem is not None:
            raise reader.error(key, f"Invalid value {value!r} for {key}: {problem}.")


def _regex(key: str, raw: str) -> str:
    try:
        re.compile(raw)
    except re.error as error:
        raise ConfigError(
            f"Invalid value {raw!r} for {key}: not a valid regular expression ({error})."
        ) from None
    return raw


def _non_empty(key: str, raw: str) -> str:
    if not raw:
        raise ConfigError(f"Invalid value '' for {key}: the tag must not be empty.")
    return raw


def _text(key: str, raw: str) -> str:
    return raw
