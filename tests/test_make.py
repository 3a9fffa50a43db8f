"""What ``make`` does on a fresh machine (the whole of it, end to end, is ``.ci/fresh-clone``).

- The ``compile`` extra of pyproject.toml holds what mypyc's strict type check of the compiled
  modules (``arbiter._build.COMPILED``) needs: the stubs of every third-party module they import
  that ships no types of its own. ``make run`` installs that extra, not the ``test`` one.
- A failed compile says why and what cures it: the last 30 lines of its output on standard
  error, and a line naming ``make compile``; then the pure build runs with a warning, unless
  ``ARBITER_REQUIRE_COMPILED=1`` (``.ci/run``) makes it an error. The recipe runs in a copy of
  the Makefile with a stand-in for the venv's Python, so nothing is compiled.
- ``make test-quick`` runs the tests not marked ``slow``, and the README names it and the other
  commands a new user needs.
"""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from importlib.metadata import distributions
from importlib.util import find_spec
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from arbiter import _build
from tests.api_support import ROOT

MAKEFILE = ROOT / "Makefile"
README = ROOT / "README.md"
TAIL = 30  # lines of a failed compile's output shown on standard error


def extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found: dict[str, list[str]] = project["optional-dependencies"]
    return found


def third_party_imports(module: str) -> set[str]:
    """The top-level names of what ``module`` imports from outside the standard library and
    the package."""
    tree = ast.parse(_build.source_of(module).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("arbiter",)}


def stub_providers() -> dict[str, set[str]]:
    """Which installed distributions hold stubs of which module (``<module>-stubs/``)."""
    found: dict[str, set[str]] = {}
    for dist in distributions():
        for file in dist.files or []:
            top = file.parts[0]
            if top.endswith("-stubs"):
                found.setdefault(top.removesuffix("-stubs"), set()).add(
                    canonicalize_name(dist.metadata["Name"])
                )
    return found


def ships_its_types(name: str) -> bool:
    spec = find_spec(name)
    assert spec is not None, f"{name} is not installed"
    locations = spec.submodule_search_locations or []
    return any((Path(location) / "py.typed").exists() for location in locations)


def test_the_compile_extra_has_the_stubs_of_what_the_compiled_modules_import() -> None:
    compile_extra = {canonicalize_name(Requirement(r).name) for r in extras()["compile"]}
    stubs = stub_providers()
    imported = {name for module in _build.COMPILED for name in third_party_imports(module)}
    assert "msgpack" in imported  # the snapshot's encoding: what the check below is about
    missing = {}
    for name in sorted(imported):
        if ships_its_types(name):
            continue
        providers = stubs.get(name, set())
        assert providers, f"{name} ships no types and no stubs are installed for it"
        if not providers & compile_extra:
            missing[name] = sorted(providers)
    assert not missing, (
        f"mypyc's type check needs these stubs, missing from the `compile` extra: {missing}"
    )


def test_the_compile_extra_has_mypy_and_setuptools() -> None:
    names = {canonicalize_name(Requirement(r).name) for r in extras()["compile"]}
    assert {"mypy", "setuptools"} <= names


# --- the compile recipe -------------------------------------------------------------------------

#: The venv's Python, standing in: ``setup.py`` prints numbered lines (to both streams) and
#: exits with $FAKE_STATUS; anything else succeeds.
FAKE_PYTHON = """#!/bin/sh
case "$*" in
  *setup.py*)
    i=1
    while [ $i -le 50 ]; do echo "compile line $i"; echo "compile error $i" >&2; i=$((i+1)); done
    exit "${FAKE_STATUS:-1}";;
esac
exit 0
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A directory with a copy of the Makefile and a venv that is installed already."""
    shutil.copy(MAKEFILE, tmp_path / "Makefile")
    for name in ("pyproject.toml", "requirements.lock"):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1_000_000_000, 1_000_000_000))
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    for stamp in (".installed", ".installed-compile"):
        (venv / stamp).touch()
    return tmp_path


