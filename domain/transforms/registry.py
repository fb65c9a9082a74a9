"""Which transform and predicate classes lakesink runs, and the chain built from a connector config.

``transforms=a,b`` lists aliases in order, ``transforms.<alias>.type`` names the class and its other
keys configure it; ``transforms.<alias>.predicate`` names an alias of ``predicates=`` (built from
``predicates.<alias>.*``), and ``.negate=true`` inverts it. Stricter than Connect: an unknown class or
option, and settings of an unlisted alias, are one-line errors naming the key.
See docs/transforms.md, "How the chain is read".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lakesink.domain.config import values
from lakesink.domain.errors import ConfigError
from lakesink.domain.ports import Clock
from lakesink.domain.transforms.catalog import PREDICATES, TRANSFORMS
from lakesink.domain.transforms.chain import Predicate, Step, TransformChain
from lakesink.domain.transforms.options import TransformOptions

_FAMILIES = ("transforms", "predicates")


def transform_keys(props: Mapping[str, str]) -> dict[str, str]:
    """The ``transforms*`` and ``predicates*`` keys of a config."""
    return {
        key: value
        for key, value in props.items()
        if key in _FAMILIES or key.startswith(tuple(f + "." for f in _FAMILIES))
    }


def build_chain(props: Mapping[str, str], clock: Clock) -> TransformChain:
    """The chain a connector config describes (empty when it has no ``transforms``).

    Raises:
        ConfigError: an alias without a type, an unknown class or option, a predicate alias that
            ``predicates`` does not list, or settings of an unlisted alias.
    """
    predicates = {alias: _predicate(options) for alias, options in _aliases(props, "predicates").items()}
    steps = []
    for alias, options in _aliases(props, "transforms").items():
        factory = _lookup(TRANSFORMS, options, "transform")
        predicate, negate = _guard(options, predicates)
        steps.append(Step(alias, options.class_name, factory(options, clock), predicate, negate))
    return TransformChain(tuple(steps))


def _aliases(props: Mapping[str, str], family: str) -> dict[str, TransformOptions]:
    """Each listed alias of ``family`` (``transforms``/``predicates``) with its options, in list order."""
    listed = tuple(item.strip() for item in props.get(family, "").split(",") if item.strip())
    if len(set(listed)) != len(listed):
        raise ConfigError(f"{family} lists an alias twice: {props[family]!r}.")
    by_alias: dict[str, dict[str, str]] = {alias: {} for alias in listed}
    for key, value in props.items():
        if not key.startswith(family + "."):
            continue
        rest = key[len(family) + 1 :]
        alias = next((name for name in listed if rest.startswith(name + ".")), None)
        if alias is None:
            raise ConfigError(
                f"{key} configures an alias that {family}={props.get(family, '')!r} does not list; "
                "add the alias or remove the setting."
            )
        by_alias[alias][rest[len(alias) + 1 :]] = value
    options = {}
    for alias, settings in by_alias.items():
        class_name = settings.get("type", "").strip()
        if not class_name:
            raise ConfigError(
                f"{family}.{alias}.type is required: name the class of {family[:-1]} {alias!r}."
            )
        options[alias] = TransformOptions(f"{family}.{alias}.", class_name, settings)
    return options


def _lookup(
    table: Mapping[str, Callable[..., object]], options: TransformOptions, what: str
) -> Callable[..., object]:
    factory = table.get(options.class_name)
    if factory is None:
        raise ConfigError(
            f"Unknown {what} class {options.class_name!r} for {options.key('type')}: lakesink runs "
            f"{', '.join(sorted(table)) or 'none'}."
        )
    return factory


def _predicate(options: TransformOptions) -> Predicate:
    factory = _lookup(PREDICATES, options, "predicate")
    return factory(options)  # type: ignore[no-any-return]


def _guard(options: TransformOptions, predicates: Mapping[str, Predicate]) -> tuple[Predicate | None, bool]:
    """The step's predicate and ``negate`` flag."""
    alias = options.text("predicate")
    negate_raw = options.text("negate")
    negate = values.as_bool(options.key("negate"), negate_raw) if negate_raw else False
    if not alias:
        if negate:
            raise ConfigError(f"{options.key('negate')} is set but {options.key('predicate')} is not.")
        return None, False
    predicate = predicates.get(alias)
    if predicate is None:
        raise ConfigError(f"{options.key('predicate')}={alias!r} names no predicate listed in predicates.")
    return predicate, negate
