"""Conformance for the engines that really exist: capabilities declared once (protocol 3), a
table that blocks renuncios graded as what it is, partial answers not graded, one finding per
bug under its cause, shrinking that always keeps the engine's answer, a coverage table of the
rare situations, and every report saying what was not tested.

The engine is the tests' reference referee made an online table (tests/conformance_blocking.py):
blocking, no obligation names, no illegal codes, no outcomes, tute-2p and tute-4p only, its
declarations automatic — or as moves, or with outcomes, for the bugs that need them.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.cli import main
from arbiter.conformance.kit.capabilities import (
    EVERYTHING,
    Capabilities,
    CapabilityError,
    ask,
    parse,
    untested,
)
from arbiter.conformance.kit.checker import cause_of, check
from arbiter.conformance.kit.engines import MAX_LINE, HttpEngine, Reply, Trouble
from arbiter.conformance.kit.grading import Grade, Part, judge
from arbiter.conformance.kit.protocol import Ask, Vector
from arbiter.conformance.kit.report import explain
from arbiter.conformance.kit.situations import SITUATIONS
from arbiter.conformance.kit.vector_files import PUBLISHED, load
from arbiter.engine.rulesets import RULESETS
from tests.api_support import ROOT

TABLE = f"{sys.executable} -m tests.conformance_blocking"
ADAPTER = f"{sys.executable} {ROOT / 'conformance' / 'adapter.py'}"
REFERENCE = f"{sys.executable} -m tests.conformance_reference"
BLOCKING: dict[str, Any] = {
    "rulesets": ["tute-2p", "tute-4p"],
    "notations": ["spanish"],
    "options": "defaults",
    "renuncio": "blocks",
    "obligations": False,
    "illegal_codes": False,
    "declarations": "automatic",
    "outcomes": False,
    "replay": False,
}


def run(tmp_path: Path, verb: str, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / f"{verb}.json"
    status = main(["conformance", verb, *args, "--json", str(report), "--plain"])
    return status, json.loads(report.read_text())


@pytest.fixture(scope="module")
def published() -> list[Vector]:
    return load(PUBLISHED)


# --- capabilities ---------------------------------------------------------------------------------


class _Answers:
    """An engine in this process answering the capabilities question as told."""

    name = "in process"
    restarts = 0

    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer

    def ask(self, question: Any) -> Reply:
        if self.answer is None:
            return Reply(trouble=Trouble.EXITED, detail="status 1")
        return Reply(answer={"id": question["id"], **self.answer})


def test_capabilities_are_read_checked_and_overridden(tmp_path: Path) -> None:
    caps = ask(_Answers({"capabilities": BLOCKING}))  # type: ignore[arg-type]
    assert caps.declared and caps.blocks and not caps.declares
    assert caps.rulesets == ("tute-2p", "tute-4p") and caps.notations == ("spanish",)
    # an engine of protocol 2 (unsupported, or no answer at all) is asked everything
    for answer in ({"unsupported": True}, None):
        assert ask(_Answers(answer)) == EVERYTHING  # type: ignore[arg-type]
    assert not EVERYTHING.declared and untested(EVERYTHING) == []
    overridden = ask(_Answers({"capabilities": BLOCKING}), {"outcomes": True})  # type: ignore[arg-type]
    assert overridden.outcomes and overridden.blocks
    for wrong in ({"renuncio": "maybe"}, {"rulesets": ["tute-9p"]}, {"outcomes": 1}, {"x": 1}):
        with pytest.raises(CapabilityError):
            Capabilities().with_values(wrong)
    file = tmp_path / "caps.json"
    file.write_text(json.dumps(BLOCKING))
    assert parse(str(file)) == BLOCKING == parse(json.dumps(BLOCKING))
    for bad in ("[1]", "{", str(tmp_path / "none.json"), '{"replay": "yes"}'):
        with pytest.raises(CapabilityError):
            parse(bad)


def test_a_bad_capabilities_option_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "check", "--cmd", TABLE, "--capabilities", "{"]) == 2
    assert "--capabilities is not JSON" in capsys.readouterr().err


# --- grading what is declared ---------------------------------------------------------------------


def _first(vectors: list[Vector], **expect: Any) -> Vector:
    return next(
        v
        for v in vectors
        if v.ask is Ask.VERDICT and all(v.expect.get(k) == x for k, x in expect.items())
    )


def test_a_blocking_table_refuses_renuncios_and_names_nothing(published: list[Vector]) -> None:
    caps = Capabilities().with_values(BLOCKING)
    renuncio = _first(published, verdict="renuncio")
    for said, grade in (
        ({"verdict": "illegal"}, Grade.PASS),
        ({"verdict": "illegal", "code": "anything"}, Grade.PASS),
        ({"verdict": "renuncio", "obligation": renuncio.expect["obligation"]}, Grade.FAIL),
        ({"verdict": "ok"}, Grade.FAIL),
    ):
        graded = judge(renuncio, Reply(answer=said), caps)
        assert graded.grade is grade, said
    assert judge(renuncio, Reply(answer={"verdict": "illegal"}), caps).parts == {
        Part.KIND: Grade.PASS,
        Part.LABEL: Grade.NOT_GRADED,
        **({Part.OUTCOME: Grade.NOT_GRADED} if "outcome" in renuncio.expect else {}),
    }
    # the same answer from a table that flags renuncios is wrong
    assert judge(renuncio, Reply(answer={"verdict": "illegal"})).grade is Grade.FAIL


def test_partial_answers_are_not_graded_and_never_fail(published: list[Vector]) -> None:
    renuncio = _first(published, verdict="renuncio")
    illegal = _first(published, verdict="illegal")
    ends = next(v for v in published if v.ask is Ask.VERDICT and "outcome" in v.expect)
    for vector, said, part in (
        (renuncio, {"verdict": "renuncio", "obligation": None}, Part.LABEL),
        (illegal, {"verdict": "illegal"}, Part.LABEL),
        (ends, {"verdict": ends.expect["verdict"]}, Part.OUTCOME),
    ):
        graded = judge(vector, Reply(answer=said))
        assert graded.grade is Grade.PASS and graded.parts[part] is Grade.NOT_GRADED
    wrong = {"verdict": "renuncio", "obligation": "nothing"}
    assert judge(renuncio, Reply(answer=wrong)).parts[Part.LABEL] is Grade.FAIL


_VERDICTS = [v for v in load(PUBLISHED) if v.ask is Ask.VERDICT and "verdict" in v.expect]


@settings(max_examples=200, deadline=None)
@given(
    vector=st.sampled_from(_VERDICTS),
    left_out=st.sets(st.sampled_from(["obligation", "code", "outcome"])),
    null=st.booleans(),
    blocks=st.booleans(),
)
def test_a_part_left_out_is_never_a_failure(
    vector: Vector, left_out: set[str], null: bool, blocks: bool
) -> None:
    """The referee's own answer with any of its optional parts left out (or null) is never a
    failure: each part left out is not graded, every other one passes."""
    said = {k: v for k, v in vector.expect.items() if k != "move"}
    if blocks and said["verdict"] == "renuncio":
        said = {"verdict": "illegal"}
    for name in left_out & set(said):
        if null:
            said[name] = None
        else:
            del said[name]
    caps = Capabilities(renuncio="blocks") if blocks else EVERYTHING
    graded = judge(vector, Reply(answer=said), caps)
    assert graded.grade is Grade.PASS
    assert Grade.FAIL not in graded.parts.values()
    for name, part in (("outcome", Part.OUTCOME), ("obligation", Part.LABEL), ("code", Part.LABEL)):
        if name in left_out and name in vector.expect and part in graded.parts:
            assert graded.parts[part] is Grade.NOT_GRADED


def test_null_legal_moves_are_answered_null_and_a_list_a_list(published: list[Vector]) -> None:
    listed = next(v for v in published if v.expect.get("legal_moves"))
    over = dataclasses.replace(listed, expect={"legal_moves": None})  # a deal over
    for said in ([], {}, "none", 0, False):
        graded = judge(over, Reply(answer={"legal_moves": said}))
        assert graded.grade is Grade.FAIL, said
    assert judge(over, Reply(answer={})).grade is Grade.FAIL  # no field at all
    assert judge(over, Reply(answer={"legal_moves": None})).grade is Grade.PASS
    for said in (None, {}, "moves"):
        assert judge(listed, Reply(answer={"legal_moves": said})).grade is Grade.FAIL
    # the report says what each said, the right way round
    (line,) = explain(judge(over, Reply(answer={"legal_moves": []})), "en")
    assert line == (
        "The referee says null (no player to act: the deal or the match is over); "
        "the engine says a list of 0 moves."
    )


# --- the answer-size cap of an HTTP engine --------------------------------------------------------


@pytest.fixture
def oversized() -> Iterator[str]:
    """A service whose answer is a valid JSON object padded with spaces past the cap: cut at
    the cap, it would still parse."""
    body = json.dumps({"verdict": "ok", "message": "ok"}).encode().ljust(MAX_LINE + 64)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_http_answer_over_the_cap_is_refused_not_cut(
    oversized: str, published: list[Vector]
) -> None:
    vector = next(v for v in published if v.ask is Ask.VERDICT and "outcome" not in v.expect)
    engine = HttpEngine(oversized, timeout=10)
    try:
        reply = engine.ask(vector.question(1))
    finally:
        engine.close()
    assert reply.answer is None and reply.trouble is Trouble.GARBAGE
    assert reply.detail == f"an answer over {MAX_LINE} bytes"


# --- the blocking table, correct ------------------------------------------------------------------


@pytest.mark.slow
def test_the_blocking_table_passes_check_and_play(tmp_path: Path) -> None:
    status, report = run(tmp_path, "check", "--cmd", TABLE)
    assert status == 0 and report["fail"] == 0 and report["pass"] > 150
    assert report["capabilities"]["renuncio"] == "blocks" and report["protocol"] == 3
    assert report["vectors_not_asked"]["rulesets"] > 0 and "replay" in report["untested"]
    for extra in ((), ("--declarations", "moves", "--outcomes")):
        status, report = run(tmp_path, "play", "--cmd", " ".join([TABLE, *extra]),
                             "--games", "300", "--keep-going")  # fmt: skip
        assert status == 0, report["findings"][:1]
        assert report["findings"] == [] and report["games"] == 300
        assert report["rulesets"] == ["tute-2p", "tute-4p"]  # sized to what it declares


#: Each bug of a table, how the table is run, and the one cause play-testing must name.
BUGS = [
    ("montar-trumped", (), "montar · refused · trumped"),
    ("tie-0-2", ("--outcomes",), "last_trick · outcome"),
    ("no-tute", ("--declarations", "moves"), "tute · refused"),
    ("free-discard", (), "fallar · allowed · trumped"),
    ("cante-anyone", ("--declarations", "moves"), "not_on_lead · allowed"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "extra", "cause"), BUGS)
def test_each_bug_is_one_finding_under_its_cause_shrunk_to_one_deal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str, extra: tuple[str, ...], cause: str
) -> None:
    monkeypatch.chdir(ROOT)
    engine = " ".join([TABLE, "--break", bug, *extra])
    status, report = run(tmp_path, "play", "--cmd", engine, "--games", "200", "--keep-going")
    assert status == 1
    (found,) = report["findings"]  # one bug, one finding
    assert found["cause"] == cause and found["game"] < 200
    assert found["said"] is not None and found["deals"] == 1
    assert found["events"] <= found["events_found"]
    assert 0 <= found["shrink_ratio"] <= 1
    # the reproducer, asked again, disagrees for the same cause (and not another)
    vector = Vector.from_line(json.dumps(found["vector"]), "reproducer")
    declared = {k: v for k, v in report["capabilities"].items() if k != "declared"}
    caps = Capabilities().with_values(declared)
    again = judge(vector, Reply(answer=found["said"]), caps)
    assert again.grade is Grade.FAIL and str(cause_of(again, caps)) == cause
    assert "blocks" in report["untested"]


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "extra", "cause"), BUGS)
def test_the_published_set_shows_each_bug_under_its_cause_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str, extra: tuple[str, ...], cause: str
) -> None:
    monkeypatch.chdir(ROOT)
    engine = " ".join([TABLE, "--break", bug, *extra])
    status, report = run(tmp_path, "check", "--cmd", engine)
    assert status == 1 and set(report["smallest_failures"]) == {cause}
    assert {f["cause"] for f in report["failures"]} == {cause}


@pytest.mark.slow
def test_shrinking_never_settles_for_another_disagreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table with two bugs (flags renuncios, so that both show at once): every reproducer,
    asked again, disagrees for the cause it is filed under."""
    monkeypatch.chdir(ROOT)
    broken = f"{REFERENCE} --asks legal_moves,verdict --break montar-trumped"
    status, report = run(tmp_path, "play", "--cmd", broken, "--games", "40", "--keep-going",
                         "--rulesets", "tute-4p")  # fmt: skip
    assert status == 1 and len(report["findings"]) >= 2
    for found in report["findings"]:
        vector = Vector.from_line(json.dumps(found["vector"]), "reproducer")
        again = judge(vector, Reply(answer=found["said"]))
        assert again.grade is Grade.FAIL
        assert str(cause_of(again)) == found["cause"]
        assert found["deals"] == 1


