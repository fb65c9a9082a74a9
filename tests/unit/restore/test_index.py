"""The compact index: what is skipped, how objects are grouped by origin and ordered."""

from __future__ import annotations

import json

from lakesink.domain.config.backends import LocalSettings
from lakesink.domain.formats import Format
from lakesink.domain.restore.index import classify, group_work
from lakesink.domain.restore.plan import PartitionMode, PartitionRule, RestorePlan, RestoreRoot
from lakesink.domain.restore.template import KeyTemplate


def _plan(*roots: RestoreRoot, rule: PartitionRule | None = None, **extra: object) -> RestorePlan:
    return RestorePlan(name="r", backend="local", storage=LocalSettings(), roots=roots, partition_rule=rule or PartitionRule(), **extra)  # type: ignore[arg-type]


ROOT = RestoreRoot(number=0, bucket="b", list_prefix="backup/", topic="target", format=Format.JSON)


def _entries(plan: RestorePlan, keys: list[str]) -> list:
    root = plan.roots[0]
    return [e for key in keys if (e := classify(plan, root, key, 10)) is not None]


def test_internal_directories_markers_and_empty_objects_are_skipped() -> None:
    plan = _plan(ROOT)
    assert classify(plan, ROOT, "backup/.indexes/s1/.locks/Topic(t)/0.lock", 10) is None
    assert classify(plan, ROOT, "backup/t/.temp-upload/x/000000000001_1_1.json", 10) is None
    assert classify(plan, ROOT, "backup/.plans/p.json", 10) is None
    assert classify(plan, ROOT, "backup/t/1/", 0) is None
    assert classify(plan, ROOT, "backup/t/1/000000000001_1_1.json", 0) is None
    assert classify(plan, ROOT, "other/t/1/000000000001_1_1.json", 10) is None
    assert classify(plan, ROOT, "backup/t/1/000000000001_1_1.json", 10) is not None


def test_extension_filters_compare_case_insensitively() -> None:
    plan = _plan(ROOT, extension_includes=(".json",), extension_excludes=(".tmp.json",))
    assert classify(plan, ROOT, "backup/t/1/000000000001_1_1.JSON", 10) is not None
    assert classify(plan, ROOT, "backup/t/1/000000000001_1_1.avro", 10) is None
    assert classify(plan, ROOT, "backup/t/1/x.tmp.json", 10) is None


def test_unpadded_offsets_are_ordered_numerically_not_lexicographically() -> None:
    keys = [f"backup/t/0/{offset}_0_0.json" for offset in (10, 9, 100, 2)]
    (item,) = group_work(_entries(_plan(ROOT), sorted(keys)))
    assert [e.offset for e in item.objects] == [2, 9, 10, 100]
    assert item.topic == "target" and item.partition == 0


def test_custom_layout_files_spread_over_directories_form_one_ordered_origin() -> None:
    keys = [
        "backup/name=b/t(1_000000000005).json",
        "backup/name=a/t(1_000000000009).json",
        "backup/name=c/t(1_000000000001).json",
        "backup/name=a/t(2_000000000003).json",
    ]
    items = group_work(_entries(_plan(ROOT), keys))
    assert [(i.partition, [e.offset for e in i.objects]) for i in items] == [(1, [1, 5, 9]), (2, [3])]


def test_two_source_topics_restored_into_one_topic_stay_separate_origins() -> None:
    keys = ["backup/a/0/000000000005_0_0.json", "backup/b/0/000000000001_0_0.json"]
    items = group_work(_entries(_plan(ROOT), keys))
    assert len(items) == 2
    assert {json.loads(i.origin)[1] for i in items} == {"a", "b"}
    assert {i.topic for i in items} == {"target"}


def test_plain_files_are_grouped_by_directory_in_key_order() -> None:
    keys = ["backup/in/x/b.json", "backup/in/x/a.json", "backup/in/y/c.json"]
    items = group_work(_entries(_plan(ROOT), keys))
    assert [[e.key for e in i.objects] for i in items] == [
        ["backup/in/x/a.json", "backup/in/x/b.json"],
        ["backup/in/y/c.json"],
    ]
    assert all(i.partition is None for i in items)


def test_hierarchical_extractor_takes_the_parent_directory_as_partition() -> None:
    plan = _plan(ROOT, rule=PartitionRule(PartitionMode.HIERARCHICAL))
    (item,) = group_work(_entries(plan, ["backup/topic/000789/1.json"]))
    assert item.partition == 789


def test_regex_extractor_takes_group_one_as_partition() -> None:
    plan = _plan(ROOT, rule=PartitionRule(PartitionMode.REGEX, regex=r"part-(\d+)/"))
    (item,) = group_work(_entries(plan, ["backup/part-7/file.json"]))
    assert item.partition == 7


def test_aiven_template_uses_the_key_relative_to_the_prefix_and_topic_from_the_name() -> None:
    root = RestoreRoot(
        number=0, bucket="b", list_prefix="aiven--", topic=None, format=Format.JSON,
        template=KeyTemplate.compile("{{topic}}-{{partition}}-{{start_offset}}"),
    )
    plan = _plan(root)
    entry = classify(plan, root, "aiven--orders-eu-2-00000000000000000040.gz", 5)
    assert entry is not None and (entry.topic, entry.partition, entry.offset) == ("orders-eu", 2, 40)
    assert classify(plan, root, "aiven--readme", 5) is None
