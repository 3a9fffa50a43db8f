"""The two builds of the engine — compiled with mypyc, and pure Python — from one source.

- Random logs of every table give byte-identical answers (``to_dict()`` bodies, scores,
  snapshots, verdicts on proposed moves, an archive run's summary of them) on both builds: the
  pure build runs in a child process (``ARBITER_PURE=1``) and its output is compared with this
  process's. Run only when this process runs the compiled build; with
  ``ARBITER_REQUIRE_COMPILED=1`` (``.ci/run``) the compiled build is required, so CI never skips
  it.
- ``ARBITER_PURE=1`` loads the sources; a compiled build older than one of its sources is not
  used (the pure build runs, with a warning); ``arbiter --version`` and ``/healthz`` say which
  build runs.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

import arbiter
from arbiter import _build
from arbiter.archive.records import Scorer, ScoringConfig
from arbiter.archive.summary import Summary
from arbiter.engine.match import replay as engine_replay
from arbiter.engine.snapshot import encode
from arbiter.simulate import random_log
from tests.api_support import ROOT, make_client
from tests.positions_support import TABLES

COMPILED = arbiter.BUILD == "compiled"
GAMES = 12  # per table


def answers() -> list[str]:
    """The answers of this process's build to the same random games, one JSON line each, and
    last the summary an archive run of them counts (compiled too)."""
    out = []
    summary, scorer = Summary(), Scorer.of(ScoringConfig(lang="es"))
    for ruleset, players in TABLES:
        for seed in range(GAMES):
            rng = random.Random(f"{ruleset}{players}{seed}")
            log = random_log(
                ruleset,
                rng,
                players=players,
                deals=rng.randint(1, 3),
                renuncio_rate=0.05,
                finish_last=rng.random() < 0.5,
            )
            result = arbiter.replay(log)
            scored = scorer.score(len(out), orjson.dumps(log))
            assert scored is not None
            summary.add(scored)
            line: dict[str, Any] = {
                "en": result.to_dict("en"),
                "es": result.to_dict("es"),
                "scores": result.scores_dict("es"),
                "snapshot": encode(result.match).hex() if result.match.illegal is None else None,
                "core": encode(engine_replay(log)).hex()
                if result.match.illegal is None
                else None,
            }
            nxt = line["en"]["next"]
            if nxt is not None:
                hand = [m for m in nxt["legal_moves"] if m["type"] == "play"]
                probes = [*nxt["legal_moves"][:3], {"type": "play", "seat": nxt["seat"],
                                                    "card": "1O"}]  # fmt: skip
                line["verdicts"] = [arbiter.validate(log, m).to_dict("es") for m in probes]
                line["hand"] = len(hand)
            out.append(orjson.dumps(line, option=orjson.OPT_SORT_KEYS).decode())
    out.append(orjson.dumps(summary.to_dict(), option=orjson.OPT_SORT_KEYS).decode())
    return out


needs_compiled = pytest.mark.skipif(
    not COMPILED, reason="the pure build runs (ARBITER_PURE=1, or none compiled: make compile)"
)


def test_compiled_is_required_where_asked() -> None:
    if os.environ.get("ARBITER_REQUIRE_COMPILED") == "1":
        assert COMPILED, "ARBITER_REQUIRE_COMPILED=1 but the pure build runs (make compile)"


@pytest.mark.slow
@needs_compiled
def test_both_builds_answer_byte_for_byte_alike() -> None:
    script = "from tests.test_build import answers; print('\\n'.join(answers()))"
    env = {**os.environ, "ARBITER_PURE": "1"}
    child = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    pure = child.stdout.splitlines()
    compiled = answers()
    assert len(pure) == len(compiled) == len(TABLES) * GAMES + 1
    for index, (ours, theirs) in enumerate(zip(compiled, pure, strict=True)):
        assert ours == theirs, f"game {index}: the builds disagree"


def _version_in(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import arbiter, arbiter.engine.state as s; print(arbiter.BUILD, s.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )


def test_arbiter_pure_loads_the_sources() -> None:
    done = _version_in({**os.environ, "ARBITER_PURE": "1"}, ROOT)
    build, path = done.stdout.split()
    assert build == "pure" and path.endswith("state.py")


def _copied_tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the package with its compiled build, and an environment that imports it."""
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "arbiter", copy / "arbiter", ignore=shutil.ignore_patterns("web"))
    (copy / "arbiter" / "web").mkdir()  # not compiled: only its package needs to exist
    (copy / "arbiter" / "web" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(copy)}
    env.pop("ARBITER_PURE", None)
    return copy, env


@needs_compiled
def test_a_stale_compiled_build_is_not_used(tmp_path: Path) -> None:
    copy, env = _copied_tree(tmp_path)
    fresh = _version_in(env, copy)
    assert fresh.stdout.split()[0] == "compiled", fresh.stderr
    cards = copy / "arbiter" / "engine" / "cards.py"
    cards.write_text(cards.read_text() + "\n# edited after the build\n")
    stale = _version_in(env, copy)
    build, path = stale.stdout.split()
    assert build == "pure" and path.endswith("state.py")
    assert "older than its sources" in stale.stderr


@needs_compiled
def test_a_compiled_build_with_a_module_missing_is_not_used(tmp_path: Path) -> None:
    copy, env = _copied_tree(tmp_path)
    for extension in (copy / "arbiter" / "engine").glob("cards.*.so"):
        extension.unlink()
    partial = _version_in(env, copy)
    build, path = partial.stdout.split()
    assert build == "pure" and path.endswith("state.py")
    assert "incomplete" in partial.stderr


def test_the_stamp_names_every_compiled_module() -> None:
    if not _build.STAMP.exists():
        pytest.skip("no compiled build here")
    stamp = json.loads(_build.STAMP.read_text())
    assert sorted(stamp["sources"]) == sorted(_build.COMPILED)


def test_make_compiles_again_when_any_compiled_source_changes() -> None:
    """Every module mypyc compiles is among the Makefile's COMPILED_SOURCES: else an edit of
    it would leave the build stale, and the pure build would run until someone ran make."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if ln.startswith("COMPILED_SOURCES"))
    line = line.replace("$(wildcard ", " ").replace(")", " ")  # make's glob, as a glob
    listed = {
        path.relative_to(ROOT)
        for pattern in line.split(":=", 1)[1].split()
        for path in ROOT.glob(pattern)
    }
    for module in _build.COMPILED:
        assert _build.source_of(module).relative_to(ROOT) in listed, module


def test_version_and_healthz_say_which_build_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().endswith(f"({arbiter.BUILD} engine)")
    assert make_client().get("/healthz").get_json()["build"] == arbiter.BUILD
