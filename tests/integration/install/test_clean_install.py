"""The acceptance test of a clean install: the wheel as a user gets it, in a fresh virtual environment.

The core (no dependencies) answers ``--version``, validates and explains the README's quick-start config, and
every command that needs an extra says which in one line; then ``pip install '<wheel>[demo]'`` into
that environment runs ``lakesink demo``. The wheel is built from a copy of the sources (a build in
the tree leaves ``build/lib``, whose stale modules a later wheel would ship). pip's own cache is
used, so the demo's extra downloads nothing this machine already has; that part still takes 2-3
minutes (installing 1.5 GB, then the demo), so it runs under ``make test-reliability``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.support.reliability import FULL

pytestmark = [pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "domain", "adapters", "application", "spark")
PACKAGES = ("domain", "adapters", "application", "spark")
OUTSIDE = Path("/")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """lakesink's wheel, built without build isolation from what this checkout holds."""
    tree = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tree / name)
    out = tmp_path_factory.mktemp("wheel")
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, tree)
    (built,) = out.glob("lakesink-*.whl")
    return built


def fresh_venv(where: Path, requirement: str) -> Path:
    """A new virtual environment at ``where`` with ``requirement`` installed by this interpreter's pip
    (``--python``: no pip of its own to bootstrap, and the same cache); its ``bin`` directory."""
    _run(sys.executable, "-m", "venv", "--without-pip", where)
    install(where, requirement)
    return where / "bin"


def install(venv: Path, requirement: str) -> None:
    _run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet", requirement)


def quick_start_config(target: Path) -> Path:
    """The README's example config for ``lakesink sink``, as written there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### `lakesink sink`", 1)[1]
    block = section.split("```properties\n", 1)[1].split("```", 1)[0]
    target.write_text(block, encoding="utf-8")
    return target


def test_the_core_install_explains_the_quick_start_and_names_the_extra_each_command_needs(
    wheel: Path, tmp_path: Path
) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
    lakesink = str(bin_dir / "lakesink")
    listed = "import importlib.metadata as m; print(*sorted(d.metadata['Name'] for d in m.distributions()))"
    assert _run(bin_dir / "python", "-c", listed).stdout == "lakesink\n"  # the core has no dependencies

    shown = _run(lakesink, "--version").stdout
    assert re.fullmatch(
        rf"lakesink {re.escape(version('lakesink'))} \(Python [\d.]+, no PySpark: pip install 'lakesink\[spark\]'\)\n",
        shown,
    )
    config = quick_start_config(tmp_path / "sink.properties")
    validated = _run(lakesink, "config", "validate", config)
    assert validated.stdout.endswith(": Lenses sink config, valid\n"), validated
    broken = tmp_path / "broken.properties"
    broken.write_text(config.read_text(encoding="utf-8") + "value.converter=io.confluent.connect.protobuf.ProtobufConverter\n", encoding="utf-8")
    refused = _run(lakesink, "config", "validate", "--json", broken, check=False)
    assert refused.returncode == 2 and "value.converter" in refused.stdout, refused
    explained = _run(lakesink, "kcql", "explain", "--config", config).stdout
    assert "bucket                 my-bucket" in explained and "format                 PARQUET" in explained

    sink = _run(lakesink, "sink", "--config", config, check=False)
    assert (sink.returncode, sink.stdout) == (1, "")
    assert re.fullmatch(
        r"lakesink sink needs the s3 extra \(\w+ is not installed\): pip install 'lakesink\[s3\]'\n", sink.stderr
    )
    demo = _run(lakesink, "demo", check=False)
    assert (demo.returncode, demo.stderr) == (1, "lakesink demo needs the demo extra (confluent_kafka is not installed): pip install 'lakesink[demo]'\n")
    library = _run(bin_dir / "python", "-c", "import lakesink.spark", check=False)
    assert library.stderr.splitlines()[-1].endswith("lakesink needs the spark extra (pyarrow is not installed): pip install 'lakesink[spark]'")

    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    assert all((site / "lakesink" / package / "py.typed").is_file() for package in PACKAGES)
    assert (next(site.glob("lakesink-*.dist-info")) / "licenses" / "LICENSE").read_text().startswith(
        "\n                                 Apache License\n                           Version 2.0"
    )


@pytest.mark.reliability
@pytest.mark.timeout(600)
@pytest.mark.skipif(not FULL, reason="make test-reliability only: 130-180 s (the demo extra's install, then the demo)")
def test_the_demo_extra_runs_the_demo_in_that_environment(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    bin_dir = fresh_venv(venv, str(wheel))
    install(venv, f"{wheel}[demo]")
    demo = subprocess.run(
        [bin_dir / "lakesink", "demo"], capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False
    )
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert demo.stdout.split("== Summary", 1)[1].count("exactly once") == 4


def _run(*command: object, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``command`` run outside the checkout, whose egg-info a ``python -c`` would see from its cwd."""
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=300, check=False, cwd=OUTSIDE
    )
    if check:
        assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done
