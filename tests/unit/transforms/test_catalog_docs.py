"""docs/transforms.md lists every transform and predicate class the catalog registers."""

from __future__ import annotations

from pathlib import Path

from lakesink.domain.transforms.catalog import PREDICATES, TRANSFORMS

DOC = (Path(__file__).resolve().parents[3] / "docs" / "transforms.md").read_text()


def test_every_registered_class_is_documented() -> None:
    missing = [name for name in (*TRANSFORMS, *PREDICATES) if f"`{name.rsplit('.', 1)[-1]}`" not in DOC
               and f"`{name.rsplit('.', 1)[-1].split('$')[0]}" not in DOC]
    assert not missing, f"add to docs/transforms.md: {missing}"
