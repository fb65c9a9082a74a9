"""The timezone setting as Joda's DateTimeZone.forID reads it, and Joda's local/UTC conversions."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakesink.domain.errors import ConfigError
from lakesink.domain.layout.joda_zone import resolve_joda_zone

# 2024-05-09T03:17:33Z; America/Santiago is UTC-4 then.
INSTANT = 1715224653000


@pytest.mark.parametrize(
    ("text", "zone_id", "offset_ms"),
    [
        ("UTC", "UTC", 0),
        ("Z", "UTC", 0),
        ("UT", "UTC", 0),
        ("+00:00", "UTC", 0),
        ("-00", "UTC", 0),
        ("UTC+00", "UTC", 0),
        ("+02:00", "+02:00", 7_200_000),
        ("+0200", "+02:00", 7_200_000),
        ("+02", "+02:00", 7_200_000),
        ("-08:00", "-08:00", -28_800_000),
        ("+05:30:15", "+05:30:15", 19_815_000),
        ("+053015", "+05:30:15", 19_815_000),
        ("+23:59", "+23:59", 86_340_000),
        ("UTC+05", "+05:00", 18_000_000),
        ("GMT-0530", "-05:30", -19_800_000),
        ("UT-03:30", "-03:30", -12_600_000),
    ],
)
def test_utc_and_offsets_get_joda_s_ids(text: str, zone_id: str, offset_ms: int) -> None:
    zone = resolve_joda_zone(text)
    assert (zone.id, zone.fixed_offset_ms, zone.offset_ms(INSTANT)) == (zone_id, offset_ms, offset_ms)


@pytest.mark.parametrize(
    ("text", "offset_ms"),
    [
        ("America/Santiago", -14_400_000),
        ("America/Los_Angeles", -25_200_000),
        ("US/Pacific", -25_200_000),  # a backward alias
        ("GMT", 0),  # a tz-database id (Joda reports Etc/GMT), found before the UTC words
        ("Etc/GMT+2", -7_200_000),
        ("Asia/Kolkata", 19_800_000),
    ],
)
def test_tz_database_ids_give_the_offset_in_force(text: str, offset_ms: int) -> None:
    zone = resolve_joda_zone(text)
    assert zone.fixed_offset_ms is None
    assert zone.offset_ms(INSTANT) == offset_ms


@pytest.mark.parametrize(
    "text",
    [
        "utc",
        "Europe/paris",
        "Factory",
        "localtime",
        "+24:00",
        "+02:60",
        "+5",
        "02:00",
        "+05:30:15.5",
        "GMT+2",
        "nowhere",
    ],
)
def test_ids_joda_rejects_or_lakesink_cannot_reproduce_name_the_timezone_setting(text: str) -> None:
    with pytest.raises(ConfigError, match="configuration timezone"):
        resolve_joda_zone(text)


@pytest.mark.parametrize(
    ("zone", "local_ms", "utc_ms"),
    [
        # New York, clocks forward 2024-03-10 02:00 EST -> 03:00 EDT: 02:30 does not exist;
        # west of Greenwich Joda keeps the offset from before the change (EST).
        ("America/New_York", 1710037800000, 1710055800000),
        # New York, clocks back 2024-11-03 02:00 EDT -> 01:00 EST: 01:30 happens twice; the EDT one.
        ("America/New_York", 1730597400000, 1730611800000),
        # Santiago, clocks forward 2024-09-08 00:00 -> 01:00: local midnight is 04:00Z (01:00 -03).
        ("America/Santiago", 1725753600000, 1725768000000),
        # Beirut, clocks forward 2024-03-31 00:00 -> 01:00: east of Greenwich, the offset after it.
        ("Asia/Beirut", 1711843200000, 1711836000000),
        # Lord Howe moves 30 minutes forward at 02:00 on 2024-10-06.
        ("Australia/Lord_Howe", 1728180000000, 1728142200000),
    ],
)
def test_local_to_utc_follows_joda_in_gaps_and_overlaps(zone: str, local_ms: int, utc_ms: int) -> None:
    assert resolve_joda_zone(zone).local_to_utc(local_ms) == utc_ms


@given(
    st.integers(min_value=0, max_value=2_524_608_000_000),
    st.sampled_from(["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "+05:45"]),
)
def test_utc_to_local_and_back_returns_the_instant_outside_overlaps(instant: int, name: str) -> None:
    zone = resolve_joda_zone(name)
    local = zone.utc_to_local(instant)
    back = zone.local_to_utc(local)
    # Only an instant in the second pass of an overlap maps to the first pass.
    assert back == instant or (back < instant and zone.utc_to_local(back) == local)


def test_zones_survive_pickling() -> None:
    for name in ("UTC", "+02:00", "America/Santiago"):
        zone = resolve_joda_zone(name)
        assert pickle.loads(pickle.dumps(zone)).offset_ms(INSTANT) == zone.offset_ms(INSTANT)
