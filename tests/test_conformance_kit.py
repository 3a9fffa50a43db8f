"""The published conformance vectors (conformance/): the coverage table, the format, every
answer the referee's and a second referee's, and an export that writes them again byte for byte.

The coverage table (rules by rulesets) is derived here from the engine's enums and option specs
— not from the kit's own lists — and every cell that applies must hold vectors.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.conformance.kit import referee_answers as answers
from arbiter.conformance.kit.checker import check
from arbiter.conformance.kit.dealing import option_values
from arbiter.conformance.kit.engines import Reply
from arbiter.conformance.kit.grading import Grade
from arbiter.conformance.kit.positions import position_of
from arbiter.conformance.kit.protocol import Ask, KitError, Vector
from arbiter.conformance.kit.vector_files import MANIFEST, PUBLISHED, load
from arbiter.engine.cards import Suit, parse_card
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import RULESETS, Options
from arbiter.engine.scoring import Reason
from arbiter.engine.state import IllegalCode
from devtools.vectors import hand_built, rules, searches
from devtools.vectors.__main__ import main as generate
from devtools.vectors.export import DEFAULT_PER_RULE, DEFAULT_SEED
from devtools.vectors.game_search import OPTION_FOCUS, random_games
from devtools.vectors.positions import spots
from devtools.vectors.probing import Table, moves_key, with_options
from devtools.vectors.selection import Pool
from devtools.vectors.setup_faults import BREAKERS
from devtools.vectors.situations import (
    ARISES,
    HOLDS,
    Situation,
    move_of,
    situations_of,
)
from tests import conformance_reference
from tests.api_support import ROOT
from tests.reference import TABLES
from tests.test_web import built_wheel

KIT = ROOT / "conformance"


@pytest.fixture(scope="module")
def published() -> list[Vector]:
    return load(KIT)


def cells(vectors: list[Vector]) -> Counter[tuple[str, str]]:
    return Counter((v.ruleset, v.rule) for v in vectors)


# --- the coverage table --------------------------------------------------------------------------


def test_rule_names_come_from_the_engines_enums_and_option_specs() -> None:
    every = set(rules.all_rules())
    assert {r for r in every if r.startswith("obligation:")} == {
        f"obligation:{o.value}" for o in Obligation
    }
    assert {r for r in every if r.startswith("illegal:")} == {
        f"illegal:{c.value}" for c in IllegalCode
    }
    assert {r for r in every if r.startswith("outcome:")} == {f"outcome:{r.value}" for r in Reason}
    for name, ruleset in RULESETS.items():
        mine = {r for r in rules.rules_for(ruleset) if r.startswith("option:")}
        for spec in ruleset.option_specs:
            described = spec.to_dict()
            if spec.type == "boolean":
                values: list[Any] = [True, False]
            elif "minimum" in described:
                values = [described["minimum"], described["maximum"], described["default"]]
            elif spec.type == "ranks":
                ranks = described["allowed"]
                values = [[a, b] for a in ranks for b in ranks if a < b]
            else:
                values = described["allowed"]
            for value in values:
                rule = f"option:{spec.name}={rules.value_text(value)}"
                assert (rule in mine) == rules.exercised(ruleset, spec, value), (name, rule)


def test_every_rule_applies_somewhere_and_every_table_is_complete() -> None:
    for table in (rules.OBLIGATIONS, rules.ILLEGAL, rules.OUTCOMES, rules.DECLARATIONS,
                  rules.CALLS, rules.SETUP):  # fmt: skip
        for member, applies in table.items():
            assert any(applies(r) for r in RULESETS.values()), member
    with pytest.raises(RuntimeError, match="does not place"):
        rules._complete(Reason, {Reason.POINTS: rules._always})


def test_every_cell_of_the_coverage_table_has_vectors(published: list[Vector]) -> None:
    found = cells(published)
    for name, ruleset in RULESETS.items():
        for rule in rules.rules_for(ruleset):
            assert found[(name, rule)] >= 1, f"no vector of {rule} in {name}"
    for vector in published:
        assert vector.rule in rules.rules_for(RULESETS[vector.ruleset]), vector.id
    assert 1500 <= len(published) <= 5000


def test_the_manifest_counts_every_rule_of_every_file(published: list[Vector]) -> None:
    manifest = json.loads((KIT / MANIFEST).read_text())
    assert manifest["engine_version"] == arbiter.__version__
    assert manifest["seed"] == DEFAULT_SEED
    assert manifest["vectors"] == len(published)
    found = cells(published)
    for ruleset, entry in manifest["rulesets"].items():
        assert entry["file"] == f"{ruleset}.jsonl"
        assert {r: n for (rs, r), n in found.items() if rs == ruleset} == entry["rules"]
        assert all(n <= DEFAULT_PER_RULE for n in entry["rules"].values())


def test_rules_left_out_are_rules_that_change_nothing() -> None:
    """Where the kit says an option value cannot be shown (the option about pisar, where only
    two play: tute-2p), no answer depends on it."""
    left_out = [
        (name, spec, value)
        for name, r in RULESETS.items()
        for spec in r.option_specs
        for value in option_values(spec)
        if not rules.exercised(r, spec, value)
    ]
    two_handed = [name for name in RULESETS if {n for r, n in TABLES if r == name} == {2}]
    pisar = "trump_when_cannot_overtrump"
    expected = {(name, pisar) for name in two_handed if RULESETS[name].option(pisar)}
    assert ("tute-2p", pisar) in expected
    assert {(n, s.name) for n, s, _ in left_out} == expected
    rng = random.Random(5)
    for name, spec, value in left_out:
        table = Table(name, RULESETS[name].players[0])
        for game in random_games(table, rng, 8):
            events = game["deals"][0]["events"]
            for k in range(0, len(events) + 1, 3):
                log = {**game, "deals": [{**game["deals"][0], "events": events[:k]}]}
                with_value = with_options(log, {spec.name: value})
                assert arbiter.replay(log).to_dict() == arbiter.replay(with_value).to_dict()
    for name in two_handed:
        assert "obligation:pisar" not in rules.rules_for(RULESETS[name])


def test_every_option_setup_fault_and_focus_has_its_search() -> None:
    options = {s.name for r in RULESETS.values() for s in r.option_specs}
    assert set(searches.OPTION_FINDERS) == options
    assert set(OPTION_FOCUS) <= options
    assert set(BREAKERS) == set(rules.SetupFault)


# --- the vectors ----------------------------------------------------------------------------------


def test_every_line_has_the_format_of_the_issue(published: list[Vector]) -> None:
    ids = set()
    for path in sorted(KIT.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            raw = json.loads(line)
            assert list(raw) == ["id", "ruleset", "rule", "ask", "log", "expect"]
            assert raw["id"] not in ids
            ids.add(raw["id"])
            expect = raw["expect"]
            kind = next(k for k in ("legal_moves", "verdict", "replay", "error") if k in expect)
            assert raw["ask"] == kind or (kind == "error" and raw["ask"] != "verdict")
            if kind == "verdict":
                assert set(expect) <= {"verdict", "obligation", "code", "move", "outcome"}
                assert ("obligation" in expect) == (expect["verdict"] == "renuncio")
                assert ("code" in expect) == (expect["verdict"] == "illegal")
                if "outcome" in expect:
                    assert set(expect["outcome"]) == {"winners", "losers", "reason"}
            elif kind == "replay":
                assert set(expect["replay"]) == {"status", "illegal", "deals", "match"}
            elif kind == "error":
                assert expect["error"]["status"] == 422
                assert raw["rule"].startswith("setup:") or raw["rule"] == "french-notation"
            if raw["rule"].startswith("setup:"):
                assert kind == "error"
    assert len(ids) == len(published)


def test_every_answer_is_the_referees(published: list[Vector]) -> None:
    for vector in published:
        said = answers.referee_answer(vector.log, vector.ask, vector.move)
        wanted = {k: v for k, v in vector.expect.items() if k != "move"}
        assert said == wanted, vector.id


def test_options_vectors_show_their_value(published: list[Vector]) -> None:
    """An ``option:X=v`` vector answers differently with another value of X."""
    for vector in published:
        if not vector.rule.startswith("option:"):
            continue
        name, text = vector.rule.removeprefix("option:").split("=", 1)
        assert text == rules.value_text(vector.log["options"][name]), vector.id
        spec = RULESETS[vector.ruleset].option(name)
        assert spec is not None
        wanted = {k: v for k, v in vector.expect.items() if k != "move"}

        def differs(
            other: Any, vector: Vector = vector, name: str = name, wanted: Any = wanted
        ) -> bool:
            changed = with_options(vector.log, {name: other})
            said = answers.referee_answer(changed, vector.ask, vector.move)
            if vector.ask is Ask.LEGAL_MOVES and "legal_moves" in said:
                return moves_key(said["legal_moves"]) != moves_key(wanted["legal_moves"])
            return said != wanted

        others = [v for v in option_values(spec) if v != vector.log["options"][name]]
        assert any(differs(v) for v in others), vector.id


class _Reference:
    """tests/reference.py as an engine, in this process."""

    name = "reference"
    restarts = 0

    def ask(self, question: Mapping[str, Any]) -> Reply:
        return Reply(answer=conformance_reference.answer(dict(question)))

    def close(self) -> None:
        pass


def test_a_second_referee_agrees_with_every_vector_it_can_read(published: list[Vector]) -> None:
    """The reference of the tests (no arbiter code) gives every answer of every vector, but for
    setups (it does not check them) and French codes (it reads Spanish ones)."""
    asked = [v for v in published if not v.rule.startswith("setup:")]
    run = check(asked, _Reference())
    failed = [r.vector.id for r in run.results if r.grade is Grade.FAIL]
    assert not failed
    unsupported = {r.vector.id for r in run.results if r.grade is Grade.UNSUPPORTED}
    french = {v.id for v in asked if v.rule == "french-notation"}
    assert french and unsupported == french
    assert run.count(Grade.UNSUPPORTED) == len(french)
    assert run.count(Grade.PASS) == len(asked) - len(french)


# --- the manifest and the export ------------------------------------------------------------------


def test_an_altered_file_or_another_version_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "kit"
    shutil.copytree(KIT, copy, ignore=shutil.ignore_patterns("*.py"))
    with (copy / "tute-2p.jsonl").open("a") as out:
        out.write("\n")
    with pytest.raises(KitError, match="SHA-256"):
        load(copy)
    manifest = json.loads((copy / MANIFEST).read_text())
    manifest["kit_version"] = 99
    (copy / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(KitError, match="kit version 99"):
        load(copy)
    with pytest.raises(KitError, match="no readable"):
        load(tmp_path)


def test_the_installed_package_finds_the_published_set() -> None:
    assert (PUBLISHED / MANIFEST).read_text() == (KIT / MANIFEST).read_text()


@pytest.mark.slow
def test_the_wheel_ships_the_published_set_and_no_generator(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """What users install — a wheel built from the container image's context — holds the
    published set and the shipped adapter and none of the generator; installed away from the
    repository, its kit checks the adapter against that set, every vector passing."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = built_wheel(tmp)
    names = set(wheel.namelist())
    shipped = {f"arbiter/conformance/published/{p.name}" for p in KIT.iterdir() if p.is_file()}
    assert shipped <= names, sorted(shipped - names)
    assert [n for n in names if n.startswith("devtools/") or "/vectors/" in n] == []
    site = tmp / "site"
    wheel.extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site), "ARBITER_PURE": "1"}
    where = subprocess.run(
        [sys.executable, "-c", "import arbiter, importlib.util as u; "
         "print(arbiter.__file__, u.find_spec('devtools'))"],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert where.stdout.split() == [str(site / "arbiter" / "__init__.py"), "None"]
    adapter = site / "arbiter" / "conformance" / "published" / "adapter.py"
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "conformance", "check", "--plain",
         "--cmd", f"{sys.executable} {adapter}"],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    total = json.loads((KIT / MANIFEST).read_text())["vectors"]
    assert f"{total} vectors: {total} passed, 0 failed, 0 unsupported" in done.stdout


