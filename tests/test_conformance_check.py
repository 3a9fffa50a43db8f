"""``arbiter conformance check --cmd``: the shipped adapter passes everything (protocol 1 and 2);
engines with one rule wrong are caught with that rule named — those that answer only legal moves
and verdicts too; the checker asks exactly the documented fields, grades answers part by part
and misses no left-out move; engines that crash, print garbage or hang are reported and never
hold the checker; the report says it in the referee's words, es and en.

The broken engines are the tests' own reference referee (tests/conformance_reference.py) with
one rule of docs/rules.md changed; the misbehaving ones are a few lines written here.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.cli import main
from arbiter.conformance.kit.checker import check, select
from arbiter.conformance.kit.engines import CommandEngine, HttpEngine, Reply, Trouble, _Process
from arbiter.conformance.kit.grading import Grade, Part, difference, judge
from arbiter.conformance.kit.protocol import Ask
from arbiter.conformance.kit.report import render
from arbiter.conformance.kit.vector_files import MANIFEST, load
from tests.api_support import ROOT
from tests.gunicorn_support import free_port

KIT = ROOT / "conformance"
ADAPTER = f"{sys.executable} {ROOT / 'conformance' / 'adapter.py'}"
REFERENCE = f"{sys.executable} -m tests.conformance_reference"
#: Every family of rules but setups, which the reference does not check.
NOT_SETUP = [
    "obligation:*", "contrafallar", "illegal:*", "outcome:*", "option:*", "declaration:*",
    "call:*", "draws", "free-play", "situation:*", "french-notation", "after-match",
]  # fmt: skip
POSITION_ENGINE = f"{sys.executable} -m tests.conformance_position"


def checked(tmp_path: Path, *args: str, lang: str = "en") -> tuple[int, dict[str, Any]]:
    """Run the checker in this process; its exit status and JSON report."""
    report = tmp_path / "report.json"
    status = main(["conformance", "check", *args, "--json", str(report), "--lang", lang])
    return status, json.loads(report.read_text())


def checked_apart(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """Run the checker as a command (bounded: it must end by itself)."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "conformance",
            "check",
            *args,
            "--json",
            str(report),
            "--plain",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(report.read_text()), done.stdout


def engine_script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {path}"


# --- the project's own engine ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["1", "2", "3"])
def test_the_shipped_adapter_passes_every_published_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], protocol: str
) -> None:
    status, report = checked(tmp_path, "--cmd", ADAPTER, "--protocol", protocol)
    total = json.loads((KIT / MANIFEST).read_text())["vectors"]
    assert status == 0
    assert (report["vectors"], report["pass"], report["fail"], report["unsupported"]) == (
        total, total, 0, 0
    )  # fmt: skip
    assert report["troubles"] == {} and report["failures"] == [] and report["restarts"] == 0
    assert report["protocol"] == int(protocol)
    shown = capsys.readouterr().out
    assert "┃" in shown and "tute-gana-pierde" in shown  # rich's table
    assert f"{total} vectors: {total} passed, 0 failed, 0 unsupported" in shown


def test_the_adapters_are_the_examples_of_the_documentation() -> None:
    doc = (ROOT / "docs" / "conformance.md").read_text()
    third_party = ROOT / "tests" / "conformance_position.py"
    for marker, path in (("adapter", KIT / "adapter.py"), ("third-party adapter", third_party)):
        example = doc.split(f"<!-- {marker} -->\n```python\n", 1)[1].split("```", 1)[0]
        assert example == path.read_text()
    template = (KIT / "adapter.py").read_text()
    assert template.count("# ENGINE") == 5 and len(template.splitlines()) <= 72


@pytest.mark.slow
def test_an_engine_answering_from_positions_alone_passes_what_it_answers(tmp_path: Path) -> None:
    """The documentation's third-party adapter: every vector it answers passes; it leaves
    unsupported only the French logs and the questions without a position (setups)."""
    status, report = checked(tmp_path, "--cmd", POSITION_ENGINE, "--exclude", "setup:*")
    assert status == 0 and report["fail"] == 0
    assert report["pass"] > 0.9 * report["vectors"]


