"""The ``arbiter`` command: replay and validate, exit codes, languages, bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.cli import main
from tests.hand_built import play

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MATCH_2P = EXAMPLES / "tute-2p-match.json"
CLEAN_3P = EXAMPLES / "tute-3p.json"
IN_PROGRESS = EXAMPLES / "tute-4p-in-progress.json"
ILLEGAL = EXAMPLES / "tute-2p-illegal.json"

#: exit status of ``arbiter replay`` for each example: 1 when it holds a renuncio or is invalid.
REPLAY_EXIT = {
    "tute-2p-match.json": 1,
    "tute-4p-renuncio.json": 1,
    "tute-2p-illegal.json": 1,
}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def write(tmp_path: Path, log: object, name: str = "log.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def move(seat: int, card: str) -> str:
    return json.dumps(play(seat, card))


# --- replay: the readable table ----------------------------------------------------------------


def test_replay_table_of_a_clean_deal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "replay", CLEAN_3P)
    assert code == 0 and err == ""
    assert "Deal 1 — dealer carlos, trump C" in out
    header = next(line for line in out.splitlines() if "leader" in line)
    for column in ("#", "leader", "plays", "winner", "pts"):
        assert column in header
    rows = [line for line in out.splitlines() if line.strip()[:2].strip().isdigit()]
    assert len(rows) == 12  # one row per trick
    first = load(CLEAN_3P)["deals"][0]["events"][:3]
    names = load(CLEAN_3P)["players"]
    assert ", ".join(f"{names[e['seat']]} {e['card']}" for e in first) in rows[0]
    # declared after the trick just completed: the 2nd (6 plays before it) and the 4th
    events = load(CLEAN_3P)["deals"][0]["events"]
    assert [j for j, e in enumerate(events) if e["type"] == "sing"] == [6, 13]
    assert "cante: carlos 40 in C (trick 2)" in out
    assert "cante: bea 20 in O (trick 4)" in out
    assert "scores: ana 9 (cards 9, cantes 0, last 0, tricks 2)" in out
    assert "carlos 134 (cards 84, cantes 40, last 10, tricks 8)" in out
    assert "outcome: carlos won the deal on points. (points)" in out
    assert "Match: ana: deals 0" in out and "carlos: deals 1" in out
    assert "RENUNCIO" not in out
    assert out.rstrip().endswith("Status: complete")


def test_replay_table_of_a_match_with_a_renuncio(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", MATCH_2P)
    assert code == 1
    assert out.count("Deal ") == 5
    line = next(line for line in out.splitlines() if "RENUNCIO" in line)
    assert "(event 30)" in line
    assert "Renuncio by bea in trick 15: played the ace of bastos while holding copas" in line
    assert "had to follow suit (ace of copas)" in line and "[correct: 1C]" in line
    assert "outcome: bea's renuncio decided the deal: ana won it. (renuncio)" in out
    assert "outcome: bea won the deal with a tute. (tute)" in out
    assert "exchange: " in out and "cante: bea 20 in" in out
    assert "Match: ana: deals 2, loser points 0, tokens 0, bea: deals 3" in out
    assert "Match over — winners: bea" in out
    assert "Status: complete" in out


def test_replay_table_in_progress_says_who_acts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", IN_PROGRESS)
    assert code == 0
    assert "Status: in_progress" in out
    assert "Next: dani — play 3B, play 10B" in out
    assert "outcome:" not in out


def test_replay_table_of_an_illegal_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", ILLEGAL)
    assert code == 1
    assert "ILLEGAL at deal 1, event 8: bea cannot play now: it is ana's turn. (out_of_turn)" in out
    assert "Status: invalid" in out


# --- replay --json -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_replay_json_is_the_api_body(capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = EXAMPLES / name
    code, out, err = run(capsys, "replay", path, "--json")
    assert code == REPLAY_EXIT.get(name, 0)
    assert err == ""
    assert json.loads(out) == arbiter.replay(load(path)).to_dict()


def test_replay_json_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", MATCH_2P, "--json", "--lang", "es")
    assert code == 1
    body = json.loads(out)
    assert body == arbiter.replay(load(MATCH_2P)).to_dict("es")
    (v,) = body["deals"][2]["violations"]
    assert v["message"].startswith("Renuncio de bea en la baza 15: jugó el as de bastos")
    assert "jugó" in out  # printed as UTF-8, not \u-escaped


def test_replay_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(CLEAN_3P.read_text(encoding="utf-8")))
    code, out, _ = run(capsys, "replay", "-", "--json")
    assert code == 0
    assert json.loads(out) == arbiter.replay(load(CLEAN_3P)).to_dict()


# --- --lang es -----------------------------------------------------------------------------------


def test_replay_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", MATCH_2P, "--lang", "es")
    assert code == 1
    assert (
        "Renuncio de bea en la baza 15: jugó el as de bastos teniendo copas; "
        "debía asistir (as de copas)"
    ) in out
    assert "El renuncio de bea decide la mano a favor de ana." in out
    assert "Mano para bea, por tute." in out
    assert "Mano para bea, a los puntos." in out
    assert "Renuncio by" not in out and "won the deal" not in out


def test_illegal_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "replay", ILLEGAL, "--lang", "es")
    assert "bea no puede jugar ahora: es el turno de ana." in out


def test_unknown_language_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(CLEAN_3P), "--lang", "fr"])
    assert exc.value.code == 2
    assert "--lang" in capsys.readouterr().err


# --- bad input: exit 2, a message naming the problem, no traceback -------------------------------


def assert_bad_input(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("arbiter: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    assert_bad_input(*run(capsys, "replay", missing), str(missing), "No such file")


def test_directory_instead_of_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_bad_input(*run(capsys, "replay", tmp_path), "cannot read")


def test_file_that_is_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text("ruleset: tute-2p\n", encoding="utf-8")
    assert_bad_input(*run(capsys, "replay", path), "is not JSON")


def test_file_that_is_not_utf8(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"ruleset": "tute-2p", "players": ["Íñigo"]}'.encode("latin-1"))
    assert_bad_input(*run(capsys, "replay", path))


def test_deeply_nested_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert_bad_input(*run(capsys, "replay", path))


def test_log_that_is_not_an_object(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_bad_input(*run(capsys, "replay", write(tmp_path, [1, 2])), "JSON object")


def test_unknown_ruleset(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(CLEAN_3P) | {"ruleset": "tute-7p"}
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/ruleset", "tute-7p")


def test_bad_card_code_in_a_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(CLEAN_3P)
    log["deals"][0]["hands"][1][3] = "13O"
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/deals/0/hands/1/3", "13O")


def test_bad_card_code_in_an_event(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(MATCH_2P)
    log["deals"][1]["events"][4]["card"] = "ZZ"
    path = write(tmp_path, log)
    assert_bad_input(*run(capsys, "replay", path), "/deals/1/events/4/card", "ZZ")


def test_card_twice_in_a_deck(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(MATCH_2P)
    deck = log["deals"][1]["deck"]
    deck[5] = deck[4]
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/deals/1/deck/5", deck[4])


def test_bad_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(MATCH_2P) | {"options": {"match_target": 4}}
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/options/match_target")


def test_wrong_number_of_players(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(CLEAN_3P) | {"players": ["ana", "bea"]}
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/players")


def test_unfinished_deal_before_the_last(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = load(MATCH_2P)
    del log["deals"][0]["events"][-1]
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/deals/0", "unfinished")


def test_bad_event_type(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load(CLEAN_3P)
    log["deals"][0]["events"][2] = {"type": "pass", "seat": 2}
    assert_bad_input(*run(capsys, "replay", write(tmp_path, log)), "/deals/0/events/2/type")


def test_missing_subcommand_argument(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(IN_PROGRESS)])  # --move is required
    assert exc.value.code == 2
    assert "--move" in capsys.readouterr().err


# --- validate ------------------------------------------------------------------------------------


def test_validate_an_ok_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "3B"))
    assert code == 0
    assert out.splitlines() == [
        "ok: dani may play the three of bastos.",
        "legal moves: play 3B, play 10B",
    ]


def test_validate_a_renuncio(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "4O"))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("renuncio: Renuncio by dani in trick 4: played the four of oros")
    assert "holding bastos" in first and "(three of bastos or jack of bastos)" in first


def test_validate_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "4O"), "--json")
    assert code == 1
    verdict = json.loads(out)
    assert verdict == arbiter.validate(load(IN_PROGRESS), json.loads(move(3, "4O"))).to_dict()
    assert (verdict["legal"], verdict["verdict"]) == (False, "renuncio")
    assert (verdict["obligation"], verdict["code"]) == ("asistir", None)
    assert verdict["correct"] == ["3B", "10B"]
    assert [m["card"] for m in verdict["legal_moves"]] == ["3B", "10B"]


def test_validate_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "4O"), "--lang", "es")
    assert code == 1
    assert "Renuncio de dani en la baza 4: jugó el cuatro de oros teniendo bastos" in out
    assert "debía asistir (tres de bastos o sota de bastos)" in out
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "10b"), "--lang", "es")
    assert code == 0
    assert out.startswith("ok: dani puede jugar la sota de bastos.")


def test_validate_an_illegal_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(0, "4O"), "--json")
    assert code == 1
    verdict = json.loads(out)
    assert (verdict["verdict"], verdict["code"]) == ("illegal", "out_of_turn")


def test_validate_after_the_deal_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", CLEAN_3P, "--move", move(0, "1O"), "--json")
    assert code == 1
    assert json.loads(out)["code"] == "deal_over"


def test_validate_a_move_that_is_not_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(*run(capsys, "validate", IN_PROGRESS, "--move", "{play 3B}"), "--move")


def test_validate_a_move_that_is_not_an_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(*run(capsys, "validate", IN_PROGRESS, "--move", "[]"), "/move")


def test_validate_a_move_with_a_bad_seat(capsys: pytest.CaptureFixture[str]) -> None:
    bad = json.dumps({"type": "play", "seat": 9, "card": "3B"})
    assert_bad_input(*run(capsys, "validate", IN_PROGRESS, "--move", bad), "/move/seat")


def test_validate_a_move_with_a_bad_card(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "13B"))
    assert_bad_input(code, out, err, "13B")


def test_validate_a_bad_card_points_at_move_card(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "13B"))
    assert_bad_input(code, out, err, "at /move/card: ")


def test_validate_on_an_invalid_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", ILLEGAL, "--move", move(0, "1O"))
    assert_bad_input(code, out, err, "/deals/0/events/8", "out_of_turn")


# --- the installed entry point -------------------------------------------------------------------


def test_entry_point_runs_as_a_program() -> None:
    script = Path(sys.executable).with_name("arbiter")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "arbiter.cli"]
    done = subprocess.run(
        [*command, "replay", str(MATCH_2P), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert json.loads(done.stdout) == arbiter.replay(load(MATCH_2P)).to_dict()


def test_module_entry_point_bad_input() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "replay", str(EXAMPLES / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr
