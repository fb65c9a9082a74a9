"""Guards for the layering the architecture promises."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import grimp

import lakesink.application.demo
import lakesink.domain

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IN_DOMAIN = ("pyspark", "pyarrow", "fastavro", "boto3", "botocore", "confluent_kafka", "google", "azure")
FORBIDDEN_IN_APPLICATION = (
    "pyspark", "pyarrow", "numpy", "boto3", "botocore", "confluent_kafka", "moto", "fastavro", "polars", "duckdb",
)
LAYERS = ("lakesink.domain", "lakesink.adapters", "lakesink.application")
"""The packages grimp walks: the ``lakesink`` namespace itself is served by the editable install's
path hook, which grimp cannot walk (pyproject's [tool.importlinter] says the same)."""


def _modules(package: object, prefix: str) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, prefix)]  # type: ignore[attr-defined]


def _loaded_by_importing(modules: list[str], forbidden: tuple[str, ...]) -> str:
    """The forbidden top-level packages a fresh interpreter holds after importing ``modules``."""
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    if not name.endswith('__main__'):\n"
        "        importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_importing_the_whole_domain_loads_no_spark_cloud_sdk_kafka_or_format_library() -> None:
    modules = _modules(lakesink.domain, "lakesink.domain.")
    assert modules, "the domain has no modules?"
    loaded = _loaded_by_importing(modules, FORBIDDEN_IN_DOMAIN)
    assert loaded == "", f"the domain imported {loaded}"


def test_importing_the_demo_use_case_loads_no_sdk() -> None:
    modules = ["lakesink.application.demo", *_modules(lakesink.application.demo, "lakesink.application.demo.")]
    assert "lakesink.application.demo.run" in modules
    loaded = _loaded_by_importing(modules, FORBIDDEN_IN_APPLICATION)
    assert loaded == "", f"the demo use case imported {loaded}"


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


def test_no_adapter_imports_the_application_layer() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(n for n in _imported_names(path) if n.startswith("lakesink.application"))
        for path in (ROOT / "adapters").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_every_python_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapping = {"domain": "lakesink.domain", "adapters": "lakesink.adapters", "application": "lakesink.application"}
    found = set()
    for top, package in mapping.items():
        for init in (ROOT / top).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((package, *relative)))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def _cycles(graph: grimp.ImportGraph) -> Iterator[list[str]]:
    """Each set of modules that import one another (Tarjan's strongly connected components, size > 1),
    as one concrete cycle through them: ``[a, b, ..., a]``."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(component)

    for module in sorted(graph.modules):
        if module not in order:
            visit(module)
    for component in components:
        start = min(component)
        following = min(m for m in graph.find_modules_directly_imported_by(start) if m in component)
        back = graph.find_shortest_chain(importer=following, imported=start)
        assert back is not None
        yield [start, *back]


def test_no_module_imports_itself_through_other_modules() -> None:
    graph = grimp.build_graph(*LAYERS, cache_dir=None)
    assert len(graph.modules) > 100, "grimp found too few lakesink modules: is the package installed?"
    cycles = list(_cycles(graph))
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)
