"""What users look for in a project: one version everywhere, a licence, a changelog, a lock.

- The version is defined once (``pyproject.toml``) and read back from the package metadata by
  ``arbiter --version``, ``GET /healthz``, the OpenAPI ``info.version`` and the image tags of
  ``deploy/``.
- ``LICENSE`` is the licence ``pyproject.toml`` names; ``CHANGELOG.md`` follows Keep a Changelog
  and has an entry for the current version.
- ``requirements.lock`` pins every runtime dependency of ``pyproject.toml``, and everything they
  need in turn, to one exact version with hashes, inside the ranges of ``pyproject.toml``; the
  test environment runs exactly those versions (``make install`` installs from the lock), and
  the Dockerfile installs from it with ``--require-hashes``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

import arbiter
from tests.api_support import ROOT, committed_spec, make_client

LOCK = ROOT / "requirements.lock"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


@cache
def pyproject() -> dict[str, object]:
    data: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data


def project_version() -> str:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    return str(project["version"])


# --- one version -------------------------------------------------------------------------------


def test_the_package_version_is_pyprojects() -> None:
    assert arbiter.__version__ == project_version()
    literal = re.compile(rf"""["']{re.escape(project_version())}["']""")
    written = [p for p in (ROOT / "arbiter").rglob("*.py") if literal.search(p.read_text())]
    assert not written, f"the version is written down again in {written}"


def test_arbiter_version_flag() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"arbiter {project_version()} ({arbiter.BUILD} engine)"


def test_healthz_and_openapi_carry_the_version() -> None:
    body = make_client().get("/healthz").get_json()
    assert body == {"status": "ok", "version": project_version(), "build": arbiter.BUILD}
    assert committed_spec()["info"]["version"] == project_version()


def test_image_tags_in_deploy_are_the_version() -> None:
    texts = [
        (ROOT / "deploy" / "README.md").read_text(),
        (ROOT / "deploy" / "Dockerfile").read_text(),
        *((p.read_text()) for p in sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))),
    ]
    tags = {t for text in texts for t in re.findall(r"tute-arbiter:(\d[\w.+-]*)", text)}
    kustomize = yaml.safe_load((ROOT / "deploy" / "k8s" / "kustomization.yaml").read_text())
    tags |= {image["newTag"] for image in kustomize.get("images", []) if "newTag" in image}
    assert tags == {project_version()}


# --- licence and changelog ---------------------------------------------------------------------


def test_license_file_is_the_license_of_pyproject() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text


