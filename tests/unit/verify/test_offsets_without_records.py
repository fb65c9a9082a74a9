"""Gaps re-checked against the offsets Kafka holds records at: markers, aborted and compacted records are
no gaps, a record no object holds still is (domain/verify/record_offsets.py through check_partition)."""

from __future__ import annotations

from dataclasses import replace

from lakesink.domain.verify.check import PartitionFacts, check_partition
from lakesink.domain.verify.claims import Evidence, KeyOffset, OffsetClaim, key_claim, read_claim

# Three committed transactions of four records, each followed by its commit marker (offsets 4, 9, 14).
RECORDS = (0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13)
FACTS = PartitionFacts("t", 0, "b", True, committed=13, topic_start=0, topic_end=15)


def _claim(key_offset: int, records: int, names: KeyOffset = KeyOffset.LAST) -> OffsetClaim:
    return key_claim(f"t/0/{key_offset:012d}.json", key_offset, names, records, evidence=Evidence.KEY_AND_COUNT)


def test_files_of_records_around_markers_have_gaps_only_in_the_dense_view() -> None:
    claims = [_claim(3, 4), _claim(8, 4), _claim(13, 4)]
    dense = check_partition(FACTS, claims)
    assert dense.gaps == ((4, 4), (9, 9))
    checked = check_partition(replace(FACTS, records=RECORDS), claims)
    assert (checked.gaps, checked.duplicates, checked.without_records, checked.problems) == ((), (), 2, 0)


def test_a_lost_file_is_still_a_gap_of_exactly_its_records() -> None:
    claims = [_claim(3, 4), _claim(13, 4)]
    checked = check_partition(replace(FACTS, records=RECORDS), claims)
    assert checked.gaps == ((5, 8),)
    assert checked.without_records == 2  # offsets 4 and 9


def test_keys_naming_the_first_offset_and_envelope_offsets_map_the_same_way() -> None:
    claims = [_claim(0, 4, KeyOffset.FIRST), _claim(5, 4, KeyOffset.FIRST),
              read_claim("t/0/c.json", 10, [10, 11, 12, 13])]
    checked = check_partition(replace(FACTS, records=RECORDS), claims)
    assert (checked.gaps, checked.problems) == ((), 0)
    lost_one = [claims[0], claims[1], read_claim("t/0/c.json", 10, [10, 12, 13])]
    assert check_partition(replace(FACTS, records=RECORDS), lost_one).gaps == ((11, 11),)


def test_records_compacted_after_the_write_never_make_a_gap_appear() -> None:
    """Files written before compaction hold more records than the topic still has at those offsets."""
    claims = [_claim(3, 4), _claim(8, 4), _claim(13, 4)]
    compacted_since = (1, 3, 6, 8, 10, 11, 12, 13)
    checked = check_partition(replace(FACTS, records=compacted_since), claims)
    assert (checked.gaps, checked.problems) == ((), 0)

