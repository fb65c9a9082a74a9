"""Splitting a KCQL setting into statements on ``;`` outside quotes.

Lenses splits on every ``;`` (a ``;`` inside a quoted property value breaks the statement);
here quotes and backticks protect it. A doubled quote inside a quoted text toggles the state
twice, so the simple toggle below also handles escaped quotes.
"""

from __future__ import annotations


def split_statements(text: str) -> list[str]:
    """The non-empty statements of ``text``, stripped, in the order written."""
    statements: list[str] = []
    open_quote: str | None = None
    start = 0
    for index, char in enumerate(text):
        if open_quote is not None:
            if char == open_quote:
                open_quote = None
        elif char in ("'", "`"):
            open_quote = char
        elif char == ";":
            statements.append(text[start:index])
            start = index + 1
    statements.append(text[start:])
    return [stripped for stripped in (s.strip() for s in statements) if stripped]
