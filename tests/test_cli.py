"""The ``arbiter`` command: replay and validate, exit codes, languages, bad input."""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import re
import socket
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter import i18n
from arbiter.cli import main
from arbiter.commands import console
from arbiter.words import CATALOGUE
from tests import reference
from tests.api_support import ROOT
from tests.archive_support import lines_of, run_cli
from tests.gunicorn_support import free_port
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
    assert "Match (deals won): ana 0, bea 0, carlos 1" in out
    assert "RENUNCIO" not in out
    assert out.rstrip().endswith("Status: complete")


def test_replay_table_of_a_match_with_a_renuncio(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", MATCH_2P)
    assert code == 1
    assert out.count("Deal ") == 5
    line = next(line for line in out.splitlines() if "RENUNCIO" in line)
    assert "(event 31)" in line  # the 31st event: 30 in the JSON, which counts from 0
    assert "Renuncio by bea in trick 15: played the ace of bastos while holding copas" in line
    assert "had to follow suit (ace of copas)" in line and "[correct: 1C]" in line
    assert "outcome: bea's renuncio decided the deal: ana won it. (renuncio)" in out
    assert "outcome: bea won the deal with a tute. (tute)" in out
    assert "exchange: " in out and "cante: bea 20 in" in out
    assert "Match (deals won): ana 2, bea 3" in out
    assert "Match over — winners: bea" in out
    assert "Status: complete" in out


def test_replay_table_in_progress_says_who_acts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", IN_PROGRESS)
    assert code == 0
    assert "Status: in progress" in out
    assert "Next: dani — play 3B, play 10B" in out
    assert "outcome:" not in out


def test_replay_table_of_an_illegal_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", ILLEGAL)
    assert code == 1
    assert "ILLEGAL at deal 1, event 9: bea cannot play now: it is ana's turn. (out_of_turn)" in out
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
    assert out.startswith("vale: dani puede jugar la sota de bastos.")


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


# --- every word follows --lang -------------------------------------------------------------------

#: Words of the English table that a Spanish one must not show.
ENGLISH_WORDS = ("Deal ", "dealer", "trump", "leader", "winner", "scores:", "(event ", "cards ",
                 "outcome:", "Match", "Status:", "Next:", "ILLEGAL", "sides:", "play ")  # fmt: skip


def test_the_table_in_spanish_has_no_english_word(capsys: pytest.CaptureFixture[str]) -> None:
    for path in (MATCH_2P, IN_PROGRESS, ILLEGAL, EXAMPLES / "tute-4p-renuncio.json"):
        _, out, _ = run(capsys, "replay", path, "--lang", "es")
        for word in ENGLISH_WORDS:
            assert word not in out, (path.name, word)
    _, out, _ = run(capsys, "replay", MATCH_2P, "--lang", "es")
    assert "Mano 2 — reparte ana, triunfo " in out
    header = next(line for line in out.splitlines() if "sale" in line)
    assert header.split() == ["#", "sale", "jugadas", "gana", "ptos", "robos"]
    assert "  puntos: ana " in out and "(cartas " in out and "bazas " in out
    assert "RENUNCIO (evento 31): Renuncio de bea en la baza 15" in out and "[correctas: 1C]" in out
    assert "resultado: Mano para bea, por tute. (tute)" in out
    assert "Partida (manos ganadas): ana 2, bea 3" in out
    assert "Partida terminada — ganan: bea" in out and "Estado: terminada" in out
    _, out, _ = run(capsys, "replay", IN_PROGRESS, "--lang", "es")
    assert "Turno: dani — jugar 3B, jugar 10B" in out and "Estado: en curso" in out
    _, out, _ = run(capsys, "replay", ILLEGAL, "--lang", "es")
    assert "ILEGAL en la mano 1, evento 9: bea no puede jugar ahora" in out
    assert "Estado: no válida" in out


def test_the_verdict_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(3, "4O"), "--lang", "es")
    assert out.splitlines()[0].startswith("renuncio: Renuncio de dani en la baza 4")
    assert out.splitlines()[1] == "jugadas posibles: jugar 3B, jugar 10B"
    _, out, _ = run(capsys, "validate", IN_PROGRESS, "--move", move(0, "4O"), "--lang", "es")
    assert out.startswith("ilegal: ana no puede jugar ahora")


