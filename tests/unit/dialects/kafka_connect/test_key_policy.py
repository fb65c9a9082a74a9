"""The key table both Kafka Connect dialects share: classes, notes, defaults and ConfigDef ranges."""

from __future__ import annotations

import pytest

from lakesink.domain.config.secret import MASK
from lakesink.domain.dialects.kafka_connect.config_def import int_setting
from lakesink.domain.dialects.kafka_connect.key_policy import Bound, KeyPolicy
from lakesink.domain.errors import ConfigError

POLICY = KeyPolicy(
    "Test sink", frozenset({"name", "bucket"}), ("value.converter.",), {"part.size": "the store sizes its parts"},
    {"sse": ("", "no SSE yet"), "tagging": ("false", "no tagging yet"), "provider": ("Default", "default chain only")},
    frozenset({"secret.key", "provider"}), legacy={"old_bucket": "bucket"}, held=frozenset({"report.dlq"}),
    no_effect_prefixes=("hive.",), rejected={"prefix": "use bucket"}, rejected_prefixes={"parquet.": "own writer"},
    default_aliases={"provider": frozenset({"OldDefault"})},
    bounds={"part.size": Bound(int_setting, 5, 5), "tries": Bound(int_setting, 3, 1, 10, above="too many tries")},
)


@pytest.mark.parametrize(("key", "kind"), [
    ("bucket", "used"), ("old_bucket", "used"), ("value.converter.schemas.enable", "used"), ("report.dlq", "held"),
    ("errors.tolerance", "held"), ("part.size", "no effect"), ("hive.metastore", "no effect"), ("sse", "default only"),
    ("prefix", "rejected"), ("parquet.block", "rejected"), ("buckets", None),
])
def test_every_key_falls_in_one_class(key: str, kind: str | None) -> None:
    assert POLICY.key_class(key) == kind


def test_notes_say_why_a_key_has_no_effect_or_its_only_default() -> None:
    assert POLICY.note("part.size") == "no effect in lakesink: the store sizes its parts"
    assert POLICY.note("tagging") == "only its default 'false' is accepted: no tagging yet"
    assert POLICY.note("bucket") is None


@pytest.mark.parametrize(("props", "message"), [
    ({"buckt": "b"}, "Unknown Test sink setting buckt (did you mean bucket?)."),
    ({"prefix": "p"}, "prefix is not supported: use bucket."),
    ({"parquet.page": "1"}, "parquet.page is not supported: own writer."),
    ({"tagging": "true"}, "tagging='true' is not supported yet: no tagging yet; only its default 'false' is accepted."),
    ({"sse": "AES256"}, "sse='AES256' is not supported yet: no SSE yet; only no value is accepted."),
    ({"provider": "Mine"}, f"provider={MASK} is not supported yet"),
])
def test_refusals_name_the_key_and_mask_secrets(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        POLICY.check_keys(props, frozenset())
    assert str(caught.value).startswith(message)


def test_defaults_compare_as_each_connector_s_configdef_does() -> None:
    POLICY.check_keys({"provider": "OldDefault", "tagging": "false"}, frozenset())
    with pytest.raises(ConfigError):
        POLICY.check_keys({"tagging": "FALSE"}, frozenset())
    relaxed = KeyPolicy("Relaxed", frozenset(), (), {}, {"tagging": ("false", "no")}, frozenset(),
                        defaults_ignore_case=True, empty_means_default=True)
    relaxed.check_keys({"tagging": "FALSE"}, frozenset())
    relaxed.check_keys({"tagging": ""}, frozenset())


def test_bounds_refuse_in_configdef_words_or_the_connector_s_own() -> None:
    POLICY.check_bounds({"part.size": "5", "tries": "10"})
    with pytest.raises(ConfigError, match="^Invalid value 4 for configuration part.size: Value must be at least 5$"):
        POLICY.check_bounds({"part.size": "4"})
    with pytest.raises(ConfigError, match="^Invalid value 11 for configuration tries: too many tries$"):
        POLICY.check_bounds({"tries": "11"})
