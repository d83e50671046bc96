"""polyopt installs the way users install it: the wheel (what ``pip install .`` builds)
holds every package of the source tree under ``polyopt``, nothing else in
site-packages, the LICENSE and every third-party import as a requirement; the sdist
holds the LICENSE; the installed wheel imports and compiles from outside the tree."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import from_checkout

ROOT = Path(__file__).resolve().parents[1]
# source directory -> the package it is installed as
INSTALLED_AS = {"polyopt": "polyopt", "frontends": "polyopt/frontends",
                "backend_c": "polyopt/backend_c"}
SKIP = shutil.ignore_patterns(".venv*", "build", "dist", "*.egg-info", "__pycache__", ".git",
                              ".pytest_cache", ".ruff_cache", "bench", "docs", "tests")


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the checkout to build from (the build leaves files where it runs)."""
    if not (ROOT / "setup.cfg").exists():
        pytest.skip("needs the source tree")
    dest = tmp_path_factory.mktemp("src") / "polyopt"
    shutil.copytree(ROOT, dest, ignore=SKIP)
    return dest


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(out), str(source)],
                   check=True, capture_output=True, text=True)
    (whl,) = out.glob("polyopt-*.whl")
    return whl


def _python_files() -> list[tuple[Path, str]]:
    """Every module of the source tree, with its path in the wheel."""
    out = []
    for src, dest in INSTALLED_AS.items():
        for f in sorted((ROOT / src).rglob("*.py")):
            if "__pycache__" not in f.parts:
                out.append((f, f"{dest}/{f.relative_to(ROOT / src).as_posix()}"))
    return out


def _package_dirs() -> set[str]:
    return {path.rsplit("/", 1)[0] for _, path in _python_files()}


def test_the_wheel_holds_every_package_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [path for _, path in _python_files() if path not in names]
    assert not missing, f"not in the wheel: {missing}"
    assert "polyopt/transforms/__init__.py" in names
    assert {d for d in _package_dirs()} >= {"polyopt", "polyopt/transforms",
                                            "polyopt/frontends", "polyopt/backend_c"}
    top = {n.split("/", 1)[0] for n in names}
    assert top == {"polyopt", wheel.name.split("-py")[0] + ".dist-info"}, top


def test_the_wheel_has_the_license_and_every_requirement(wheel: Path) -> None:
    z = zipfile.ZipFile(wheel)
    info = wheel.name.split("-py")[0] + ".dist-info"
    assert "MIT License" in z.read(f"{info}/LICENSE").decode()
    meta = z.read(f"{info}/METADATA").decode()
    required = {line.split(":", 1)[1].strip().split(";")[0].split(">")[0].split("=")[0].strip()
                for line in meta.splitlines() if line.startswith("Requires-Dist:")
                and "extra ==" not in line}
    imported: set[str] = set()
    for f, _ in _python_files():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "polyopt"}
    assert "pycparser" in third_party
    assert third_party <= required, f"imported but not required: {third_party - required}"


def test_the_sdist_has_the_license(source: Path, tmp_path: Path) -> None:
    code = ("import sys; from setuptools import build_meta; "
            "print(build_meta.build_sdist(sys.argv[1]))")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=source, check=True,
                   capture_output=True, text=True)
    (sdist,) = tmp_path.glob("polyopt-*.tar.gz")
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    assert {"LICENSE", "setup.py", "setup.cfg", "polyopt/transforms/__init__.py",
            "frontends/c.py", "backend_c/build.py"} <= names


def test_the_installed_wheel_works_outside_the_tree(wheel: Path, tmp_path: Path) -> None:
    """Installed alone (its dependencies from this environment), run from elsewhere."""
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(site), str(wheel)], check=True, capture_output=True, text=True)
    script = (
        "import numpy as np, polyopt, polyopt.transforms, polyopt.frontends.c\n"
        "assert polyopt.__file__.startswith(SITE), polyopt.__file__\n"
        "def scale(x):\n"
        "    for i in range(x.shape[0]):\n"
        "        x[i] = x[i] * 2.0\n"
        "x = np.arange(5.0)\n"
        "polyopt.jit(scale)(x)\n"
        "assert x.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0], x\n"
        "print('ok')\n").replace("SITE", repr(str(site)))
    (tmp_path / "k.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "k.py"], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    cli = subprocess.run([sys.executable, "-m", "polyopt", "--help"], cwd=tmp_path,
                         env=env, capture_output=True, text=True)
    assert cli.returncode == 0 and "usage" in cli.stdout.lower(), cli.stderr


def test_the_suite_runs_against_the_installed_wheel_under_make_test() -> None:
    """`make test` sets POLYOPT_TEST_INSTALLED=1: conftest then refuses a checkout import."""
    if os.environ.get("POLYOPT_TEST_INSTALLED") != "1":
        pytest.skip("not under `make test`")
    assert not from_checkout()
