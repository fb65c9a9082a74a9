"""Which config keys hold secrets, whatever the dialect: what ``config validate`` and ``config
convert`` never print.

Why one function over the dialects' tables: a command that shows or rewrites the keys of any
config (validate lists every key, convert prints another dialect's) needs one answer per key;
each dialect's own parser keeps wrapping its secrets in :class:`~.secret.Secret` as before.
"""

from __future__ import annotations

from lakesink.domain.config.backend_parsing import prefix_of
from lakesink.domain.config.backends import BACKEND_PREFIXES
from lakesink.domain.config.catalog import find_spec, looks_secret
from lakesink.domain.dialects.aiven import keys as aiven_keys
from lakesink.domain.dialects.confluent import keys as confluent_keys


def holds_secret(key: str) -> bool:
    """Whether the value of ``key`` is a secret in any dialect lakesink reads (a password, a key,
    a token, a connection string, a registry's user info...)."""
    if looks_secret(key) or key in confluent_keys.SECRET_KEYS or key in aiven_keys.SECRET_KEYS:
        return True
    prefix = prefix_of(key)
    if prefix is None:
        return False
    spec = find_spec(key.lower(), prefix=prefix, backend=BACKEND_PREFIXES[prefix])
    return spec is not None and spec.secret
