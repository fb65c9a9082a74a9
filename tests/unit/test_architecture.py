"""Guards for the layering the architecture promises."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import lakesink.domain

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IN_DOMAIN = ("pyspark", "pyarrow", "fastavro", "boto3", "botocore", "confluent_kafka", "google", "azure")


def _domain_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(lakesink.domain.__path__, "lakesink.domain.")]


def test_importing_the_whole_domain_loads_no_spark_cloud_sdk_kafka_or_format_library() -> None:
    modules = _domain_modules()
    assert modules, "the domain has no modules?"
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    if not name.endswith('__main__'):\n"
        "        importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_IN_DOMAIN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the domain imported {out.stdout.strip()}"


def test_every_python_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapping = {"domain": "lakesink.domain", "adapters": "lakesink.adapters", "application": "lakesink.application"}
    found = set()
    for top, package in mapping.items():
        for init in (ROOT / top).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((package, *relative)))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
