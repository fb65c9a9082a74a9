"""The S3 policies docs/storage.md ("Permissions") documents, read from the page itself, as bucket policies.

The permission tests grant exactly what the page tells operators to grant: a policy edited there is
the policy the tests prove, and a test that needs more than the page grants fails. The page writes
identity policies (no ``Principal``) with placeholders (``BUCKET``, ``PREFIX``, ``CONNECTOR``); a bucket policy of versitygw (tests/support/versitygw.py) needs a principal per statement.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.support.versitygw import REPO

PAGE = REPO / "docs" / "storage.md"
_SECTION = "## Permissions"
_JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)

Statement = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Removal:
    """One grant taken away: ``action`` on the resources ending in ``resource_suffix`` (every resource
    of the action when empty), written with the page's placeholders (``PREFIX/*``)."""

    action: str
    resource_suffix: str = ""

    @property
    def label(self) -> str:
        return f"{self.action} on {self.resource_suffix}" if self.resource_suffix else f"{self.action}"


def documented_policies() -> tuple[dict[str, Any], dict[str, Any]]:
    """The exactly-once sink's policy and the restore's, the first two JSON blocks of the section."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(_SECTION):]
    section = section[: section.index("\n## ", len(_SECTION))]
    sink, restore = (json.loads(block) for block in _JSON_BLOCK.findall(section)[:2])
    return sink, restore


def without(policy: dict[str, Any], removal: Removal) -> dict[str, Any]:
    """``policy`` with ``removal``'s action no longer granted on its resources (the rest kept)."""
    statements: list[Statement] = []
    for statement in policy["Statement"]:
        if removal.action not in statement["Action"]:
            statements.append(statement)
            continue
        others = [action for action in statement["Action"] if action != removal.action]
        if others:
            statements.append({**statement, "Action": others})
        kept = [r for r in statement["Resource"] if removal.resource_suffix and not r.endswith(removal.resource_suffix)]
        if kept:
            statements.append({**statement, "Sid": f"{statement['Sid']}Kept", "Action": [removal.action],
                               "Resource": kept})
    return {**policy, "Statement": statements}


def for_principal(policy: dict[str, Any], principal: str, **placeholders: str) -> list[Statement]:
    """The statements of ``policy`` as bucket-policy statements of ``principal``, placeholders filled."""
    text = json.dumps(policy["Statement"])
    for name, value in placeholders.items():
        text = text.replace(name, value)
    return [{**statement, "Sid": f"{statement['Sid']}{principal.title().replace('-', '')}",
             "Principal": {"AWS": [principal]}} for statement in json.loads(text)]


def bucket_policy(*statements: list[Statement]) -> str:
    """One bucket policy (JSON text) of several principals' statements."""
    return json.dumps({"Version": "2012-10-17", "Statement": [s for group in statements for s in group]})
