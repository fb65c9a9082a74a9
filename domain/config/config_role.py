"""Whether a Lenses-dialect config is a sink's or a restore's, from its class or its statements.

Why: a Lenses source config needs no ``connector.class`` (``lakesink restore`` takes the file it
is given), yet ``kcql explain`` and ``config validate`` must know which one they hold: a source
statement (``INSERT INTO topic SELECT * FROM bucket:prefix``) read as a sink's fails with
"invalid topic name 'bucket:prefix'".
"""

from __future__ import annotations

from collections.abc import Mapping

from lakesink.domain.config.backend_parsing import connector_class_target, detect_backend, normalise_keys
from lakesink.domain.errors import ConfigError, KcqlError
from lakesink.domain.kcql import parse, parse_source


def holds_source_statements(props: Mapping[str, str], kcql: str) -> bool:
    """Whether ``kcql`` (the statements in force for ``props``) is a restore's.

    A Lenses ``connector.class`` decides; without one, statements that parse as a source's and not
    as a sink's are a source's.

    Raises:
        KcqlError: the statements are neither (the sink parser's error, which most configs are).
    """
    target = connector_class_target(props)
    if target is not None:
        return target[1] == "source"
    try:
        parse(kcql)
    except KcqlError as sink_error:
        try:
            parse_source(kcql)
        except KcqlError:
            raise sink_error from None
        return True
    return False


def lenses_role(values: Mapping[str, str]) -> str:
    """``source`` for a Lenses restore config, else ``sink`` (also when it cannot tell: the sink's
    loader then names the problem)."""
    props = normalise_keys(values)
    try:
        kcql = props.get(f"{detect_backend(props)[1]}.kcql", "").strip()
        return "source" if kcql and holds_source_statements(props, kcql) else "sink"
    except ConfigError:
        target = connector_class_target(props)
        return "sink" if target is None else target[1]