def make(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    """``make ARGS`` in ``cwd``, with none of the caller's build settings or outer make's flags."""
    dropped = ("ARBITER_PURE", "ARBITER_REQUIRE_COMPILED", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=cwd,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def make_compile(project: Path, cc: str = "true", **env: str) -> subprocess.CompletedProcess[str]:
    return make("compile", f"CC={cc}", "COMPILED_SOURCES=", cwd=project, **env)


def test_a_failed_compile_says_why_and_the_pure_build_runs(project: Path) -> None:
    done = make_compile(project)
    assert done.returncode == 0, done.stderr
    shown = done.stderr.splitlines()
    combined = (project / ".venv" / "compile.log").read_text().splitlines()
    assert [line.strip() for line in shown if line.startswith("    ")] == combined[-TAIL:]
    assert "compile error 50" in done.stderr and "compile line 50" in done.stderr
    assert "`make compile`" in done.stderr
    assert "python3-dev" in done.stderr
    assert "WARNING: the engine runs as pure Python" in done.stderr
    assert not (project / "arbiter" / "_native.json").exists()


def test_with_require_compiled_a_failed_compile_is_an_error(project: Path) -> None:
    done = make_compile(project, ARBITER_REQUIRE_COMPILED="1")
    assert done.returncode != 0
    assert "compile error 50" in done.stderr and "`make compile`" in done.stderr
    assert "ARBITER_REQUIRE_COMPILED=1: the compiled engine is required" in done.stderr
    assert "WARNING" not in done.stderr


def test_a_compile_that_succeeds_says_nothing_more(project: Path) -> None:
    done = make_compile(project, FAKE_STATUS="0", ARBITER_REQUIRE_COMPILED="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "arbiter: compiling the engine with mypyc"
    assert done.stderr == ""


def test_without_a_compiler_the_pure_build_runs_unless_the_compiled_one_is_required(
    project: Path,
) -> None:
    done = make_compile(project, cc="no-such-compiler-here")
    assert done.returncode == 0, done.stderr
    assert "no C compiler (no-such-compiler-here)" in done.stderr
    required = make_compile(project, cc="no-such-compiler-here", ARBITER_REQUIRE_COMPILED="1")
    assert required.returncode != 0
    assert "the compiled engine is required" in required.stderr


def test_arbiter_pure_skips_the_compile(project: Path) -> None:
    done = make_compile(project, ARBITER_PURE="1")
    assert done.returncode == 0, done.stderr
    assert "ARBITER_PURE is set" in done.stdout
    assert not (project / ".venv" / "compile.log").exists()


def test_pip_runs_with_the_editable_installation_warning_ignored() -> None:
    """setuptools' BuildBackendWarning at every ``pip install -e`` is noise for a user (the
    whole ``make run`` output is checked by .ci/fresh-clone)."""
    done = make("-n", "-B", ".venv/.installed")  # -n: printed, not run
    pips = [line for line in done.stdout.splitlines() if " -m pip " in line]
    assert pips, done.stdout + done.stderr
    for line in pips:
        assert line.startswith('PYTHONWARNINGS="ignore:Editable installation" '), line


# --- the quick loop and the README --------------------------------------------------------------


def test_make_test_quick_runs_the_tests_not_marked_slow() -> None:
    done = make("-n", "-o", "install-test", "test-quick")  # printed, not run; installed or not
    assert done.returncode == 0, done.stderr
    assert '.venv/bin/pytest -q -m "not slow"' in done.stdout.splitlines()[-1]


def test_the_readme_names_what_a_new_user_needs() -> None:
    text = README.read_text()
    for needed in (
        "make test-quick",
        "make run PORT=",
        "HOST=",
        "ARBITER_TEST_REDIS_URL",
        "redis-server",
        "chromium-driver",
        "ARBITER_REQUIRE_COMPILED=1",
    ):
        assert needed in text, needed
    assert '`pytest -m "not slow"` leaves out long property tests' not in text
