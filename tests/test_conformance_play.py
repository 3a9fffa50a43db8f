"""``arbiter conformance play``: random games against an engine. The shipped adapter and a second
referee (tests/conformance_position.py, answering from positions) agree with the referee; what
play-testing expects is what the referee answers about each question's log; the questions are
the documented ones; engines with a rule wrong are found within 200 games, each disagreement
shrunk to a reproducer that is a vector of the kit; a run is bounded and the same for a seed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arbiter.cli import main
from arbiter.conformance.kit.engines import Encoded, Reply, Sent
from arbiter.conformance.kit.play import Plan, play
from arbiter.conformance.kit.positions import position_of
from arbiter.conformance.kit.protocol import PROTOCOL_VERSION, Ask, dumps
from arbiter.conformance.kit.referee_answers import referee_answer
from arbiter.conformance.kit.vector_files import load
from tests.api_support import ROOT

ADAPTER = f"{sys.executable} {ROOT / 'conformance' / 'adapter.py'}"
POSITION_ENGINE = f"{sys.executable} -m tests.conformance_position"
BROKEN = f"{sys.executable} -m tests.conformance_reference --asks legal_moves,verdict --break"
QUESTION_FIELDS = {"id", "protocol", "ask", "log", "position"}


def played(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "play.json"
    status = main(["conformance", "play", *args, "--json", str(report), "--plain"])
    return status, json.loads(report.read_text())


class Referee:
    """An engine in this process that answers every question as the referee does from the
    question's log (``arbiter.validate``/``arbiter.replay``), recording what it is asked."""

    name = "the referee on each log"
    restarts = 0

    def __init__(self) -> None:
        self.questions: list[dict[str, Any]] = []

    def ask(self, question: Any) -> Reply:
        return self.ask_many([question])[0]

    def ask_many(self, questions: Sequence[Any]) -> list[Reply]:
        return self.receive(self.send(questions))

    def send(self, questions: Sequence[Any]) -> Sent:
        return Sent(None, questions)

    def receive(self, sent: Sent) -> list[Reply]:
        out = []
        for q in sent.questions:
            question = json.loads(q.line) if isinstance(q, Encoded) else dict(q)
            self.questions.append(question)
            answer = referee_answer(question["log"], Ask(question["ask"]), question.get("move"))
            out.append(Reply(answer={"id": question["id"], **answer}))
        return out

    def close(self) -> None:
        pass


def test_what_play_expects_is_what_the_referee_answers_about_each_log() -> None:
    """Every question of 40 games (every ruleset, random options, matches of a few deals)
    answered from its log by arbiter.validate / arbiter.replay: no disagreement — the play's
    own expectations (from the live position) are the referee's answers."""
    engine = Referee()
    run = play(engine, Plan(games=40, seed=5, options_random=True, keep_going=True))
    assert run.findings == [] and not run.troubles
    assert run.questions == len(engine.questions) > 1000
    asks = {q["ask"] for q in engine.questions}
    assert asks == {"legal_moves", "verdict"}
    verdicts = [q for q in engine.questions if q["ask"] == "verdict"]
    codes = {referee_answer(q["log"], Ask.VERDICT, q["move"]).get("code") for q in verdicts}
    assert len(codes) >= 8  # illegal events of many codes are asked, not only legal plays


def test_each_question_is_the_documented_fields_with_the_logs_position() -> None:
    engine = Referee()
    play(engine, Plan(games=6, seed=6))
    for question in engine.questions:
        fields = QUESTION_FIELDS | ({"move"} if question["ask"] == "verdict" else set())
        assert set(question) == fields
        assert question["protocol"] == PROTOCOL_VERSION
        assert question["position"] == position_of(question["log"])
    engine = Referee()
    play(engine, Plan(games=2, seed=6, protocol=1))
    assert {frozenset(q) - {"move"} for q in engine.questions} == {frozenset({"id", "ask", "log"})}


def test_the_question_lines_are_the_questions_json() -> None:
    """play encodes each position's log once: its lines are exactly ``dumps`` of the question,
    fields in the documented order."""
    lines: list[bytes] = []

    class Recorder(Referee):
        def send(self, questions: Sequence[Any]) -> Sent:
            lines.extend(q.line for q in questions)
            return super().send(questions)

    play(Recorder(), Plan(games=3, seed=7))
    for line in lines:
        question = json.loads(line)
        assert line == (dumps(question) + "\n").encode()
        order = [k for k in ("id", "protocol", "ask", "move", "log", "position") if k in question]
        assert list(question) == order


@pytest.mark.slow
def test_the_shipped_adapter_and_a_second_referee_agree_in_play(tmp_path: Path) -> None:
    for engine, games in ((ADAPTER, 60), (POSITION_ENGINE, 40)):
        status, report = played(tmp_path, "--cmd", engine, "--games", str(games),
                                "--options-random", "--keep-going", "--seed", "3")  # fmt: skip
        assert status == 0, report["findings"][:1]
        assert report["findings"] == [] and report["troubles"] == {}
        assert report["games"] == games and report["positions"] > 20 * games


