"""Joda-Time ``path.format`` patterns rewritten as Java ``DateTimeFormatter`` patterns.

``config convert`` turns a Confluent time-based partitioner (Joda) into ``PARTITIONBY _date.<pattern>``
(java.time); the languages share most letters but not all (Joda's ``Y`` is the year of era,
java.time's the week-based year). Only letters with the same output are rewritten; anything else
raises :class:`Untranslatable` with the reason, so the caller says why instead of writing other keys.
"""

from __future__ import annotations

from lakesink.domain.layout.joda_pattern import tokens

#: Joda letters printed as numbers of at most two digits; java.time refuses three of them.
_TWO_DIGIT_LETTERS = frozenset("dHhkKms")
#: Characters java.time reads as pattern syntax, so a literal holding one must be quoted.
_JAVA_SYNTAX = frozenset("'[]{}#")
_NO_JAVA_LETTER = {
    "x": "Joda's ISO week-based year has no java.time letter lakesink can print (Y follows the locale's week rules)",
    "w": "Joda's ISO week of the year has no java.time letter lakesink can print (w follows the locale's week rules)",
    "e": "Joda's day-of-week number has no java.time letter lakesink can print (e follows the locale's week rules)",
    "C": "java.time has no century-of-era letter",
}


class Untranslatable(ValueError):
    """Why a Joda pattern has no java.time equivalent (the message names the component)."""


def java_pattern(joda: str) -> str:
    """The java.time pattern printing what the Joda pattern ``joda`` prints.

    Assumes ``joda`` already compiled as a Joda pattern (Confluent's validation): unknown
    letters are not checked again.

    Raises:
        Untranslatable: a component java.time (as lakesink implements it) cannot print alike.
    """
    parts = []
    for token in tokens(joda):
        if isinstance(token, str):
            parts.append(_literal(token))
        else:
            parts.append(_letters(*token))
    return "".join(parts)


def _literal(text: str) -> str:
    if not text:
        return ""
    if any((char.isascii() and char.isalpha()) or char in _JAVA_SYNTAX for char in text):
        return "'" + text.replace("'", "''") + "'"
    return text


def _letters(letter: str, count: int) -> str:
    component = letter * count
    if letter in ("Y", "y"):
        return "y" * count  # years 1-9999: Joda's year and year of era are java.time's year of era
    if letter == "M":
        return component if count <= 3 else "MMMM"
    if letter in _TWO_DIGIT_LETTERS:
        if count > 2:
            raise Untranslatable(f"'{component}': java.time pads this field to at most two digits")
        return component
    if letter == "D":
        if count > 3:
            raise Untranslatable(f"'{component}': java.time pads the day of the year to at most three digits")
        return component
    if letter == "E":
        return "EEE" if count <= 3 else "EEEE"
    if letter in ("a", "G"):
        return letter
    if letter == "S":
        return component
    if letter == "Z":
        return {1: "xx", 2: "xxx"}.get(count, "VV")
    reason = _NO_JAVA_LETTER.get(letter, "no java.time equivalent")
    raise Untranslatable(f"'{component}': {reason}")
