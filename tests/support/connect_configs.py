"""A Kafka Connect config edited in the dialects' tests, and the one-line refusal of one."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from lakesink.domain.errors import ConfigError


def edited(base: Mapping[str, str], changes: Mapping[str, str | None]) -> dict[str, str]:
    """``base`` with ``changes``: a key written ``a__b`` (a keyword argument) is ``a.b``; None removes the key."""
    props = dict(base)
    for key, value in changes.items():
        name = key.replace("__", ".")
        if value is None:
            props.pop(name, None)
        else:
            props[name] = value
    return props


def refusal(parse: Callable[[], object]) -> str:
    """The message of the ConfigError ``parse()`` raises, which must be one line."""
    with pytest.raises(ConfigError) as error:
        parse()
    message = str(error.value)
    assert "\n" not in message
    return message