def test_a_run_is_the_same_for_the_same_seed() -> None:
    runs = [play(Referee(), Plan(games=8, seed=11, options_random=True)) for _ in range(2)]
    assert (runs[0].positions, runs[0].questions) == (runs[1].positions, runs[1].questions)
    other = play(Referee(), Plan(games=8, seed=12, options_random=True))
    assert (other.positions, other.questions) != (runs[0].positions, runs[0].questions)


#: An engine with one rule wrong, the ruleset it is played in, and the subject of the cause
#: its first disagreement names.
BUGS = [
    ("montar-trumped", "tute-4p", "montar"),
    ("tute-after-trick", "tute-3p", "tute"),
    ("cante-per-side", "tute-4p", "sing"),
    ("exchange-two", "tute-2p", "seven_not_held"),
    ("cante-before-draw", "tute-2p", "sing"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "ruleset", "rule"), BUGS)
def test_an_engine_with_a_rule_wrong_is_found_within_200_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str, ruleset: str, rule: str
) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "found"
    status, report = played(tmp_path, "--cmd", f"{BROKEN} {bug}", "--games", "200",
                            "--rulesets", ruleset, "--out", str(out))  # fmt: skip
    assert status == 1
    (found,) = report["findings"]
    assert found["game"] < 200 and found["signature"]["subject"] == rule
    vector = found["vector"]
    seen = found["first_seen"]["log"]["deals"]
    events = sum(len(d["events"]) for d in vector["log"]["deals"])
    assert events <= sum(len(d["events"]) for d in seen)
    assert len(vector["log"]["deals"]) <= len(seen)
    assert any("referee" in line or "motor" in line or "engine" in line
               for line in found["explanation"])  # fmt: skip
    # the reproducer is a vector of the kit: the broken engine fails it, the referee passes it
    (saved,) = load(out)
    assert json.loads(saved.to_line()) == vector
    args = ["conformance", "check", "--vectors", str(out), "--plain"]
    assert main([*args, "--cmd", f"{BROKEN} {bug}"]) == 1
    assert main([*args, "--cmd", ADAPTER]) == 0


@pytest.mark.slow
def test_keep_going_keeps_one_reproducer_per_disagreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    status, report = played(tmp_path, "--cmd", f"{BROKEN} montar-trumped", "--games", "30",
                            "--rulesets", "tute-4p", "--keep-going")  # fmt: skip
    assert status == 1
    signatures = [json.dumps(f["signature"], sort_keys=True) for f in report["findings"]]
    assert len(signatures) == len(set(signatures)) >= 2
    assert report["games"] == 30


def test_two_findings_at_one_position_read_its_answers_once(tmp_path: Path) -> None:
    """An engine wrong about everything disagrees twice at the first position (its legal moves
    and a verdict): the answers of that position are read once, not waited for again until the
    timeout (which made a trouble of an engine that had answered)."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)\n"
        "    a = {'legal_moves': []} if q['ask'] == 'legal_moves' else {'verdict': 'ok'}\n"
        "    print(json.dumps({'id': q['id'], **a}), flush=True)\n"
    )
    status, report = played(tmp_path, "--cmd", f"{sys.executable} {wrong}", "--games", "1",
                            "--rulesets", "tute-2p", "--keep-going", "--timeout", "3")  # fmt: skip
    assert status == 1 and len(report["findings"]) >= 2
    assert report["troubles"] == {} and report["restarts"] == 0


def test_play_asks_only_what_a_position_can_be_asked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["conformance", "play", "--cmd", "true", "--asks", "replay"])
    assert stopped.value.code == 2
    assert "legal_moves,verdict" in capsys.readouterr().err


def test_a_run_is_bounded_by_its_seconds(tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    time.sleep(0.02)\n"
        "    print(json.dumps({'id': json.loads(line)['id'], 'unsupported': True}), flush=True)\n"
    )
    status, report = played(tmp_path, "--cmd", f"{sys.executable} {slow}", "--seconds", "1")
    assert status == 0 and report["findings"] == []
    assert 0 < report["games"] < 200 and report["unsupported"] == report["questions"]


def test_an_engine_that_cannot_start_is_exit_2_and_one_that_dies_is_a_trouble(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-engine"
    assert main(["conformance", "play", "--cmd", str(missing), "--plain"]) == 2
    assert "cannot start the engine" in capsys.readouterr().err
    dies = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    status, report = played(tmp_path, "--cmd", dies)
    assert (status, report["troubles"], report["games"], report["gave_up"]) == (
        1, {"exited": 1}, 1, False
    )  # fmt: skip
    status, report = played(tmp_path, "--cmd", dies, "--keep-going")
    assert status == 1 and report["gave_up"] and report["troubles"] == {"exited": 3}
    assert report["games"] == 3 and report["restarts"] == 3  # each game abandoned, then given up
    shown = capsys.readouterr().out
    assert "The engine's troubles: 3 ended; it was started again 3 times." in shown
    assert "The engine failed to answer 3 times in a row: the run stopped." in shown
