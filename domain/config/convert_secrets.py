"""Secrets in a converted config become environment references: ``config convert`` prints none.

The output goes to terminals, CI logs and committed files, and no command prints a secret: one held
literally (an AWS secret key, ``basic.auth.user.info``, a SASL password) is printed as
``${env:LAKESINK_<KEY>}``, resolved by Kafka's EnvVarConfigProvider (declared when the config has
none), and stderr says which variable to export. A reference the user wrote stays as written.
See docs/operations.md, "Credentials: where they go, where they never show".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lakesink.domain.config.lenses_conversion import Conversion
from lakesink.domain.config.providers import PROVIDERS_KEY, ProviderKind, has_reference
from lakesink.domain.config.secret_keys import holds_secret

_DEFAULT_ALIAS = "env"


def secrets_as_references(conversion: Conversion) -> Conversion:
    """``conversion`` with every literal secret replaced by an environment reference, and a note
    per replaced key naming the variable to set."""
    properties = dict(conversion.properties)
    secret_keys = [key for key, value in properties.items() if value and holds_secret(key) and not has_reference(value)]
    if not secret_keys:
        return conversion
    alias, declaration = _env_provider(properties)
    notes = list(conversion.notes)
    for key in secret_keys:
        variable = "LAKESINK_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()
        properties[key] = f"${{{alias}:{variable}}}"
        notes.append((key, f"a secret, not printed: export {variable} with its value before running lakesink"))
    return Conversion(tuple({**properties, **declaration}.items()), tuple(notes), conversion.heading)


def _env_provider(properties: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The alias of an EnvVarConfigProvider the config declares without an allowlist, or a new one
    and the keys that declare it."""
    aliases = [alias.strip() for alias in properties.get(PROVIDERS_KEY, "").split(",") if alias.strip()]
    for alias in aliases:
        declared = properties.get(f"{PROVIDERS_KEY}.{alias}.class", "").strip()
        if declared == ProviderKind.ENV.value and f"{PROVIDERS_KEY}.{alias}.param.allowlist.pattern" not in properties:
            return alias, {}
    alias = next(name for n in range(len(aliases) + 1) if (name := f"{_DEFAULT_ALIAS}{n or ''}") not in aliases)
    return alias, {
        PROVIDERS_KEY: ",".join([*aliases, alias]),
        f"{PROVIDERS_KEY}.{alias}.class": ProviderKind.ENV.value,
    }