def test_the_pool_keeps_the_smallest_of_each_facet_within_the_budget() -> None:
    pool = Pool(per_rule=2, budget=10)
    log = {"players": ["a", "b"], "deals": [{"events": []}]}

    def sized(n: int) -> dict[str, Any]:
        return {"players": ["a", "b"], "deals": [{"events": [{}] * n}]}

    for n in (5, 1, 3, 2):
        pool.offer("r", "x", sized(n), {"replay": {"n": n}})
    pool.offer("r", "x", sized(1), {"replay": {"n": 1}})  # the same again: not kept twice
    pool.offer("r", "x", log, {"legal_moves": []})
    assert [c.size for c in pool.found("r", "x")] == [0, 1, 2]
    assert [c.size for c in pool.chosen("r", "x")] == [0, 1]
    assert not pool.wants("r", "x", "replay", 2, 4)
    assert pool.wants("r", "x", "replay", 2, 1)
    tight = Pool(per_rule=3, budget=4)
    for n in (3, 2, 9):
        tight.offer("r", "y", sized(n), {"replay": {"n": n}})
    assert [c.size for c in tight.chosen("r", "y")] == [2]  # 2 + 3 would pass the budget
    alone = Pool(per_rule=3, budget=4)
    alone.offer("r", "z", sized(9), {"replay": {}})
    assert [c.size for c in alone.chosen("r", "z")] == [9]  # always at least one


