"""Padding strategies and how KCQL and legacy padding settings combine (reference §2.4)."""

from __future__ import annotations

import pickle

import pytest

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.padding import (
    BOTH_PADDING_CONFIGS_MESSAGE,
    NO_PADDING,
    PaddingSettings,
    PaddingStrategy,
    PaddingType,
    resolve_padding,
)

LEFT_12 = PaddingStrategy(PaddingType.LEFT_PAD, 12, "0")


def test_left_pad_fills_on_the_left() -> None:
    assert PaddingStrategy(PaddingType.LEFT_PAD, 5, "0").pad("42") == "00042"


def test_right_pad_fills_on_the_right() -> None:
    assert PaddingStrategy(PaddingType.RIGHT_PAD, 5, "x").pad("42") == "42xxx"


def test_no_op_leaves_the_value_alone() -> None:
    assert PaddingStrategy(PaddingType.NO_OP, 5, "0").pad("42") == "42"


@pytest.mark.parametrize("padding_type", [PaddingType.LEFT_PAD, PaddingType.RIGHT_PAD])
def test_padding_never_truncates_a_longer_value(padding_type: PaddingType) -> None:
    assert PaddingStrategy(padding_type, 3, "0").pad("123456") == "123456"


def test_defaults_pad_only_the_offset_to_twelve_zeros() -> None:
    settings = resolve_padding()
    assert settings == PaddingSettings({"offset": LEFT_12})
    assert settings.pad("offset", "7") == "000000000007"
    assert settings.pad("partition", "7") == "7"


def test_kcql_lengths_pad_each_listed_field() -> None:
    settings = resolve_padding(kcql_lengths={"partition": 12, "offset": 12})
    assert settings.pad("partition", "1") == "000000000001"
    assert settings.pad("offset", "0") == "000000000000"


def test_only_partition_length_drops_the_default_offset_padding_like_lenses() -> None:
    settings = resolve_padding(kcql_lengths={"partition": 4})
    assert settings.pad("partition", "1") == "0001"
    assert settings.pad("offset", "5") == "5"


def test_kcql_type_and_char_apply_to_every_listed_field() -> None:
    settings = resolve_padding(
        kcql_type="rightpad", kcql_char="x", kcql_lengths={"offset": 4, "partition": 3}
    )
    assert settings.pad("offset", "7") == "7xxx"
    assert settings.pad("partition", "7") == "7xx"


def test_kcql_char_alone_keeps_the_default_offset_length() -> None:
    assert resolve_padding(kcql_char="#").pad("offset", "7") == "###########7"


def test_kcql_no_op_type_disables_padding() -> None:
    assert resolve_padding(kcql_type="NoOp").pad("offset", "7") == "7"


def test_legacy_strategy_pads_the_offset_only() -> None:
    settings = resolve_padding(legacy_strategy="LeftPad", legacy_length=5)
    assert settings.pad("offset", "7") == "00007"
    assert settings.pad("partition", "7") == "7"


@pytest.mark.parametrize("length", [None, -1])
def test_legacy_length_unset_or_negative_means_twelve(length: int | None) -> None:
    assert (
        resolve_padding(legacy_strategy="LeftPad", legacy_length=length).pad("offset", "7") == "000000000007"
    )


def test_legacy_no_op_strategy_leaves_offsets_unpadded() -> None:
    assert resolve_padding(legacy_strategy="NoOp", legacy_length=10).pad("offset", "2") == "2"


def test_empty_legacy_strategy_counts_as_unset() -> None:
    assert resolve_padding(legacy_strategy="", kcql_lengths={"offset": 3}).pad("offset", "2") == "002"


def test_legacy_and_kcql_padding_together_fail_with_lenses_message() -> None:
    with pytest.raises(ConfigError) as error:
        resolve_padding(legacy_strategy="LeftPad", kcql_char="0")
    assert str(error.value) == BOTH_PADDING_CONFIGS_MESSAGE
    assert "Unable to process both padding Kafka Connect config properties and KCQL properties." in str(
        error.value
    )


@pytest.mark.parametrize(
    ("kwargs", "setting"),
    [
        ({"kcql_type": "Middle"}, "padding.type"),
        ({"kcql_char": "ab"}, "padding.char"),
        ({"kcql_char": ""}, "padding.char"),
        ({"kcql_lengths": {"offset": -1}}, "padding.length.offset"),
        ({"kcql_lengths": {"topic": 3}}, "padding.length.topic"),
        ({"legacy_strategy": "Sideways"}, "padding.strategy"),
    ],
)
def test_invalid_padding_values_name_the_setting(kwargs: dict[str, object], setting: str) -> None:
    with pytest.raises(ConfigError, match=setting.replace(".", r"\.")):
        resolve_padding(**kwargs)  # type: ignore[arg-type]


def test_unlisted_fields_get_no_padding() -> None:
    assert resolve_padding().strategy_for("partition") is NO_PADDING


def test_padding_settings_are_hashable_and_picklable() -> None:
    settings = resolve_padding(kcql_lengths={"partition": 3, "offset": 5})
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert hash(settings) == hash(resolve_padding(kcql_lengths={"offset": 5, "partition": 3}))