def test_the_summary_of_score_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", EXAMPLES, "--jobs", "1", "--summary", "--lang", "es")
    assert code == 1 and out.count("\n") == len(list(EXAMPLES.glob("*.json")))
    for said in ("Archivo puntuado", "partidas por estado", "motivos del resultado",
                 "por obligación", "eventos ilegales", "errores", "ninguno"):  # fmt: skip
        assert said in err, said
    for english in ("games by status", "outcome reasons", "by obligation", "illegal events"):
        assert english not in err, english


def test_every_key_of_the_catalogue_has_both_languages_with_the_same_fields() -> None:
    catalogue = CATALOGUE  # the one catalogue: every key, both languages
    assert set(catalogue) == set(i18n.LANGS)
    english, spanish = catalogue["en"], catalogue["es"]
    assert set(english) == set(spanish)
    for key in english:
        fields = [{f for _, f, _, _ in string.Formatter().parse(t) if f} for t in (
            english[key], spanish[key])]  # fmt: skip
        assert fields[0] == fields[1], key
    assert any(key.startswith("cli.") for key in english)
    assert i18n.text("es", "cli.replay.status", status="x") == "Estado: x"


def test_the_words_of_the_command_are_in_the_catalogue() -> None:
    """Every ``words(lang, "…")`` key written in arbiter/commands/ is in the catalogue (the
    keys made of pieces are checked by the tests that print them)."""
    written = set()
    for path in (ROOT / "arbiter" / "commands").glob("*.py"):
        written |= set(re.findall(r"""words\(\s*\w+,\s*"([a-z_.]+)\"""", path.read_text()))
    assert written, "no words found"
    missing = sorted(k for k in written if f"cli.{k}" not in CATALOGUE["en"])
    assert missing == []


# --- counting from 1 where people read ------------------------------------------------------------


def test_the_numbers_people_read_count_from_one(capsys: pytest.CaptureFixture[str]) -> None:
    body = arbiter.replay(load(MATCH_2P)).to_dict()
    _, out, _ = run(capsys, "replay", MATCH_2P)
    for number, deal in enumerate(body["deals"], start=1):
        assert f"Deal {number} — " in out
        for v in deal["violations"]:
            assert f"RENUNCIO (event {v['event'] + 1}): " in out
        for c in deal["cantes"]:
            assert f"in {c['suit']} (trick {c['trick'] + 1})" in out
    illegal = arbiter.replay(load(ILLEGAL)).to_dict()["illegal"]
    _, out, _ = run(capsys, "replay", ILLEGAL)
    assert f"ILLEGAL at deal {illegal['deal'] + 1}, event {illegal['event'] + 1}: " in out