@pytest.mark.slow
def test_export_writes_the_published_set_again_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(["--out", str(tmp_path)]) == 0
    count = int(capsys.readouterr().out.split()[0])
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in KIT.iterdir() if p.suffix in (".jsonl", ".json"))
    for name in written:
        assert (tmp_path / name).read_bytes() == (KIT / name).read_bytes(), (
            f"{name} differs: run `python -m devtools.vectors --out conformance` and commit"
        )
    assert count == len(load(tmp_path))


def test_the_generator_says_in_a_line_that_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("")
    assert generate(["--out", str(tmp_path / "a-file")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"cannot write {tmp_path / 'a-file'}: ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


# --- every rule asked as moves, and the situations --------------------------------------------


def test_every_rule_is_asked_as_legal_moves_or_a_verdict(published: list[Vector]) -> None:
    """An engine that judges moves but does not adjudicate logs is tested on every rule."""
    asked: dict[tuple[str, str], set[Ask]] = {}
    for vector in published:
        asked.setdefault((vector.ruleset, vector.rule), set()).add(vector.ask)
    missing = [cell for cell, asks in asked.items() if not asks & {Ask.LEGAL_MOVES, Ask.VERDICT}]
    assert missing == []
    setups = [v for v in published if v.rule.startswith("setup:")]
    assert {v.ask for v in setups} == {Ask.LEGAL_MOVES, Ask.REPLAY}


def test_moves_are_asked_where_the_referee_has_a_position(published: list[Vector]) -> None:
    for vector in published:
        if vector.ask is not Ask.REPLAY and vector.kind != "error":
            assert position_of(vector.log) is not None, vector.id


def test_a_verdict_names_the_outcome_of_the_deal_its_move_ends(published: list[Vector]) -> None:
    for vector in published:
        if vector.kind != "verdict" or vector.expect["verdict"] == "illegal":
            continue
        *before, last = vector.log["deals"]
        ended = {**vector.log, "deals": [*before, {**last, "events": [*last["events"],
                                                                      vector.move]}]}  # fmt: skip
        deal = arbiter.replay(ended).to_dict()["deals"][-1]
        if deal["finished"]:
            outcome = {k: deal["outcome"][k] for k in ("winners", "losers", "reason")}
            assert vector.expect["outcome"] == outcome, vector.id
        else:
            assert "outcome" not in vector.expect, vector.id
    rules = {v.rule for v in published if v.kind == "verdict" and "outcome" in v.expect}
    assert {f"outcome:{r.value}" for r in Reason} <= rules


def _situation_table() -> str:
    doc = (KIT.parent / "docs" / "conformance.md").read_text()
    return doc.split("<!-- situations -->\n", 1)[1].split("\n\n", 1)[0]


def test_the_situation_table_of_the_docs_counts_the_published_set(published: list[Vector]) -> None:
    """How many published vectors are asked in each situation, per ruleset, computed from each
    vector's position; a situation that can arise in a ruleset has vectors there."""
    counts: Counter[tuple[Situation, str]] = Counter()
    for vector in published:
        for found in situations_of(vector.log):
            counts[(found, vector.ruleset)] += 1
    rows = ["| situation | " + " | ".join(RULESETS) + " |", "|---|" + "---|" * len(RULESETS)]
    for found in Situation:
        cells = [
            str(counts[(found, name)]) if ARISES[found](ruleset) else "—"
            for name, ruleset in RULESETS.items()
        ]
        rows.append(f"| `{found.value}` | " + " | ".join(cells) + " |")
        for name, ruleset in RULESETS.items():
            assert (counts[(found, name)] > 0) == ARISES[found](ruleset), (found, name)
            assert counts[(found, name)] >= 1 or not ARISES[found](ruleset)
    table = "\n".join(rows)
    assert _situation_table() == table, table
    for found in Situation:  # each situation's own vectors are in it
        rule = f"situation:{found.value}"
        for vector in (v for v in published if v.rule == rule):
            assert found in situations_of(vector.log), vector.id


def test_two_players_never_meet_a_trumped_trick() -> None:
    """With two players the follower meets the leader's card alone: a trump never wins the
    trick before it (the table's "—" for trumped-split in tute-2p)."""
    rng = random.Random(9)
    for game in random_games(Table("tute-2p", 2), rng, 40, renuncios=(0.0, 0.2)):
        for spot in spots(game)[:-1]:
            assert not HOLDS[Situation.TRUMPED_SPLIT](spot, RULESETS["tute-2p"], Options())
            assert len(spot.trick) <= 1


def test_the_trumped_trick_of_the_issue_is_that_situation() -> None:
    """Trump espadas, trick 2O 10E 11O, the follower holds 12O 1O 3O 5O: any oros will do, and
    the verdict that shows it is on the five."""
    table = Table("tute-4p", 4)
    fixed = {0: ["2O"], 1: ["10E"], 2: ["11O"], 3: ["12O", "1O", "3O", "5O"]}
    deal = hand_built.shaped(
        table,
        random.Random(1),
        {seat: [parse_card(c) for c in cards] for seat, cards in fixed.items()},
        void={1: [Suit.OROS]},
        trump_suit=Suit.ESPADAS,
    )
    assert deal is not None
    plays = [{"type": "play", "seat": s, "card": c} for s, c in enumerate(["2O", "10E", "11O"])]
    log = hand_built.log_of(table, [{**deal, "events": plays}])
    spot = spots(log)[-1]
    assert Situation.TRUMPED_SPLIT in situations_of(log)
    move = move_of(Situation.TRUMPED_SPLIT, spot)
    assert move is not None and move.to_json("spanish")["card"] == "5O"
    assert arbiter.validate(log, move.to_json("spanish")).to_dict()["verdict"] == "ok"


def test_a_trump_still_due_when_none_beats_the_tricks_is_that_situation() -> None:
    """Trump espadas, trick 2O 3E, the follower (void in oros) holds 4E 12E and copas, the ace
    of espadas is elsewhere: no trump beats the three, a trump is still due, and the verdict
    that shows it is on a discard (the renuncio a table with a free discard allows). Not in a
    deal that holds a renuncio: a table that blocks them never gets there."""
    table = Table("tute-4p", 4)
    fixed = {0: ["2O"], 1: ["3E"], 2: ["4E", "12E", "1C"], 3: ["1E"]}
    deal = hand_built.shaped(
        table,
        random.Random(1),
        {seat: [parse_card(c) for c in cards] for seat, cards in fixed.items()},
        void={1: [Suit.OROS], 2: [Suit.OROS]},
        trump_suit=Suit.ESPADAS,
    )
    assert deal is not None
    plays = [{"type": "play", "seat": s, "card": c} for s, c in enumerate(["2O", "3E"])]
    log = hand_built.log_of(table, [{**deal, "events": plays}])
    spot = spots(log)[-1]
    assert Situation.CANNOT_OVERTRUMP in situations_of(log)
    move = move_of(Situation.CANNOT_OVERTRUMP, spot)
    assert move is not None and move.to_json("spanish")["card"][-1] != "E"
    said = arbiter.validate(log, move.to_json("spanish")).to_dict()
    assert (said["verdict"], said["obligation"]) == ("renuncio", "fallar")
    careless = dataclasses.replace(spot, renuncio_tricks=frozenset({0}))
    assert not HOLDS[Situation.CANNOT_OVERTRUMP](careless, RULESETS["tute-4p"], Options())


def test_a_partners_earlier_cante_is_covered(published: list[Vector]) -> None:
    """tute-4p: a cante open to a player whose partner sang in an earlier trick (engines that
    allow one cante per side in a deal fail there)."""
    found = []
    for vector in published:
        if vector.ruleset != "tute-4p" or vector.rule != "situation:side-sang-before":
            continue
        position = position_of(vector.log)
        assert position is not None
        turn, done = position["turn"], position["trick"]["number"]
        partner = (turn + 2) % 4
        if any(c["seat"] == partner and c["trick"] < done - 1 for c in position["cantes"]):
            found.append(vector.ask)
    assert set(found) == {Ask.LEGAL_MOVES, Ask.VERDICT}