def test_changelog_keeps_a_changelog_with_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "Keep a Changelog" in text and "Semantic Versioning" in text
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert versions and versions[0][0] == "Unreleased"
    released = [v for v, _ in versions[1:]]
    assert project_version() in released, f"no entry for {project_version()}: {released}"
    assert all(date for v, date in versions[1:]), "a released version without its date"
    kinds = set(re.findall(r"^### (\w+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds


# --- the lock ----------------------------------------------------------------------------------

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


@cache
def locked() -> dict[str, tuple[Version, int]]:
    """Every pin of the lock that applies here: name → (version, number of hashes)."""
    environment = default_environment()
    pins: dict[str, tuple[Version, int]] = {}
    current: str | None = None
    for line in LOCK.read_text().splitlines():
        if match := _PIN.match(line):
            name, version, marker = match.groups()
            applies = marker is None or Requirement(f"x; {marker}").marker.evaluate(environment)  # type: ignore[union-attr]
            current = canonicalize_name(name) if applies else None
            if current is not None:
                assert current not in pins, f"{name} is pinned twice for this environment"
                pins[current] = (Version(version), 0)
        elif current is not None and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
        elif line.strip() and not line.lstrip().startswith(("#", "--hash")):
            pytest.fail(f"a line of the lock that is not an exact pin: {line!r}")
    return pins


def runtime_requirements() -> list[Requirement]:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    return [Requirement(r) for r in project["dependencies"]]


def test_lock_pins_every_runtime_dependency_within_its_range() -> None:
    pins = locked()
    for requirement in runtime_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements.lock (run `make lock`)"
        version, hashes = pins[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements.lock has {name}=={version}, outside {requirement} (run `make lock`)"
        )
        assert hashes >= 1, f"{name} has no hash in requirements.lock"


def _closure() -> dict[str, set[str]]:
    """Every distribution the runtime dependencies need, with the extras asked of it."""
    environment = default_environment()
    wanted: dict[str, set[str]] = {}
    todo = [(r, "") for r in runtime_requirements()]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate(
            {**environment, "extra": extra}
        ):
            continue
        name = canonicalize_name(requirement.name)
        new_extras = set(requirement.extras) - wanted.get(name, set())
        if name in wanted and not new_extras:
            continue
        wanted.setdefault(name, set()).update(requirement.extras)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            pytest.fail(f"{name} is needed but not installed: run `make install`")
        for line in requires:
            sub = Requirement(line)
            for e in {"", *wanted[name]}:
                todo.append((sub, e))
    return wanted


def test_lock_covers_what_the_dependencies_need_in_turn() -> None:
    pins = locked()
    missing = sorted(set(_closure()) - set(pins))
    assert not missing, f"needed at run time but not locked: {missing} (run `make lock`)"


def test_the_tests_run_the_locked_versions() -> None:
    """``make install`` installs the lock; an extra that moved a locked version shows here."""
    moved = {}
    for name, (version, _) in locked().items():
        try:
            installed = Version(distribution(name).version)
        except PackageNotFoundError:
            moved[name] = (str(version), None)
            continue
        if installed != version:
            moved[name] = (str(version), str(installed))
    assert not moved, f"locked vs installed: {moved} (run `make install` or `make lock`)"


def test_the_image_installs_the_lock_with_hashes() -> None:
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    runs = [line for line in text.splitlines() if line.startswith("RUN ")]
    assert any("--require-hashes -r requirements.lock" in run for run in runs), runs
    project_install = [run for run in runs if "tute_arbiter-" in run]
    assert project_install and all("--no-deps" in run for run in project_install), (
        "the project's wheel must not resolve dependencies again"
    )
    assert re.search(r"^COPY requirements\.lock ", text, re.M)


def test_tests_never_import_benchmark_code() -> None:
    """Tests and benchmarks share devtools/, never each other's modules one way: a benchmark
    may change what it measures without a test noticing."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"\s*(from|import)\s+benchmarks\b", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# --- no Redis of anyone else's -----------------------------------------------------------------

#: Where the tests, the benchmarks and CI live: none of them may touch a Redis they did not start.
_OWN_CODE = ("tests", "devtools", "benchmarks", ".ci")
#: The one place that empties a database: the throwaway server's own (it started the server).
_EMPTIES_ITS_OWN = "devtools/redis_server.py"
#: deploy/'s manifests name their own Redis service on its standard port; the test reads them.
_NAMES_THE_DEPLOYMENTS_REDIS = "tests/test_deploy.py"


def _own_code_lines() -> list[tuple[str, int, str]]:
    lines = []
    for top in _OWN_CODE:
        for path in sorted((ROOT / top).rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            name = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".md", "") or name == "tests/test_hygiene.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                lines.append((name, number, line))
    return lines


#: A database emptied: redis-py's call, the command as a string, redis-cli's.
_EMPTIES = re.compile(
    r"""\.flush_?(db|all)\s*\(|["']flush(db|all)\b|redis-cli\b.*\bflush(db|all)""", re.I
)
#: The standard port as an address or an argument (``127.0.0.1:6379``, ``-p 6379``, ``port=6379``).
_STANDARD_PORT = re.compile(r"[:=,]\s*6379\b|(-p|--port|port)\s*=?\s*6379\b|\b6379\s*[,)]", re.I)


def test_nothing_empties_or_uses_a_redis_it_did_not_start() -> None:
    """FLUSHDB or FLUSHALL only through :meth:`devtools.redis_server.RedisProcess.flush` (a
    server of this process's own), and no Redis on the standard port (a developer's own Redis
    may hold their data): tests and benchmarks start their own."""
    lines = _own_code_lines()
    assert len(lines) > 1000, "nothing was searched"
    offenders = [
        f"{name}:{number}: {line.strip()}"
        for name, number, line in lines
        if (_EMPTIES.search(line) and name != _EMPTIES_ITS_OWN)
        or (_STANDARD_PORT.search(line) and name != _NAMES_THE_DEPLOYMENTS_REDIS)
    ]
    assert not offenders, "\n".join(offenders)


def test_the_search_for_foreign_redis_use_finds_it() -> None:
    """The patterns above catch what the suite once did."""
    for used in (
        "client.flushdb()",
        "Redis.from_url(url).flushall()",
        'client.execute_command("FLUSHDB")',
        "redis-cli -n 11 flushdb",
    ):
        assert _EMPTIES.search(used), used
    for used in (
        'SHARED_URL = f"redis://127.0.0.1:6379/{TEST_DB}"',
        'REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379',
        "redis-cli -h 127.0.0.1 -p 6379 ping",
        "redis-server --port 6379 --save ''",
        "Redis(port=6379)",
    ):
        assert _STANDARD_PORT.search(used), used
    for prose in ("emptied with FLUSHDB before", "a developer's Redis on 6379 may hold"):
        assert not (_EMPTIES.search(prose) or _STANDARD_PORT.search(prose)), prose