def test_an_illegal_deal_after_the_match_names_no_event(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = load(MATCH_2P)
    log["deals"].append({**log["deals"][0], "events": []})  # a deal after the match was won
    code, out, _ = run(capsys, "replay", write(tmp_path, log))
    assert code == 1
    assert f"ILLEGAL at deal {len(log['deals'])}: The match is already over" in out
    assert "event None" not in out


# --- the match line and the sides --------------------------------------------------------------

#: docs/rules.md (as tests/reference.py holds it): the standings' column each ruleset's match is
#: played on, and how the line names it ("deals won").
FIELDS = {name: column for name, (column, _) in reference.MATCH.items()}


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_the_match_line_shows_what_the_match_counts(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    log = load(EXAMPLES / name)
    field = FIELDS[log["ruleset"]]
    counted = field.replace("_", " ")
    _, out, _ = run(capsys, "replay", EXAMPLES / name)
    (line,) = [line for line in out.splitlines() if line.startswith("Match (")]
    standings = arbiter.replay(log).to_dict()["match"]["standings"]
    shown = ", ".join(f"{s['player']} {s[field]}" for s in standings)
    assert line == f"Match ({counted}): {shown}"


def test_tute_4p_shows_the_sides_totals(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "tute-4p-renuncio.json"
    body = arbiter.replay(load(path)).to_dict()
    names = [s["player"] for s in body["match"]["standings"]]
    _, out, _ = run(capsys, "replay", path)
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("sides: ")]
    assert len(lines) == len(body["deals"])
    for line, deal in zip(lines, body["deals"], strict=True):
        for side in deal["sides"]:
            assert f"{'+'.join(names[s] for s in side['seats'])} {side['total']}" in line
    _, out, _ = run(capsys, "replay", MATCH_2P)
    assert "sides:" not in out


# --- validate on a finished deal -----------------------------------------------------------------


def test_validate_on_a_finished_deal_says_it_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", CLEAN_3P, "--move", move(0, "1O"))
    assert code == 1
    assert out.splitlines() == [
        "illegal: The deal is already over: ana cannot play the ace of oros.",
        "legal moves: none — the deal is over; the next one begins with a new deal in the log",
    ]
    _, out, _ = run(capsys, "validate", MATCH_2P, "--move", move(0, "1O"), "--lang", "es")
    assert out.splitlines()[1] == "jugadas posibles: ninguna — la partida ha terminado"


# --- --version and the README ---------------------------------------------------------------------


def test_version_is_the_line_the_readme_shows(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    printed = capsys.readouterr().out.strip()
    assert printed == f"arbiter {arbiter.__version__} ({arbiter.BUILD} engine)"
    readme = (ROOT / "README.md").read_text()
    shown = readme.split(".venv/bin/arbiter --version\n", 1)[1].splitlines()[0]
    assert shown == f"# arbiter {arbiter.__version__} (compiled engine)"


# --- files that cannot be written ----------------------------------------------------------------


def test_an_output_in_a_missing_folder_is_a_sentence_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no" / "such"
    (tmp_path / "a-file").write_text("")
    cases = [
        (["score", CLEAN_3P, "--quiet", "--out", missing / "x.ndjson"],
         f"cannot write {missing / 'x.ndjson'}: the folder {missing} does not exist"),
        (["score", CLEAN_3P, "--quiet", "--summary-json", missing / "s.json"],
         f"cannot write {missing / 's.json'}: the folder {missing} does not exist"),
        (["conformance", "check", "--cmd", "true", "--json", missing / "r.json"],
         f"cannot write {missing / 'r.json'}: the folder {missing} does not exist"),
        (["score", CLEAN_3P, "--quiet", "--out", tmp_path / "a-file" / "x.ndjson"],
         f"cannot write {tmp_path / 'a-file' / 'x.ndjson'}: {tmp_path / 'a-file'} is not a folder"),
    ]  # fmt: skip
    for argv, said in cases:
        code, out, err = run(capsys, *argv)
        assert (code, out, err) == (2, "", f"arbiter: {said}\n"), argv
    code, _, err = run(capsys, "score", CLEAN_3P, "--out", missing / "x", "--lang", "es")
    assert err == f"arbiter: no se puede escribir {missing / 'x'}: la carpeta {missing} no existe\n"


# --- score: a file that holds no game -------------------------------------------------------------


def test_an_empty_json_file_is_an_error_line_an_empty_ndjson_file_is_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "blank.json").write_bytes(b" \n\t\n")
    (tmp_path / "none.ndjson").write_bytes(b"\n\n")
    done = run_cli("score", tmp_path / "empty.json", tmp_path / "blank.json",
                   tmp_path / "none.ndjson", "--jobs", "1", "--quiet")  # fmt: skip
    assert done.status == 3, done.err  # lines not scored
    lines = lines_of(done.out)
    assert [line["source"] for line in lines] == [
        f"{tmp_path / n}.json:1" for n in ("empty", "blank")
    ]
    for line in lines:
        assert line["error"]["title"] == "Not JSON"
        assert "a .json file holds one game log" in line["error"]["errors"][0]["message"]
    replayed = run_cli("replay", tmp_path / "empty.json")
    assert replayed.status == 2 and "empty.json is not JSON" in replayed.err
    done = run_cli("score", tmp_path / "none.ndjson", "--quiet")
    assert (done.status, done.out, done.err) == (0, b"", "")


# --- conformance: an engine that is not there -----------------------------------------------------


def test_an_engine_that_cannot_start_or_be_reached_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-engine"
    code, out, err = run(capsys, "conformance", "check", "--cmd", missing, "--plain")
    assert (code, out) == (2, "")
    assert err == f"arbiter: cannot start the engine {missing}: No such file or directory\n"
    url = f"http://127.0.0.1:{free_port()}"
    code, out, err = run(capsys, "conformance", "check", "--url", url, "--lang", "es")
    assert (code, out) == (2, "")
    assert err.startswith(f"arbiter: no se puede contactar con el motor en {url}: ")
    assert "Connection refused" in err and err.count("\n") == 1


def test_an_engine_given_up_on_is_said_in_the_plain_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dies = f"{sys.executable} -c 'import sys; print(\"cannot run\", file=sys.stderr); sys.exit(3)'"
    code, out, _ = run(capsys, "conformance", "check", "--cmd", dies, "--rules", "draws", "--plain")
    assert code == 1
    (line,) = [line for line in out.splitlines() if "gave up" in line]
    assert line.startswith("The checker gave up on the engine after 3 failures to answer in a row")
    assert "5 vectors were not asked" in line  # 8 vectors of draws: 3 asked
    assert "status 3" in line and "cannot run" in line
    code, out, _ = run(capsys, "conformance", "check", "--cmd", dies, "--rules", "draws",
                       "--lang", "es")  # fmt: skip
    assert "El comprobador dejó de preguntar al motor tras 3 fallos seguidos" in out


def test_an_engine_s_last_words_are_kept_when_its_standard_error_ends_after_it_exits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine exits at once; what it says on standard error comes after its exit, from a
    process it started (as a wrapper script's child may): the report still carries those
    words. Before, the tail was read as soon as the engine had exited, which lost them whenever
    the reader thread was behind (the plain-report test above failed so on a loaded machine)."""
    script = tmp_path / "late.py"
    script.write_text(
        "import os, sys, time\n"
        "parent = os.getpid()\n"
        "if os.fork() == 0:\n"
        "    os.close(1)  # the answers end when the engine exits; standard error goes on\n"
        "    while os.getppid() == parent:  # speaks only once the engine has exited\n"
        "        time.sleep(0.01)\n"
        "    os.write(2, b'cannot run: said late\\n')\n"
        "    os._exit(0)\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "conformance", "check", "--cmd", f"{sys.executable} {script}",
                       "--rules", "draws", "--plain")  # fmt: skip
    assert code == 1
    (line,) = [line for line in out.splitlines() if "gave up" in line]
    assert "status 3" in line and "cannot run: said late" in line


# --- serve: values refused before gunicorn starts -------------------------------------------------


@pytest.fixture
def no_exec(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """``os.execv`` recorded instead of run (it would replace the tests' process)."""
    called: list[list[str]] = []

    def execv(path: str, argv: list[str]) -> None:
        called.append(argv)
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", execv)
    return called


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--workers", "0"], "--workers must be 1 or more, not 0"),
        (["--workers", "-3"], "--workers must be 1 or more, not -3"),
        (["--port", "0"], "--port must be from 1 to 65535, not 0"),
        (["--port", "65536"], "--port must be from 1 to 65535, not 65536"),
        (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1: Cannot assign requested address"),
        (["--port", "70000", "--lang", "es"], "--port debe ir de 1 a 65535, no 70000"),
    ],
)
def test_serve_refuses_bad_values_in_one_line(
    capsys: pytest.CaptureFixture[str], no_exec: list[list[str]], args: list[str], said: str
) -> None:
    code, out, err = run(capsys, "serve", *args)
    assert (code, out, err) == (2, "", f"arbiter: {said}\n")
    assert no_exec == []


def test_serve_on_a_busy_port_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], no_exec: list[list[str]]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, "serve", "--port", port)
    assert (code, out) == (2, "")
    assert err == (
        f"arbiter: port {port} of 127.0.0.1 is already in use (another server?): "
        "choose another with --port\n"
    )
    assert no_exec == []
    with pytest.raises(SystemExit):
        main(["serve", "--port", str(port), "--workers", "1"])  # free again: gunicorn is run
    (argv,) = no_exec
    assert argv[1:5] == ["-m", "gunicorn", "--bind", f"127.0.0.1:{port}"]
    assert argv[-3:] == ["--workers", "1", "arbiter.wsgi:app"]


def test_serve_help_gives_each_option_its_meaning_and_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--host HOST the address to listen on" in shown and "(default: 127.0.0.1)" in shown
    assert "--port PORT the TCP port, 1 to 65535 (default: 8000)" in shown
    assert "--workers N worker processes, 1 or more (default: ARBITER_WORKERS" in shown


# --- install hints -------------------------------------------------------------------------------


def test_install_hints_fit_a_checkout_or_an_installed_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    assert console.install_hint("dask") == "make install EXTRAS=dask"  # the Makefile's target
    assert "EXTRAS ?=" in (ROOT / "Makefile").read_text()
    monkeypatch.chdir(tmp_path)
    assert console.install_hint("dask").endswith(f" -m pip install -e '{ROOT}[dask]'")
    monkeypatch.setattr(console, "PACKAGE_ROOT", tmp_path)  # a wheel's: no pyproject.toml
    assert console.install_hint("dask") == "pip install 'tute-arbiter[dask]'"


def test_a_missing_extra_is_named_with_its_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a)
    )
    out_file = tmp_path / "x.parquet"
    code, out, err = run(capsys, "score", CLEAN_3P, "--format", "parquet", "--out", out_file)
    assert (code, out) == (2, "")
    hint = console.install_hint("archive")
    assert err == f"arbiter: --format parquet needs pyarrow: install it with {hint}\n"
    assert not out_file.exists()


