"""Making partition values and the prefix safe as key path segments (docs/naming.md)."""

from __future__ import annotations

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.key_segments import normalise_prefix, safe_value


@pytest.mark.parametrize(
    ("value", "safe"),
    [
        ("eu-west", "eu-west"),
        ("the killers", "the killers"),
        ("[missing]", "[missing]"),
        ("2024/01/01", "2024/01/01"),
        ("val1/val2", "val1/val2"),
        ("/a//b/", "a/b"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("../../etc", "%2E%2E/%2E%2E/etc"),
        ("a/./b", "a/%2E/b"),
        ("...", "..."),
        ("..a", "..a"),
        ("a\\b", "a%5Cb"),
        ("line\nbreak", "line%0Abreak"),
        ("tab\there", "tab%09here"),
        ("del\x7f", "del%7F"),
        ("nul\x00", "nul%00"),
        ("", "[empty]"),
        ("/", "[empty]"),
        ("//", "[empty]"),
        ("é/ü", "é/ü"),
    ],
)
def test_values_are_split_on_slashes_and_each_segment_made_safe(value: str, safe: str) -> None:
    assert safe_value(value) == safe


@pytest.mark.parametrize(
    ("prefix", "normalised"),
    [
        (None, ""),
        ("", ""),
        ("/", ""),
        ("backups", "backups"),
        ("backups/", "backups"),
        ("/backups", "backups"),
        ("a//b/", "a/b"),
        ("path/To/Write/To", "path/To/Write/To"),
    ],
)
def test_prefix_loses_leading_trailing_and_doubled_slashes(prefix: str | None, normalised: str) -> None:
    assert normalise_prefix(prefix) == normalised


@pytest.mark.parametrize("prefix", ["a/../b", "..", "./a", "a\nb"])
def test_prefix_that_could_escape_or_hide_characters_is_rejected(prefix: str) -> None:
    with pytest.raises(ConfigError, match="Invalid KCQL prefix"):
        normalise_prefix(prefix)
