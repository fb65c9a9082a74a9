"""The start-up probe: a store that ignores conditional writes is found out, and the probe leaves nothing."""

from __future__ import annotations

from lakesink.adapters.storage.memory import InMemoryObjectStore
from lakesink.domain.commit.store_calls import perform
from lakesink.domain.commit.store_probe import ignored_conditions, probe_key
from lakesink.domain.ports import iter_objects
from tests.support.faulty_store import ConditionsIgnored, FaultyStore

KEY = probe_key(".indexes", "orders-sink", "run-1")


def _store() -> InMemoryObjectStore:
    store = InMemoryObjectStore()
    store.create_bucket("bkt")
    return store


def test_a_store_enforcing_both_conditions_passes_and_keeps_no_probe() -> None:
    store = _store()
    assert perform(ignored_conditions("bkt", KEY), store) == ()
    assert list(iter_objects(store, "bkt")) == []


def test_a_store_ignoring_conditions_is_named_for_each_one_it_ignores() -> None:
    store = _store()
    ignored = perform(ignored_conditions("bkt", KEY), ConditionsIgnored(store))
    assert ignored == (
        "a create-only write (If-None-Match: *) replaced an existing object",
        "a write conditional on another ETag (If-Match) was applied",
    )
    assert list(iter_objects(store, "bkt")) == []
    assert KEY == ".indexes/orders-sink/.probes/run-1"


def test_a_lost_answer_to_the_probes_create_is_no_failure() -> None:
    """The SDK retries a create whose answer was lost and sees 412: the object is the probe's own."""
    store = _store()
    assert perform(ignored_conditions("bkt", KEY), FaultyStore(store, lose={1})) == ()
    assert list(iter_objects(store, "bkt")) == []