def test_the_blocking_table_is_the_example_of_the_documentation() -> None:
    doc = (ROOT / "docs" / "conformance.md").read_text()
    example = doc.split("<!-- blocking adapter -->\n```python\n", 1)[1].split("```", 1)[0]
    assert example == (ROOT / "tests" / "conformance_blocking.py").read_text()
    table = doc.split("<!-- capabilities -->\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    names = {row.split("|")[1].strip().strip("`") for row in table}
    assert names == set(BLOCKING) == set(Capabilities().to_json())


# --- reports --------------------------------------------------------------------------------------


def test_every_report_ends_with_what_was_not_tested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report = run(tmp_path, "play", "--cmd", TABLE, "--games", "3")
    assert status == 0
    shown = capsys.readouterr().out
    tail = shown[shown.index("Not tested for this engine:") :]
    declined = [name for name in RULESETS if name not in ("tute-2p", "tute-4p")]
    assert ", ".join(declined) in tail
    assert "the engine refuses renuncios" in tail and "makes them itself" in tail
    assert set(report["untested"]) >= {"rulesets", "blocks", "outcomes", "replay"}
    assert set(report["coverage"]) == set(SITUATIONS)
    assert all(set(row) == {"asked", "agreed"} for row in report["coverage"].values())
    assert "Situations (questions asked, agreed):" in shown
    vectors = [v for v in load(PUBLISHED, ["tute-2p"]) if v.ask is Ask.LEGAL_MOVES][:5]
    checked = check(vectors, _Referee(), caps=EVERYTHING)
    assert checked.not_graded() == 0 and not checked.left_out


class _Referee:
    """An engine in this process answering as the referee does."""

    name = "referee"
    restarts = 0

    def ask(self, question: Any) -> Reply:
        from arbiter.conformance.kit.referee_answers import referee_answer

        answer = referee_answer(question["log"], Ask(question["ask"]), question.get("move"))
        return Reply(answer={"id": question["id"], **answer})

    def close(self) -> None:
        pass


def test_protocol_2_and_1_engines_are_asked_as_before(tmp_path: Path) -> None:
    """The shipped adapter declares everything; an engine without capabilities (the reference
    referee, which cannot read the question) is asked as protocol 2, and protocol 1 still has
    no position."""
    status, report = run(tmp_path, "check", "--cmd", ADAPTER, "--rulesets", "tute-2p",
                         "--rules", "obligation:*")  # fmt: skip
    assert status == 0 and report["protocol"] == 3 and report["capabilities"]["declared"]
    for protocol in ("2", "1"):
        status, report = run(tmp_path, "check", "--cmd", REFERENCE, "--rulesets", "tute-2p",
                             "--rules", "obligation:*", "--protocol", protocol)  # fmt: skip
        assert status == 0 and report["protocol"] == int(protocol)
    status, report = run(tmp_path, "check", "--cmd", REFERENCE, "--rulesets", "tute-2p",
                         "--rules", "obligation:*")  # fmt: skip
    assert status == 0 and report["protocol"] == 2 and report["restarts"] == 0
    assert not report["capabilities"]["declared"]
