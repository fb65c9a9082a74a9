"""``STOREAS`` selection (reference §5.1): which storage format a statement asks for.

Lenses splits the name on ``_`` and matches the head case-insensitively; ``CSV_WITHHEADERS``
turns on the header row and the old ``BYTES_*`` variants get a dedicated message. Lenses ignores
any other suffix; here it is an error, so a typo such as ``CSV_WITHHEADER`` cannot silently
drop the header row.
"""

from __future__ import annotations

from lakesink.domain.formats import Format
from lakesink.domain.kcql.cursor import Cursor

CSV_WITH_HEADERS = "CSV_WITHHEADERS"

_SUPPORTED = ", ".join(sorted([*(f.value for f in Format), CSV_WITH_HEADERS]))

_BYTES_VARIANTS_MESSAGE = (
    "Unsupported format - {name}.  Please note that the following formats are no longer supported: "
    "`Bytes_KeyAndValueWithSizes`, `Bytes_KeyWithSize`, `Bytes_ValueWithSize`, `Bytes_KeyOnly`, "
    "`Bytes_ValueOnly`.  For this type of data we recommend the AVRO/Parquet/Json envelope formats. "
    "You can still store the message value as byte using the BYTES mode with no suffix."
)


def select_format(cursor: Cursor, raw: str, position: int) -> tuple[Format, bool]:
    """The format named by a STOREAS value and whether CSV gets a header row."""
    name = raw.replace("`", "").strip()
    head, _, suffix = name.partition("_")
    fmt = next((f for f in Format if f.value == head.upper()), None)
    if fmt is None or not head:
        raise cursor.error_at(f"Unsupported format - {name}. Supported formats: {_SUPPORTED}.", position)
    if not suffix:
        return fmt, False
    if fmt is Format.BYTES:
        raise cursor.error_at(_BYTES_VARIANTS_MESSAGE.format(name=name.upper()), position)
    if fmt is Format.CSV and suffix.upper() == "WITHHEADERS":
        return fmt, True
    raise cursor.error_at(
        f"Unsupported format - {name}: {fmt.value} takes no suffix"
        + (" (the only CSV variant is CSV_WITHHEADERS)" if fmt is Format.CSV else "")
        + f". Supported formats: {_SUPPORTED}.",
        position,
    )


def format_name(fmt: Format, csv_headers: bool) -> str:
    """The canonical STOREAS spelling, the inverse of :func:`select_format`."""
    return CSV_WITH_HEADERS if fmt is Format.CSV and csv_headers else fmt.value