# --- engines with one rule wrong ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("broken", "rule"),
    [
        ("montar", "obligation:montar"),
        ("pisar", "obligation:pisar"),
        ("exchange-stock", "illegal:no_stock"),
        ("over-100", "outcome:over_100"),
    ],
)
def test_an_engine_with_a_rule_wrong_is_caught_with_that_rule_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str, rule: str
) -> None:
    monkeypatch.chdir(ROOT)
    status, report = checked(tmp_path, "--cmd", f"{REFERENCE} --break {broken}", "--rules",
                             *NOT_SETUP)  # fmt: skip
    assert status == 1
    failing = {f["rule"]: f for f in report["failures"]}
    assert rule in failing, sorted(failing)
    failure = failing[rule]
    assert failure["said"] is not None and failure["trouble"] is None
    assert failure["explanation"], failure
    question = failure["question"]
    if failure["ask"] == "verdict":
        message = arbiter.validate(question["log"], question["move"]).to_dict()["message"]
        assert f"The referee: {message}" in failure["explanation"]
    elif failure["ask"] == "legal_moves":
        extra = [m for m in failure["said"]["legal_moves"]
                 if m not in failure["expected"]["legal_moves"]]  # fmt: skip
        message = arbiter.validate(question["log"], extra[0]).to_dict()["message"]
        assert any(message in line for line in failure["explanation"])
    else:
        assert failure["difference"]["path"].startswith("replay.")
    # the rule named is wrong in every ruleset where it applies and has vectors
    assert report["rules"][rule] and all(c["fail"] for c in report["rules"][rule].values())


@pytest.mark.slow
def test_the_reference_engine_unbroken_fails_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    status, report = checked(tmp_path, "--cmd", REFERENCE, "--rules", *NOT_SETUP)
    assert status == 0 and report["fail"] == 0
    assert report["unsupported"] == sum(report["rules"]["french-notation"][rs]["unsupported"]
                                        for rs in report["rules"]["french-notation"])  # fmt: skip


def test_failures_are_explained_in_spanish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    status, report = checked(tmp_path, "--cmd", f"{REFERENCE} --break montar", "--rules",
                             "obligation:montar", "--rulesets", "tute-3p", lang="es")  # fmt: skip
    assert status == 1
    shown = capsys.readouterr().out
    assert "Causas de fallo" in shown and "debía montar" in shown
    assert "montar · permitió una jugada incorrecta" in shown  # the cause, in words
    assert any("El motor permite una jugada que el árbitro no permite" in line
               for line in report["failures"][0]["explanation"])  # fmt: skip


# --- engines that misbehave -----------------------------------------------------------------------


