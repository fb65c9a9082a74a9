"""Renders docs/configuration.md from the catalog, so the reference is never hand-edited."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lakesink.domain.config.backends import BACKEND_PREFIXES
from lakesink.domain.config.catalog import CATALOG
from lakesink.domain.config.keyspec import KeySpec, Kind, Scope

_REGENERATE = ".venv/bin/python -m lakesink.domain.config.reference_doc > docs/configuration.md"

_BACKEND_TITLES = {
    "s3": "S3 and S3-compatible stores",
    "gcs": "Google Cloud Storage",
    "azure": "Azure Blob Storage / ADLS",
    "local": "Local directory",
    "memory": "In-memory store",
}

_PROVIDERS_INTRO = "\n".join([
    "A value may hold `${alias:path:key}` or `${alias:key}` references, resolved before the config is "
    "validated, as a Kafka Connect worker resolves them with Kafka's config providers. lakesink reads the "
    "provider declarations from the connector config itself:",
    "",
    "```properties",
    "config.providers=file,dir,env",
    "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider",
    "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.env.param.allowlist.pattern=^AWS_",
    "connect.s3.aws.secret.key=${file:/run/secrets/s3.properties:secret}",
    "sasl.jaas.config=${dir:/run/secrets/kafka:jaas}",
    "connect.s3.aws.access.key=${env:AWS_ACCESS_KEY_ID}",
    "```",
    "",
    "- `${file:PATH:KEY}`: the value of `KEY` in the Java `.properties` file `PATH` (UTF-8).",
    "- `${dir:DIRECTORY:NAME}`: the whole content of the file `NAME` in `DIRECTORY`, trailing newline "
    "included (as Kafka reads it; a file written by `echo` ends with one).",
    "- `${env:NAME}`: the environment variable `NAME`; an empty variable gives an empty value (not set).",
    "- `param.allowed.paths` (file, directory): comma-separated absolute paths that must exist; a "
    "reference's path, normalised (`..` resolved), must lie under one of them. The check is lexical: "
    "a symbolic link inside an allowed directory may lead elsewhere.",
    "- `param.allowlist.pattern` (env): a regular expression a variable's name must match somewhere "
    "in it (anchor it with `^...$` to match the whole name).",
    "",
    "A value may hold several references and text around them. Unlike Kafka, which leaves a "
    "reference it cannot resolve in the value as text, lakesink stops with an error naming the "
    "setting: an alias `config.providers` does not list, an unsupported provider class, a missing "
    "file, directory entry, key or environment variable, or a path or name the parameters exclude. "
    "Provider keys that configure an alias not listed, or a parameter the provider does not take, "
    "are errors too. The `config.providers*` values themselves are never resolved. A resolved value "
    "is validated like a typed one and is treated as a secret: it never appears in an error message, "
    "`repr` or printed settings.",
])


def _shown_name(spec: KeySpec) -> str:
    return f"<prefix>.{spec.name}" if spec.prefixed else spec.name


def _cell(text: str | None) -> str:
    return "" if text is None else text.replace("|", "\\|")


def _table(specs: Iterable[KeySpec], *, with_default: bool = True) -> list[str]:
    header = ["Key", "Type", "Default", "Scope", "Secret", "Description"]
    if not with_default:
        header = ["Key", "Scope", "Reason"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for spec in specs:
        if with_default:
            default = "" if spec.default is None else f"`{_cell(spec.default)}`"
            row = [f"`{_shown_name(spec)}`", spec.type.value, default, spec.scope.value,
                   "yes" if spec.secret else "", _cell(spec.doc)]
        else:
            row = [f"`{_shown_name(spec)}`", spec.scope.value, _cell(spec.doc)]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _section(title: str, intro: str, specs: list[KeySpec], *, with_default: bool = True) -> list[str]:
    return ["", f"## {title}", "", intro, "", *_table(specs, with_default=with_default)]


def _pick(predicate: Callable[[KeySpec], bool]) -> list[KeySpec]:
    return [spec for spec in CATALOG if predicate(spec)]


def _is_used(spec: KeySpec) -> bool:
    return spec.kind in (Kind.SETTING, Kind.PASSTHROUGH)


def render_reference() -> str:
    """The whole configuration reference as Markdown."""
    prefixes = ", ".join(f"`{prefix}` ({backend})" for prefix, backend in BACKEND_PREFIXES.items())
    lines = [
        "# lakesink configuration reference",
        "",
        f"<!-- Generated from lakesink.domain.config.catalog; do not edit. Regenerate: {_REGENERATE} -->",
        "",
        "Keys use the Lenses stream-reactor names. `<prefix>` is the backend prefix: "
        f"{prefixes}. Keys under the prefix are case-insensitive; a config uses exactly one prefix.",
        "Unknown keys, unparsable values and unknown enum names are errors (Lenses ignores them).",
        "Scope `sink` keys are rejected in a restore (source) config and `source` keys in a sink config.",
    ]
    lines += _section(
        "Kafka Connect keys",
        "Keys without a prefix. `*` entries are families passed on as maps.",
        _pick(lambda s: _is_used(s) and not s.prefixed),
    )
    lines += _section(
        "Config providers",
        _PROVIDERS_INTRO,
        _pick(lambda s: s.kind is Kind.PROVIDER),
    )
    lines += _section(
        "Every backend",
        "Under each backend's prefix.",
        _pick(lambda s: _is_used(s) and s.prefixed and s.backends is None and s.scope is not Scope.SOURCE),
    )
    lines += _section(
        "Restore (source) keys",
        "Only in a source (restore) config.",
        _pick(lambda s: _is_used(s) and s.prefixed and s.backends is None and s.scope is Scope.SOURCE),
    )
    for backend, title in _BACKEND_TITLES.items():
        lines += _section(
            title,
            f"Only under the `{_prefix_of(backend)}` prefix.",
            _pick(lambda s, b=backend: _is_used(s) and s.backends is not None and b in s.backends),
        )
    lines += _section(
        "Ignored keys",
        "Accepted so existing Kafka Connect configs load; they have no effect.",
        _pick(lambda s: s.kind is Kind.IGNORED),
        with_default=False,
    )
    lines += _section(
        "Not implemented yet",
        "Lenses keys lakesink does not implement yet: a config may set them to their default (which "
        "is what lakesink does anyway); any other value is rejected naming the key.",
        _pick(lambda s: s.kind is Kind.NOT_YET),
    )
    deprecated = _pick(lambda s: s.kind is Kind.DEPRECATED)
    lines += ["", "## Deprecated keys", "", "Rejected with Lenses' deprecation message naming the new key.",
              "", "| Old key | New key |", "|---|---|"]
    lines += [f"| `{_shown_name(s)}` | `{_shown_name_of(s.replacement, s.prefixed)}` |" for s in deprecated]
    return "\n".join(lines) + "\n"


def _shown_name_of(name: str | None, prefixed: bool) -> str:
    return f"<prefix>.{name}" if prefixed else str(name)


def _prefix_of(backend: str) -> str:
    return next(prefix for prefix, name in BACKEND_PREFIXES.items() if name == backend)


if __name__ == "__main__":
    print(render_reference(), end="")