# --- the parser is cheap, the commands are peers --------------------------------------------------


def test_building_the_parser_imports_no_service_archive_or_kit() -> None:
    """``arbiter serve`` builds the parser too: its gunicorn master must find nothing of the
    service (Redis, the crypto) imported before the workers patch with gevent."""
    probe = (
        "import sys; from arbiter.cli import parser; parser(); print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    loaded = set(done.stdout.split())
    heavy = {"arbiter.service", "arbiter.archive.runner", "arbiter.archive.records",
             "arbiter.conformance", "redis", "cryptography", "flask", "gevent", "rich"}  # fmt: skip
    assert heavy.isdisjoint(loaded), heavy & loaded


def test_no_module_leans_on_a_command() -> None:
    """The commands import the package; nothing of the package imports a command or the
    parser, and a command imports no other command but the shared console."""
    for path in (ROOT / "arbiter").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        imported = _imports(path)
        if module.startswith("arbiter.commands."):
            peers = {m for m in imported if m.startswith("arbiter.commands.")}
            assert all(m.startswith("arbiter.commands.console") for m in peers), module
        elif module not in ("arbiter.cli", "arbiter.commands.__init__"):
            assert not {m for m in imported if m.startswith(("arbiter.cli", "arbiter.commands"))}, (
                module
            )


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found