@pytest.mark.slow
def test_an_engine_that_dies_is_started_again_and_its_vectors_fail(tmp_path: Path) -> None:
    command = engine_script(
        tmp_path,
        f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        exec(open({str(KIT / "adapter.py")!r}).read().split("for line in sys.stdin")[0])
        for count, line in enumerate(sys.stdin):
            if count == 2:
                print("boom: the engine fell over", file=sys.stderr)
                sys.exit(3)
            question = json.loads(line)
            print(json.dumps({{"id": question["id"], **answer(question)}}), flush=True)
        """,
    )
    status, report, shown = checked_apart(
        tmp_path, "--cmd", command, "--rules", "obligation:asistir", "--rulesets", "tute-3p",
        "--protocol", "2",  # no question of capabilities: the crash comes at the third vector
    )  # fmt: skip
    assert status == 1
    assert (report["pass"], report["fail"]) == (6, 2)  # 2 answers, a crash; again; again
    assert report["troubles"] == {"exited": 2}
    assert "status 3" in report["failures"][0]["detail"]
    assert "boom: the engine fell over" in report["failures"][0]["detail"]
    assert "The engine ended (status 3" in shown


def test_an_engine_that_prints_garbage_is_reported_then_given_up(tmp_path: Path) -> None:
    command = engine_script(
        tmp_path,
        """
        import sys
        for line in sys.stdin:
            print("I am thinking...", flush=True)
        """,
    )
    status, report, shown = checked_apart(tmp_path, "--cmd", command, "--rulesets", "tute-2p")
    assert status == 1
    assert report["pass"] == 0
    assert report["troubles"] == {"garbage": 3, "gave_up": report["vectors"] - 3}
    assert "I am thinking" in report["failures"][0]["detail"]
    assert "not a JSON object" in shown
    assert "The checker gave up on the engine after 3 failures to answer in a row" in shown


@pytest.mark.slow
def test_an_engine_that_hangs_times_out_and_the_checker_ends(tmp_path: Path) -> None:
    """One engine reads and never answers; one never even reads (and the biggest vector, a
    hundred deals, does not fit in the pipe): each vector waits only the timeout."""
    for body in (
        "import sys, time\nfor line in sys.stdin:\n    time.sleep(600)\n",
        "import time\ntime.sleep(600)\n",
    ):
        command = engine_script(tmp_path, body)
        status, report, _ = checked_apart(
            tmp_path, "--cmd", command, "--timeout", "0.5", "--rules", "option:*_target=*"
        )
        assert status == 1
        assert report["troubles"] == {"timeout": 3, "gave_up": report["vectors"] - 3}
        assert report["elapsed_seconds"] < 30  # 3 timeouts of 0.5 s, and the kills


def test_answers_for_another_vector_and_unsupported_asks(tmp_path: Path) -> None:
    command = engine_script(
        tmp_path,
        """
        import json, sys
        for line in sys.stdin:
            question = json.loads(line)
            if question["ask"] == "replay":
                print(json.dumps({"id": question["id"], "unsupported": True}), flush=True)
            else:
                print(json.dumps({"id": "another", "legal_moves": []}), flush=True)
        """,
    )
    status, report, _ = checked_apart(
        tmp_path, "--cmd", command, "--rules", "obligation:asistir", "--rulesets", "tute-4p"
    )
    assert status == 1
    assert report["unsupported"] >= 1 and report["pass"] == 0
    assert report["troubles"]["desync"] >= 1


def test_an_engine_that_answers_unsupported_to_everything_passes_nothing_and_fails_nothing(
    tmp_path: Path,
) -> None:
    command = engine_script(
        tmp_path,
        "import json, sys\nfor line in sys.stdin:\n"
        "    print(json.dumps({'id': json.loads(line)['id'], 'unsupported': True}), flush=True)\n",
    )
    status, report, _ = checked_apart(tmp_path, "--cmd", command, "--rulesets", "tute-3p")
    assert status == 0
    assert report["unsupported"] == report["vectors"] > 0


def test_probe_says_why_an_engine_cannot_be_started_or_reached(tmp_path: Path) -> None:
    """The command asks it once before a run (tests/test_cli.py: one line, exit 2); a checker
    driven as a library still fails the vectors of an engine that is not there."""
    missing = CommandEngine(str(tmp_path / "no-such-engine"), 1.0)
    assert missing.probe() == "No such file or directory"
    run = check(select(load(KIT, ["tute-2p"]), ["draws"]), missing)
    assert run.troubles() == {Trouble.EXITED: 3, Trouble.GAVE_UP: len(run.results) - 3}
    assert "cannot start" in run.results[0].detail
    adapter = CommandEngine(ADAPTER, 30)
    assert adapter.probe() is None
    adapter.close()
    absent = HttpEngine(f"http://127.0.0.1:{free_port()}", 1.0)
    assert "Connection refused" in (absent.probe() or "")
    with pytest.raises(ValueError, match="empty"):
        CommandEngine("  ", 1.0)


# --- the command's input --------------------------------------------------------------------------


@pytest.mark.slow
def test_bad_input_is_exit_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "check", "--cmd", ADAPTER, "--vectors", str(tmp_path)]) == 2
    assert "no readable MANIFEST.json" in capsys.readouterr().err
    assert main(["conformance", "check", "--cmd", ADAPTER, "--rules", "no-such-rule"]) == 2
    assert "no vector matches" in capsys.readouterr().err
    assert main(["conformance", "check", "--url", "ftp://example.org"]) == 2
    assert "not an http(s) URL" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["conformance", "check", "--cmd", ADAPTER, "--url", "http://127.0.0.1:1"])
    with pytest.raises(SystemExit):
        main(["conformance", "check", "--cmd", ADAPTER, "--timeout", "0"])


@pytest.mark.slow
def test_a_reader_that_stops_early_and_a_report_that_cannot_be_written(tmp_path: Path) -> None:
    """``check ... | head -1`` ends quietly with the verdict's status; an unwritable report is bad
    input, never a traceback."""
    command = [sys.executable, "-m", "arbiter.cli", "conformance", "check", "--cmd", ADAPTER,
               "--rules", "draws", "free-play"]  # fmt: skip
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.readline()
        p.stdout.close()
        errors = p.stderr.read().decode()
        assert p.wait(timeout=60) == 0, errors
    assert "Traceback" not in errors and "Broken pipe" not in errors
    missing = tmp_path / "no" / "such" / "dir"
    args = ["conformance", "check", "--cmd", ADAPTER, "--rules", "draws"]
    assert main([*args, "--json", str(missing / "report.json")]) == 2


def test_the_plain_table_says_the_same_without_box_drawing() -> None:
    vectors = select(load(KIT), ["draws"])
    run = check(vectors, CommandEngine(ADAPTER, 30))
    drawn, plain = io.StringIO(), io.StringIO()
    render(run, drawn, "en")
    render(run, plain, "en", rich_ok=False)
    assert "┃" in drawn.getvalue() and "┃" not in plain.getvalue()
    for shown in (drawn.getvalue(), plain.getvalue()):
        assert "8/8" in shown and "8 vectors: 8 passed" in shown


def test_rules_are_chosen_by_name_or_pattern() -> None:
    vectors = load(KIT)
    assert {v.rule for v in select(vectors, ["option:call_ranks=[1,3]"])} == {
        "option:call_ranks=[1,3]"
    }
    chosen = {v.rule for v in select(vectors, ["illegal:no_*"])}
    assert chosen == {"illegal:no_stock", "illegal:no_trick_won"}
    assert select(vectors, None) == vectors


def test_the_command_draws_a_plain_report(tmp_path: Path) -> None:
    status, _, shown = checked_apart(tmp_path, "--cmd", ADAPTER, "--rules", "draws")
    assert status == 0
    assert "┃" not in shown
    assert "draws" in shown and "8/8" in shown


# --- comparing answers ----------------------------------------------------------------------------


def test_answers_are_compared_field_by_field_with_sets_where_order_means_nothing() -> None:
    expected = {"deals": [{"violations": [{"correct": ["1O", "3O"], "seat": 1}]}],
                "match": {"over": True, "winners": [0, 2]}}  # fmt: skip
    said = {"deals": [{"violations": [{"correct": ["3o", "1O"], "seat": 1, "card": "x"}]}],
            "match": {"over": True, "winners": [2, 0], "losers": []}, "next": None}  # fmt: skip
    assert difference(expected, said) is None
    found = difference(expected, {**said, "match": {"over": 1, "winners": [0, 2]}})
    assert found is not None and found.path == "match.over"  # true is not 1
    found = difference(expected, {"deals": [], "match": said["match"]})
    assert found is not None and found.path == "deals"
    assert difference({"card": "QH"}, {"card": "Q♥"}) is None


def test_a_verdict_legal_moves_and_refusals_are_judged_as_docs_say() -> None:
    vectors = load(KIT)
    verdict = next(v for v in vectors if v.kind == "verdict" and v.expect["verdict"] == "renuncio")
    wanted = {k: v for k, v in verdict.expect.items() if k != "move"}
    assert judge(verdict, Reply(answer=wanted)).grade is Grade.PASS
    wrong = {**wanted, "obligation": "nonsense"}
    assert judge(verdict, Reply(answer=wrong)).grade is Grade.FAIL
    moves = next(v for v in vectors if v.kind == "legal_moves" and len(v.expect["legal_moves"]) > 1)
    shuffled = list(reversed(moves.expect["legal_moves"]))
    assert judge(moves, Reply(answer={"legal_moves": shuffled})).grade is Grade.PASS
    doubled = [*shuffled, shuffled[0]]
    assert judge(moves, Reply(answer={"legal_moves": doubled})).grade is Grade.FAIL
    refused = next(v for v in vectors if v.kind == "error")
    assert judge(refused, Reply(answer={"error": {"status": 400}})).grade is Grade.PASS
    assert judge(refused, Reply(answer={"replay": {}})).grade is Grade.FAIL
    assert judge(moves, Reply(answer={"error": {}})).grade is Grade.FAIL
    timeout = judge(moves, Reply(trouble=Trouble.TIMEOUT, detail="1 s"))
    assert timeout.grade is Grade.FAIL and timeout.trouble is Trouble.TIMEOUT


def test_the_http_engine_needs_an_http_url() -> None:
    with pytest.raises(ValueError, match="not an http"):
        HttpEngine("127.0.0.1:8000", 1.0)


# --- engines that judge moves only, with a rule wrong -------------------------------------------

#: A bug of an engine answering only legal_moves and verdict, and the rule whose published
#: vectors it fails (the situation that shows it, for the bugs real engines had).
MOVES_ONLY = [
    ("montar-trumped", "situation:trumped-split"),
    ("tute-after-trick", "situation:tute-after-trick"),
    ("cante-per-side", "situation:side-sang-before"),
    ("exchange-two", "situation:two-of-trumps"),
    ("cante-before-draw", "situation:cante-after-draw"),
    ("lead-no-trump", "situation:tute-first-lead"),
    ("omit-a-move", "obligation:montar"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("broken", "rule"), MOVES_ONLY)
def test_an_engine_judging_moves_only_with_a_rule_wrong_fails_the_published_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str, rule: str
) -> None:
    monkeypatch.chdir(ROOT)
    command = f"{REFERENCE} --break {broken} --asks legal_moves,verdict"
    status, report = checked(tmp_path, "--cmd", command, "--asks", "legal_moves,verdict",
                             "--exclude", "setup:*")  # fmt: skip
    assert status == 1 and report["unsupported"] == sum(
        c["unsupported"] for c in report["rules"]["french-notation"].values()
    )
    failing = {f["rule"] for f in report["failures"]}
    assert rule in failing, sorted(failing)
    assert len(report["failures"]) == report["fail"]  # every failing vector, not one per rule
    # the smallest failures are one per cause (not per rule), and every failure has its cause
    assert set(report["smallest_failures"]) == {f["cause"] for f in report["failures"]}
    same = checked(tmp_path, "--cmd", f"{REFERENCE} --asks legal_moves,verdict",
                   "--asks", "legal_moves,verdict", "--exclude", "setup:*")  # fmt: skip
    assert same[0] == 0  # the reference unbroken: the failures are the bug's


def test_an_engine_that_leaves_out_one_legal_move_fails(tmp_path: Path) -> None:
    status, report, shown = checked_apart(
        tmp_path, "--cmd", f"{REFERENCE} --break omit-a-move", "--rules", "contrafallar",
        "--rulesets", "tute-3p",
    )  # fmt: skip
    assert status == 1
    failed = [f for f in report["failures"] if f["ask"] == "legal_moves"]
    assert failed and all(f["parts"]["legal_moves.plays"] == "fail" for f in failed)
    assert "The engine leaves out a move the referee allows" in shown


# --- what the engine is asked -------------------------------------------------------------------


def _documented_fields() -> dict[str, dict[str, str]]:
    """The table of docs/conformance.md, "The protocol": field -> protocol -> when."""
    doc = (ROOT / "docs" / "conformance.md").read_text()
    table = doc.split("<!-- question fields -->\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    out = {}
    for row in table:
        field, one, two, three, _ = [cell.strip() for cell in row.strip("|").split("|")]
        out[field.strip("`")] = {"1": one, "2": two, "3": three}
    return out


def test_an_engine_receives_exactly_the_documented_fields(tmp_path: Path) -> None:
    """A recording engine writes down every question; each holds the fields the docs' table
    lists for its protocol and ask, no more (``expect`` is never sent)."""
    seen = tmp_path / "seen.jsonl"
    command = engine_script(
        tmp_path,
        f"""
        import json, sys
        with open({str(seen)!r}, "a") as out:
            for line in sys.stdin:
                question = json.loads(line)
                out.write(line)
                out.flush()
                print(json.dumps({{"id": question["id"], "unsupported": True}}), flush=True)
        """,
    )
    documented = _documented_fields()
    assert set(documented) == {"id", "protocol", "ask", "move", "log", "position"}
    for protocol in ("1", "2"):
        seen.write_text("")
        checked_apart(tmp_path, "--cmd", command, "--protocol", protocol, "--rulesets", "tute-3p",
                      "--rules", "obligation:*", "setup:dealer", "outcome:tute")  # fmt: skip
        questions = [json.loads(line) for line in seen.read_text().splitlines()]
        assert {q["ask"] for q in questions} == {"legal_moves", "verdict", "replay"}
        for q in questions:
            wanted = {f for f, when in documented.items() if when[protocol] == "✓"}
            if q["ask"] == "verdict":
                wanted.add("move")
            assert set(q) == wanted, q.keys()
            assert "expect" not in json.dumps(q)


def test_an_engine_that_echoes_what_it_is_asked_passes_nothing(tmp_path: Path) -> None:
    command = engine_script(
        tmp_path,
        """
        import sys
        for line in sys.stdin:
            sys.stdout.write(line)
            sys.stdout.flush()
        """,
    )
    status, report, _ = checked_apart(tmp_path, "--cmd", command, "--rulesets", "tute-4p")
    assert status == 1 and report["pass"] == 0 and report["fail"] == report["vectors"]


# --- grading ------------------------------------------------------------------------------------


def test_answers_are_graded_part_by_part() -> None:
    vectors = load(KIT)
    moves = next(
        v for v in vectors
        if v.kind == "legal_moves" and v.expect["legal_moves"]
        and any(m["type"] != "play" for m in v.expect["legal_moves"])
    )  # fmt: skip
    plays_only = [m for m in moves.expect["legal_moves"] if m["type"] == "play"]
    graded = judge(moves, Reply(answer={"legal_moves": plays_only}))
    assert graded.grade is Grade.FAIL
    assert graded.parts == {Part.PLAYS: Grade.PASS, Part.DECLARATIONS: Grade.FAIL}
    one_short = [m for m in moves.expect["legal_moves"] if m != plays_only[0]]
    assert judge(moves, Reply(answer={"legal_moves": one_short})).parts[Part.PLAYS] is Grade.FAIL
    illegal = next(v for v in vectors if v.kind == "verdict" and v.expect["verdict"] == "illegal")
    other = "no_stock" if illegal.expect["code"] != "no_stock" else "no_trick_won"
    graded = judge(illegal, Reply(answer={"verdict": "illegal", "code": other}))
    assert graded.parts == {Part.KIND: Grade.PASS, Part.LABEL: Grade.FAIL}
    ends = next(v for v in vectors if v.kind == "verdict" and "outcome" in v.expect)
    said = {k: v for k, v in ends.expect.items() if k not in ("move", "outcome")}
    graded = judge(ends, Reply(answer=said))  # a partial answer: the outcome left out
    assert graded.parts[Part.KIND] is Grade.PASS and graded.parts[Part.OUTCOME] is Grade.NOT_GRADED
    wrong = {"winners": [], "losers": [], "reason": "points"}
    graded = judge(ends, Reply(answer={**said, "outcome": wrong}))
    assert graded.parts[Part.KIND] is Grade.PASS and graded.parts[Part.OUTCOME] is Grade.FAIL
    swapped = {**ends.expect["outcome"], "winners": ends.expect["outcome"]["losers"]}
    assert judge(ends, Reply(answer={**said, "outcome": swapped})).grade is Grade.FAIL
    assert judge(ends, Reply(answer=dict(ends.expect))).grade is Grade.PASS


def test_vectors_are_chosen_by_ask_and_excluded_by_rule() -> None:
    vectors = load(KIT)
    chosen = select(vectors, None, asks=[Ask.LEGAL_MOVES, Ask.VERDICT], exclude=["setup:*"])
    assert chosen and {v.ask for v in chosen} == {Ask.LEGAL_MOVES, Ask.VERDICT}
    assert not any(v.rule.startswith("setup:") for v in chosen)
    assert {v.rule for v in select(vectors, ["illegal:*"], exclude=["illegal:no_*"])} == {
        v.rule for v in vectors if v.rule.startswith("illegal:") and not v.rule.startswith(
            "illegal:no_")
    }  # fmt: skip


def test_the_plain_report_names_the_engines_troubles(tmp_path: Path) -> None:
    command = engine_script(
        tmp_path,
        """
        import json, sys
        for n, line in enumerate(sys.stdin):
            question = json.loads(line)
            if n % 2:
                print("not JSON", flush=True)
            else:
                print(json.dumps({"id": question["id"], "unsupported": True}), flush=True)
        """,
    )
    status, report, shown = checked_apart(tmp_path, "--cmd", command, "--rules", "draws")
    assert status == 1 and report["troubles"] == {"garbage": 4} and report["restarts"] == 4
    assert "The engine's troubles: 4 unreadable answers; it was started again 4 times." in shown
    assert "legal moves, the plays: 0/" in shown  # the grades, part by part


def test_a_killed_engine_s_readers_never_read_the_next_engine_s_pipes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An engine started again after a trouble gets the pipe numbers the killed one freed. The
    killed engine's reader threads may still be about to read (on a loaded machine they are
    behind): were its pipes closed under them, they would read the new engine's answers, and
    the checker would wait for an answer that had come (the plain-report test above once
    counted a timeout so). Here every reader is held before its first read: the killed
    engine's go on once the new engine runs, and must end without taking its answer."""
    real_read, arrived = os.read, threading.Semaphore(0)
    gates: dict[threading.Thread, threading.Event] = {}
    earlier = set(threading.enumerate())  # this test's thread (Popen's reads), earlier tests'

    def read(fd: int, size: int) -> bytes:
        me = threading.current_thread()
        if me not in earlier and me not in gates:
            gate = gates[me] = threading.Event()
            arrived.release()
            assert gate.wait(60)
        return real_read(fd, size)

    def held(count: int) -> list[threading.Thread]:
        for _ in range(count):  # an engine's answers' reader and its standard error's
            assert arrived.acquire(timeout=60)
        return [thread for thread, gate in gates.items() if not gate.is_set()]

    monkeypatch.setattr(os, "read", read)
    killed = _Process([sys.executable, "-c", "import time; time.sleep(60)"])
    old = held(2)
    killed.kill()
    fresh = _Process([sys.executable, "-c", "print('ready', flush=True)"])
    new = [thread for thread in held(2) if thread not in old]
    try:
        for thread in old:
            gates[thread].set()
            thread.join(60)
            assert not thread.is_alive()
        for thread in new:
            gates[thread].set()
        assert fresh.lines.get(60) == b"ready\n"
    finally:
        for gate in gates.values():
            gate.set()
        fresh.close()
