"""Archives (:mod:`arbiter.archive`): the line format, bounded lines, pieces of files, the
library (``arbiter.score_lines``, ``arbiter.score_file``) and ``arbiter score``.

Every expected line is built here from ``Referee.score(log).scores_dict()`` (the body of
``POST /v1/scores``), not from the archive code; the ways of running (in process, ``--jobs``,
pieces of any size) must give the same bytes.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import os
import pty
import random
import re
import select
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import arbiter
from arbiter.archive import Format
from arbiter.archive.formats import COLUMNS, MAX_SEATS, open_writer
from arbiter.archive.inputs import Input, Kind, expand, plan, read_piece
from arbiter.archive.lines import LineSplitter, split_lines
from arbiter.archive.records import Oversized, ScoringConfig
from arbiter.archive.runner import Job, Sink, run_here, run_task, run_with
from arbiter.archive.summary import Summary
from arbiter.contract import MAX_ID_LENGTH
from arbiter.jsontext import JsonTextError, loads
from arbiter.settings import Settings
from arbiter.simulate import random_deal_cards, random_log
from tests.archive_support import (
    BAD_LINES,
    game_lines,
    lines_of,
    mixed_lines,
    ndjson,
    run_cli,
    write_archive,
)

# --- what a line must be, computed without the archive code ----------------------------------


def expected_line(text: bytes, source: str | int, lang: str = "en") -> dict[str, Any] | None:
    """The line of one input line: None when blank; the error's kind is checked elsewhere."""
    if not text.strip(b" \t\r\n"):
        return None
    try:
        log = loads(text)
    except JsonTextError:
        return {"error": "Not JSON"}
    if len(text) > Settings().max_body_bytes:
        return {"error": "Line too long"}
    if not isinstance(log, dict):
        return {"error": "Not a log"}
    ident = log.get("id", source)
    if "id" in log and not (isinstance(ident, str) and 0 < len(ident) <= MAX_ID_LENGTH):
        return {"error": "Invalid id"}
    try:
        body = arbiter.Referee().score(log).scores_dict(lang)  # type: ignore[arg-type]
    except ValueError:
        return {"id": ident, "source": source, "error": "Invalid log"}
    return {"id": ident, "source": source, **body}


def matches(got: dict[str, Any], want: dict[str, Any] | None) -> bool:
    assert want is not None
    if "error" in want:
        return got.get("error", {}).get("title") == want["error"] and (
            "id" not in want or got["id"] == want["id"]
        )
    return got == want


def expected_lines(lines: list[bytes], name: str | None = None) -> list[dict[str, Any] | None]:
    out = []
    for number, text in enumerate(lines, start=1):
        want = expected_line(text, number if name is None else f"{name}:{number}")
        if want is not None:
            out.append(want)
    return out


# --- lines -------------------------------------------------------------------------------


def _reference_lines(data: bytes, limit: int) -> list[bytes | Oversized]:
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p if len(p) <= limit else Oversized(len(p)) for p in parts]


@given(
    st.lists(st.sampled_from([b"a", b"bb", b"\n", b"{}", b"x" * 9, b"\n\n", b" "]), max_size=40),
    st.integers(1, 12),
    st.data(),
)
def test_lines_are_split_alike_whatever_the_chunks(
    parts: list[bytes], limit: int, data: st.DataObject
) -> None:
    whole = b"".join(parts)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=8)))
    chunks = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]
    assert list(split_lines(chunks, limit)) == _reference_lines(whole, limit)


def test_a_huge_line_is_never_held_in_memory() -> None:
    """A 64 MiB line in 64 KiB chunks: the splitter keeps at most the limit of it."""
    chunk = b"x" * 65536
    got = list(split_lines([b"{}\n", *(chunk for _ in range(1024)), b"\n{}"], 1000))
    assert got == [b"{}", Oversized(65536 * 1024), b"{}"]


@given(
    st.lists(st.binary(min_size=0, max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.integers(1, 64),
)
def test_pieces_of_a_file_hold_each_line_once_in_order(lines: list[bytes], block: int) -> None:
    """Byte ranges of any size, cutting lines anywhere: every line in exactly one piece."""
    data = b"\n".join(lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.ndjson"
        path.write_bytes(data)
        inputs = expand([str(path)]).inputs
        read: list[bytes | Oversized] = []
        for task in plan(inputs, block, 1000, workers_read_gzip=True):
            for piece in task:
                read += list(read_piece(piece, 1000))
    assert read == ([] if not data else _reference_lines(data, 1000))


def test_the_pieces_add_up_to_the_inputs_sizes(tmp_path: Path) -> None:
    """What the progress bar counts: the bytes of the files (compressed, for .gz)."""
    folder = write_archive(tmp_path / "archive", games=300)
    inputs = expand([str(folder)]).inputs
    total = sum(item.size or 0 for item in inputs)
    for workers_read_gzip in (False, True):
        tasks = list(plan(inputs, 20_000, 1 << 20, workers_read_gzip=workers_read_gzip))
        assert len(tasks) > 10
        assert sum(piece.size for task in tasks for piece in task) == total


# --- the library -------------------------------------------------------------------------


def test_score_lines_is_the_scores_body_of_each_line() -> None:
    lines = mixed_lines(40, seed=3)
    got = list(arbiter.score_lines(lines))
    want = expected_lines(lines)
    assert len(got) == len(want) == len(lines) - 2  # the two blank lines
    assert all(matches(g, w) for g, w in zip(got, want, strict=True))
    ids = [g["id"] for g in got]
    assert ids[0] == "game-3-0" and ids[1] == 2  # its own id, else its line number
    assert [g["source"] for g in got][:4] == [1, 2, 3, 5]  # line 4 is blank


def test_every_kind_of_bad_line_is_reported_and_the_run_goes_on() -> None:
    good = game_lines(2, seed=4)
    lines = [good[0], *(bad.text for bad in BAD_LINES), good[1]]
    got = list(arbiter.score_lines(lines, lang="es"))
    assert len(got) == len(BAD_LINES) + 2
    assert got[0]["status"] == got[-1]["status"] == "complete"
    for bad, line in zip(BAD_LINES, got[1:-1], strict=True):
        error = line["error"]
        assert (error["status"], error["title"]) == (bad.status, bad.title), bad.text[:60]
        assert error["errors"][0]["pointer"] == bad.pointer
        assert error["errors"][0]["message"]
        assert set(line) == {"id", "source", "error"}
    assert got[6]["id"] == "ok"  # an id is echoed even when the log is not valid
    assert got[-1]["source"] == len(lines)


def test_messages_follow_the_language() -> None:
    line = next(g for g in game_lines(20, seed=5) if b"renuncio" not in g)
    es = next(arbiter.score_lines([line], lang="es"))
    en = next(arbiter.score_lines([line], lang="en"))
    assert es == expected_line(line, 1, "es") and en == expected_line(line, 1, "en")
    assert es["deals"][0]["outcome"]["message"] != en["deals"][0]["outcome"]["message"]


def test_the_errors_of_a_line_are_bounded() -> None:
    log = orjson.loads(game_lines(1, seed=6)[0])
    log["options"] = {f"option_{n}": n for n in range(500)}  # 500 unknown options
    error = next(arbiter.score_lines([orjson.dumps(log)]))["error"]
    assert len(error["errors"]) == Settings().max_errors
    assert error["errors_omitted"] > 0


def test_score_file_reads_every_kind_of_input(tmp_path: Path) -> None:
    folder = write_archive(tmp_path / "archive", games=60)
    got = list(arbiter.score_file(folder))
    a = (folder / "a.ndjson").read_bytes().split(b"\n")
    b = gzip.decompress((folder / "b.ndjson.gz").read_bytes()).split(b"\n")[:-1]
    want = expected_lines(a, f"{folder}/a.ndjson") + expected_lines(b, f"{folder}/b.ndjson.gz")
    for n in range(5):
        text = (folder / "logs" / f"{n:02}.json").read_bytes() if n < 4 else None
        if text is not None:
            want.append(expected_line(text, f"{folder}/logs/{n:02}.json:1"))
    assert len(got) == len(want) + 1  # and logs/99.json, not JSON
    assert all(matches(g, w) for g, w in zip(got, want, strict=False))
    assert got[-1]["source"] == f"{folder}/logs/99.json:1"
    assert got[-1]["error"]["title"] == "Not JSON"


def test_score_file_equals_score_lines_named(tmp_path: Path) -> None:
    lines = mixed_lines(30, seed=7)
    path = tmp_path / "x.ndjson"
    path.write_bytes(ndjson(lines))
    assert list(arbiter.score_file(path)) == list(arbiter.score_lines(lines, name=str(path)))


def test_score_file_of_a_bad_gzip_file_raises_after_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "cut.ndjson.gz"
    path.write_bytes(gzip.compress(ndjson(game_lines(50, seed=8)))[:-200])
    seen = []
    with pytest.raises(arbiter.archive.library.InputError, match="cut short"):
        seen.extend(arbiter.score_file(path))
    assert seen and all(s["status"] for s in seen)


# --- the ways of running give the same bytes ---------------------------------------------------


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


def _run(inputs: list[Input], fmt: Format, way: str, block: int) -> bytes:
    out = io.BytesIO()
    sink = Sink(inputs, writer=open_writer(fmt, None, out))
    config = ScoringConfig()
    job = Job(inputs, config, fmt, sink, lambda result: None)
    if way == "here":
        run_here(job, block)
    else:  # the workers' path, run_task called here: tasks of any size, in a window
        run_with(
            job,
            lambda task: _Done(run_task(task, config, fmt)),
            3,
            workers_read_gzip=way == "workers-read-gzip",
            block=block,
        )
    sink.close()
    return out.getvalue()


@pytest.mark.parametrize("block", [pytest.param(97, marks=pytest.mark.slow), 4096, 1 << 20])
def test_pieces_and_workers_give_the_bytes_of_one_pass(tmp_path: Path, block: int) -> None:
    folder = write_archive(tmp_path / "archive", games=90)
    inputs = expand([str(folder)]).inputs
    one_pass = b"".join(
        orjson.dumps(line) + b"\n" for line in arbiter.score_file(folder)
    )
    for way in ("here", "workers", "workers-read-gzip"):
        assert _run(inputs, Format.NDJSON, way, block) == one_pass, way


def test_percent_signs_and_quotes_in_names_ids_and_bodies_come_out_as_written(
    tmp_path: Path,
) -> None:
    # an NDJSON piece is written as a %-format whose blanks are the line numbers: every other
    # % of the line (the file's name, the log's id, a player's name) must come out as it was
    folder = tmp_path / 'a "100%d" %s%%\\ folder'
    folder.mkdir()
    lines = []
    for n, line in enumerate(game_lines(6, 5)):
        log = orjson.loads(line)
        log["players"][0] = '50% "p%d"\\'
        if n % 2:
            log["id"] = f"%d %s %% {n}"
        else:
            log.pop("id", None)
        lines.append(orjson.dumps(log))
    (folder / "%d%%.ndjson").write_bytes(b"\n".join(lines) + b"\n\n{not json %d}\n")
    inputs = expand([str(folder)]).inputs
    one_pass = b"".join(orjson.dumps(line) + b"\n" for line in arbiter.score_file(folder))
    assert one_pass.count(b"%d") > 6 and b'\\"100%d\\"' in one_pass
    for way in ("here", "workers"):
        assert _run(inputs, Format.NDJSON, way, 4096) == one_pass, way


# --- the command -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_archive(tmp_path_factory.mktemp("archive") / "games", games=400)


@pytest.mark.slow
def test_cli_writes_the_library_lines(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.ndjson"
    done = run_cli("score", archive, "--jobs", "1", "--out", out)
    assert done.status == 3, done.err  # bad lines come before renuncios
    assert "Traceback" not in done.err and done.err.count("arbiter:") == 0
    assert lines_of(out.read_bytes()) == list(arbiter.score_file(archive))


@pytest.mark.slow
def test_jobs_2_writes_exactly_what_jobs_1_writes(archive: Path, tmp_path: Path) -> None:
    outputs = {}
    for jobs in ("1", "2"):
        done = run_cli("score", archive, archive / "a.ndjson", "--jobs", jobs, "--quiet")
        assert done.status == 3, done.err
        outputs[jobs] = done.out
    assert outputs["1"] == outputs["2"]
    assert outputs["1"].count(b"\n") > 500


@pytest.mark.slow
def test_standard_input(archive: Path) -> None:
    data = (archive / "a.ndjson").read_bytes()
    done = run_cli("score", "-", "--jobs", "2", stdin=data)
    here = list(arbiter.score_lines(data.split(b"\n"), name="stdin"))
    assert lines_of(done.out) == here


@pytest.mark.slow
def test_exit_0_when_every_line_is_clean(tmp_path: Path) -> None:
    path = tmp_path / "clean.ndjson"
    path.write_bytes(ndjson(game_lines(20, seed=9, renuncio_rate=0.0)))
    done = run_cli("score", path, "--jobs", "1")
    assert done.status == 0, done.err
    assert done.out.count(b"\n") == 20 and done.err == ""


def _breach(line: bytes) -> bool:
    scores = arbiter.Referee().score(orjson.loads(line)).scores_dict("en")
    return any(deal["violations"] for deal in scores["deals"])


@pytest.mark.slow
def test_the_exit_status_tells_findings_from_bad_lines(tmp_path: Path) -> None:
    clean = game_lines(3, seed=9, renuncio_rate=0.0)
    renuncio = next(line for line in game_lines(40, seed=9, renuncio_rate=1.0) if _breach(line))
    cases = [(clean, 0), ([*clean, renuncio], 1), ([*clean, b"[]"], 3), ([renuncio, b"[]"], 3)]
    for lines, status in cases:
        path = tmp_path / "games.ndjson"
        path.write_bytes(ndjson(lines))
        done = run_cli("score", path)
        assert (done.status, done.out.count(b"\n")) == (status, len(lines)), lines


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.ndjson"], "cannot read missing.ndjson: no such file or folder"),
        (["EMPTY_DIR"], "holds no archive file"),
        (["x.ndjson", "--format", "parquet"], "--format parquet writes a file"),
        (["x.ndjson", "--out", "x.ndjson"], "is one of the inputs"),
        (["x.ndjson", "--jobs", "0"], "--jobs: must be a whole number from 1"),
        (["x.ndjson", "--format", "xml"], "invalid choice"),
        (["x.ndjson", "--dask", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    ],
)
def test_exit_2_for_bad_arguments(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "x.ndjson").write_bytes(ndjson(game_lines(2, seed=1)))
    (tmp_path / "EMPTY_DIR").mkdir()
    (tmp_path / "EMPTY_DIR" / "notes.txt").write_text("no archive here")
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "score", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"},
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.slow
def test_exit_3_for_unreadable_inputs_and_the_others_are_scored(tmp_path: Path) -> None:
    good = tmp_path / "good.ndjson"
    good.write_bytes(ndjson(game_lines(5, seed=2, renuncio_rate=0.0)))
    not_gzip = tmp_path / "not.ndjson.gz"
    not_gzip.write_bytes(b"plain text, not gzip\n")
    cut = tmp_path / "cut.ndjson.gz"
    cut.write_bytes(gzip.compress(ndjson(game_lines(30, seed=3)))[:-100])
    figures = tmp_path / "summary.json"
    for jobs in ("1", "2"):
        done = run_cli("score", not_gzip, cut, good, "--jobs", jobs, "--summary-json", figures)
        assert done.status == 3, done.err
        assert f"{not_gzip}: not gzip data" in done.err
        assert f"{cut}: the gzip data is cut short" in done.err
        assert orjson.loads(figures.read_bytes())["problems"] == [
            f"{not_gzip}: not gzip data",
            f"{cut}: the gzip data is cut short",
        ]
        assert "Traceback" not in done.err
        sources = [line["source"] for line in lines_of(done.out)]
        assert sources[-5:] == [f"{good}:{n}" for n in range(1, 6)]
        assert any(s.startswith(f"{cut}:") for s in sources)


@pytest.mark.slow
def test_a_reader_that_stops_early_ends_the_output_quietly(archive: Path) -> None:
    command = [sys.executable, "-m", "arbiter.cli", "score", str(archive), "--jobs", "2"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
    assert "Traceback" not in err and "Broken pipe" not in err, err
    assert status in (0, 1)


def rulesets_of(path: Path) -> dict[str, Any]:
    """The ruleset of every line of an NDJSON file that names one, by source."""
    rulesets = {}
    for number, text in enumerate(path.read_bytes().split(b"\n"), start=1):
        with contextlib.suppress(orjson.JSONDecodeError, AttributeError):
            rulesets[f"{path}:{number}"] = orjson.loads(text).get("ruleset")
    return rulesets


# --- summary -----------------------------------------------------------------------------


def _summary_of(lines: list[dict[str, Any]], rulesets: dict[str, str]) -> dict[str, Any]:
    """The figures, counted here from the lines (and each game's ruleset)."""
    statuses: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    obligations: Counter[str] = Counter()
    by_ruleset: dict[str, Counter[str]] = {}
    illegal: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    games_by_ruleset: Counter[str] = Counter()
    deals = breaches = 0
    for line in lines:
        if "error" in line:
            statuses["error"] += 1
            errors[line["error"]["title"]] += 1
            continue
        statuses[line["status"]] += 1
        games_by_ruleset[rulesets[line["source"]]] += 1
        deals += len(line["deals"])
        found = 0
        for deal in line["deals"]:
            outcomes[deal["outcome"]["reason"] if deal["outcome"] else "unfinished"] += 1
            for v in deal["violations"]:
                obligations[v["obligation"]] += 1
                by_ruleset.setdefault(rulesets[line["source"]], Counter())[v["obligation"]] += 1
                found += 1
        if line["illegal"]:
            illegal[line["illegal"]["code"]] += 1
        breaches += bool(found or line["illegal"])
    return {
        "games": len(lines),
        "games_with_breach": breaches,
        "deals": deals,
        "games_by_status": dict(statuses),
        "games_by_ruleset": dict(games_by_ruleset),
        "outcomes": dict(outcomes),
        "renuncios": {
            "total": sum(obligations.values()),
            "by_obligation": dict(obligations),
            "by_ruleset": {k: dict(v) for k, v in by_ruleset.items()},
            "per_game_by_ruleset": {
                k: round(sum(v.values()) / games_by_ruleset[k], 4) for k, v in by_ruleset.items()
            },
        },
        "illegal": dict(illegal),
        "errors": dict(errors),
    }


@pytest.mark.slow
def test_summary_json_has_the_figures_of_the_lines(archive: Path, tmp_path: Path) -> None:
    figures_file = tmp_path / "summary.json"
    path = archive / "a.ndjson"
    done = run_cli("score", path, "--jobs", "2", "--summary-json", figures_file, "--summary")
    lines = lines_of(done.out)
    rulesets = rulesets_of(path)
    figures = orjson.loads(figures_file.read_bytes())
    assert figures.pop("seconds") >= 0
    assert figures.pop("skipped") == []  # nothing the arguments stand for went unread
    assert figures.pop("games_per_second") >= 0 and figures.pop("continued") == 0
    assert (figures.pop("finished"), figures.pop("stopped"), figures.pop("problems")) == (
        True,
        None,
        [],
    )
    assert figures == _summary_of(lines, rulesets)
    assert figures["renuncios"]["total"] > 0 and figures["errors"]
    for text in ("games by status", "outcome reasons", "by obligation", "tute-4p", "errors"):
        assert text in done.err, done.err
    assert "Invalid id" in done.err and "Line too long" in done.err


def test_summaries_add_up() -> None:
    from arbiter.archive.records import Scorer, ScoringConfig

    scorer = Scorer.of(ScoringConfig())
    scored = [scorer.score(n, line) for n, line in enumerate(mixed_lines(30, seed=12))]
    whole, halves = Summary(), [Summary(), Summary()]
    for n, item in enumerate(s for s in scored if s is not None):
        whole.add(item)
        halves[n % 2].add(item)
    halves[0].merge(halves[1])
    assert halves[0].to_dict() == whole.to_dict()


class _BodyFails:
    """A referee whose adjudication cannot make its body (a fault of ours, never seen)."""

    class Replay:
        def scores_dict(self, lang: str) -> dict[str, Any]:
            raise RuntimeError("no body")

    def score(self, log: object) -> Replay:
        return self.Replay()


@pytest.mark.parametrize("bodies", [True, False])
def test_a_body_that_cannot_be_made_is_that_lines_internal_error(bodies: bool) -> None:
    """Where bodies are written (NDJSON, the library, batches), a fault in making one is the
    line's error, found as it is scored, and the run goes on; a table never makes one."""
    from arbiter.archive.records import Scorer, ScoringConfig

    scorer = Scorer(_BodyFails(), ScoringConfig(), bodies=bodies)  # type: ignore[arg-type]
    line = orjson.dumps(random_log("tute-4p", random.Random(5)))
    scored = scorer.score(0, line)
    assert scored is not None
    if bodies:
        assert scored.replay is None
        assert scored.body["error"]["title"] == "Internal error"
    else:
        assert scored.error is None and scored.made is None


# --- the progress bar ----------------------------------------------------------------------


def _stderr_on_a_terminal(args: list[str]) -> tuple[int, str]:
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**os.environ, "COLUMNS": "160", "TERM": "xterm"},
    ) as proc:
        os.close(follower)
        seen = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            if not ready:
                break
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not data:
                break
            seen += data
        status = proc.wait(timeout=60)
    os.close(leader)
    return status, seen.decode(errors="replace")


@pytest.mark.slow
def test_a_progress_bar_on_a_terminal(archive: Path) -> None:
    status, shown = _stderr_on_a_terminal(["score", str(archive), "--jobs", "1"])
    assert status == 3
    assert "games/s" in shown and "errors" in shown and "100%" in shown, shown[-2000:]
    status, shown = _stderr_on_a_terminal(["score", str(archive), "--quiet"])
    assert "games/s" not in shown


@pytest.mark.slow
def test_no_progress_bar_when_standard_error_is_not_a_terminal(archive: Path) -> None:
    done = run_cli("score", archive / "a.ndjson")
    assert "games/s" not in done.err and done.err == ""


@pytest.mark.slow
def test_progress_lines_when_standard_error_is_not_a_terminal(archive: Path) -> None:
    # a line after every piece (the least interval), each counting more games
    done = run_cli("score", archive / "a.ndjson", "--jobs", "1", "--progress", "1e-9")
    said = done.err.splitlines()
    pattern = r"arbiter: ([\d,]+) games, [\d,]+ games/s, ([\d,]+) errors \((\d+) %\)"
    found = [re.fullmatch(pattern, line) for line in said]
    assert len(said) >= 2 and all(found), said
    games = [int(m.group(1).replace(",", "")) for m in found if m]
    assert games == sorted(games) and games[-1] == len(lines_of(done.out))
    assert [m.group(3) for m in found if m][-1] == "100"
    assert run_cli("score", archive / "a.ndjson", "--progress", "0").status == 2


# --- tables ------------------------------------------------------------------------------


def _rows_of(line: dict[str, Any], rulesets: dict[str, str]) -> list[list[str]]:
    """The CSV rows of one line, computed here."""
    ident, source = line["id"], line["source"]
    file, number = source.rsplit(":", 1)
    where = [ident, source, file, number]
    nothing = [""] * MAX_SEATS
    if "error" in line:
        text = f"{line['error']['title']}: {line['error']['errors'][0]['message']}"[:300]
        return [[*where, "error", "", "", "", *nothing, "", "", "", "", text]]
    rows = []
    illegal = line["illegal"]
    for index, deal in enumerate(line["deals"]):
        totals = {s["seat"]: str(s["total"]) for s in deal["scores"]}
        outcome = deal["outcome"]
        rows.append(
            [
                *where,
                line["status"],
                rulesets[source],
                str(len(line["match"]["standings"])),
                str(index),
                *(totals.get(seat, "") for seat in range(MAX_SEATS)),
                orjson.dumps(outcome["winners"]).decode() if outcome else "",
                outcome["reason"] if outcome else "",
                str(len(deal["violations"])),
                illegal["code"] if illegal and illegal["deal"] == index else "",
                "",
            ]
        )
    return rows


@pytest.mark.slow
def test_csv_has_one_row_per_deal(archive: Path, tmp_path: Path) -> None:
    path = archive / "a.ndjson"
    csv_file = tmp_path / "scores.csv"
    assert run_cli("score", path, "--format", "csv", "--out", csv_file).status == 3
    rulesets = rulesets_of(path)
    with csv_file.open(newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert tuple(table[0]) == COLUMNS
    want = [row for line in arbiter.score_file(path) for row in _rows_of(line, rulesets)]
    assert table[1:] == want


@pytest.mark.slow
def test_parquet_is_the_csv_table(archive: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq  # the archive extra, installed with the test extras
    csv_file, parquet_file = tmp_path / "s.csv", tmp_path / "s.parquet"
    for fmt, out in (("csv", csv_file), ("parquet", parquet_file)):
        assert run_cli("score", archive, "--format", fmt, "--out", out, "--jobs", "2").status == 3
    with csv_file.open(newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    parquet = pq.read_table(parquet_file).to_pylist()
    assert len(parquet) == len(table) > 1000

    def cell(value: Any) -> str:
        if isinstance(value, list):
            return orjson.dumps(value).decode()
        return "" if value is None else str(value)

    assert [{k: cell(v) for k, v in row.items()} for row in parquet] == table


@pytest.mark.slow
def test_out_dir_writes_one_part_per_input(archive: Path, tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    done = run_cli("score", archive, "--out", f"{parts}/", "--jobs", "2")
    assert done.status == 3, done.err
    written = sorted(p.relative_to(parts).as_posix() for p in parts.rglob("*") if p.is_file())
    logs = [f"logs/{n:02}.scores.ndjson" for n in (0, 1, 2, 3, 99)]
    assert written == sorted(["_manifest.json", "a.scores.ndjson", "b.scores.ndjson", *logs])
    whole = list(arbiter.score_file(archive))
    joined = []
    for name in ["a.scores.ndjson", "b.scores.ndjson", *logs]:
        joined += lines_of((parts / name).read_bytes())
    assert joined == whole


def test_two_inputs_that_would_write_one_part_are_refused(tmp_path: Path) -> None:
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "games.ndjson").write_bytes(ndjson(game_lines(1, seed=1)))
    done = run_cli(
        "score", tmp_path / "x/games.ndjson", tmp_path / "y/games.ndjson", "--out", f"{tmp_path}/o/"
    )
    assert done.status == 2 and "would both be written to games.scores.ndjson" in done.err


def test_inputs_expand_in_path_order(tmp_path: Path) -> None:
    for name in ("b/2.ndjson", "a.json", "b/10.jsonl.gz", "c.txt", "b/1.ndjson"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    found = [(i.relative, i.kind) for i in expand([str(tmp_path)]).inputs]
    assert found == [
        ("a.json", Kind.JSON),
        ("b/1.ndjson", Kind.NDJSON),
        ("b/10.jsonl.gz", Kind.GZIP),
        ("b/2.ndjson", Kind.NDJSON),
    ]


# --- tests that catch the archive's deliberate bugs (issue 22) ----------------------------------


def _blank_padded(copies: int) -> tuple[list[bytes], int]:
    """One game, then three blank lines, ``copies`` times; and the bytes of one such group: a
    piece of that many bytes ends with the blank lines (a byte range, and a block read here)."""
    game = game_lines(1, seed=61, renuncio_rate=0.0)[0]
    group = [game, b"", b"  ", b""]
    return group * copies, len(ndjson(group))


@pytest.mark.parametrize("suffix", [".ndjson", ".ndjson.gz"])
@pytest.mark.parametrize("way", ["here", "workers", "workers-read-gzip"])
def test_sources_count_the_blank_lines_a_piece_ends_with(
    tmp_path: Path, suffix: str, way: str
) -> None:
    lines, group = _blank_padded(9)
    data = ndjson(lines)
    path = tmp_path / f"games{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    want = [f"{path}:{n}" for n, text in enumerate(lines, 1) if text.strip()]
    inputs = expand([str(path)]).inputs
    for block in (group, 2 * group, group + 1):
        got = [line["source"] for line in lines_of(_run(inputs, Format.NDJSON, way, block))]
        assert got == want, (block, got[:3])


@pytest.mark.slow
def test_standard_input_counts_the_blank_lines_a_block_ends_with() -> None:
    game = game_lines(1, seed=61, renuncio_rate=0.0)[0]
    # Blocks of standard input (2 MiB, read here) end after the line that fills them: nearly
    # all the bytes are in the blank lines, so that those end the blocks.
    lines = [game, b" " * 50_000, b""] * 100
    done = run_cli("score", "-", "--jobs", "2", "--quiet", stdin=ndjson(lines))
    assert done.status == 0, done.err
    want = [f"stdin:{n}" for n, text in enumerate(lines, 1) if text.strip()]
    assert [line["source"] for line in lines_of(done.out)] == want


def test_a_bare_gz_file_is_read_as_gzip(tmp_path: Path) -> None:
    lines = game_lines(5, seed=62)
    path = tmp_path / "games.gz"
    path.write_bytes(gzip.compress(ndjson(lines)))
    (item,) = expand([str(path)]).inputs
    assert item.kind is Kind.GZIP
    got = list(arbiter.score_file(path))
    assert got == list(arbiter.score_lines(lines, name=str(path)))
    assert all("error" not in line for line in got)


def _decided_then_one_more(ruleset: str) -> dict[str, Any]:
    """A match played to its end, then one deal more: illegal ``match_over`` at that deal."""
    log = random_log(ruleset, random.Random(63), deals=60)
    assert arbiter.replay(log).to_dict()["match"]["over"]
    extra = random_deal_cards(ruleset, len(log["players"]), 0, random.Random(64))
    return {**log, "deals": [*log["deals"], extra]}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_row_of_a_deal_after_a_decided_match(tmp_path: Path, fmt: str) -> None:
    logs = [_decided_then_one_more(r) for r in ("tute-2p", "tute-gana-pierde")]
    source = tmp_path / "games.ndjson"
    source.write_bytes(ndjson([orjson.dumps(log) for log in logs]))
    inputs = expand([str(source)]).inputs
    out = tmp_path / f"scores.{fmt}"
    sink = Sink(inputs, writer=open_writer(Format(fmt), out))
    run_here(Job(inputs, ScoringConfig(), Format(fmt), sink, lambda result: None))
    sink.close()
    if fmt == "csv":
        with out.open(newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
    else:
        import pyarrow.parquet as pq  # the archive extra, installed with the test extras

        table = pq.read_table(out).to_pylist()
    for n, log in enumerate(logs, 1):
        rows = [row for row in table if row["source"] == f"{source}:{n}"]
        played = len(log["deals"]) - 1
        assert [int(row["deal"]) for row in rows] == list(range(played + 1))
        last = rows[-1]
        assert last["status"] == "invalid" and last["ruleset"] == log["ruleset"]
        assert last["illegal"] == "match_over"
        assert all(last[f"total_{seat}"] in ("", None) for seat in range(MAX_SEATS))
        assert last["winners"] in ("", None) and last["reason"] in ("", None)
        assert int(last["renuncios"]) == 0 and last["error"] in ("", None)
        assert all(row["illegal"] in ("", None) for row in rows[:-1])


@given(
    st.lists(st.sampled_from([b"a", b"bb", b"\n", b"{}", b"x" * 9, b"\n\n", b" "]), max_size=40),
    st.integers(1, 12),
    st.integers(1, 10),
)
def test_a_splitter_asked_for_at_most_n_lines_gives_the_first_n(
    parts: list[bytes], limit: int, most: int
) -> None:
    chunk = b"".join(parts)
    got = LineSplitter(limit).feed(chunk, most)
    assert got == _reference_lines(chunk, limit)[: min(most, chunk.count(b"\n"))]


@pytest.mark.parametrize("base", [0, 41])
def test_lines_numbered_as_scored_are_the_template_filled(base: int) -> None:
    """``--jobs 1`` numbers a piece's lines as they are scored (:class:`NumberedNdjsonLines`);
    they are the bytes of the template the workers send, filled in: ``%`` in names, ids and
    bodies included."""
    from arbiter.archive.records import Scorer
    from arbiter.archive.runner import NdjsonLines, NumberedLines, NumberedNdjsonLines, PieceResult

    scorer = Scorer.of(ScoringConfig())
    texts = [*game_lines(8, 3), b"{not json %d}", b'{"id": "%s %d %%", "x": 1}']
    texts[1] = orjson.dumps({**orjson.loads(texts[1]), "id": "50%d %%"})
    name = 'in "%d" 100%.ndjson'
    template, numbered = NdjsonLines(name), NumberedNdjsonLines(name, base)
    result = PieceResult(0, len(texts), 0)
    for index, text in enumerate(texts):
        scored = scorer.score(index, text)
        assert scored is not None
        template.add(result, scored)
        numbered.add(result, scored)
    lines = template.numbered()
    assert isinstance(lines, NumberedLines)
    assert numbered.numbered() == lines.filled(base)
    first = orjson.loads(lines.filled(base).split(b"\n")[1])
    assert first["source"] == f"{name}:{base + 2}" and first["id"] == "50%d %%"


_BLOCKS = """
import resource, sys
from arbiter.archive.runner import keep_piece_blocks

if sys.argv[1] == "keep" and not keep_piece_blocks():
    print("unsupported")
    raise SystemExit
for _ in range(2):  # the heap grown once
    blocks = [b"x" * (3 << 20) for _ in range(4)]
    del blocks
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):  # a piece's blocks, then the next piece's
    blocks = [b"x" * (3 << 20) for _ in range(4)]
    del blocks
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_pieces_blocks_are_taken_again_from_the_heap_not_mapped_anew() -> None:
    """With workers (:func:`keep_piece_blocks`), blocks of a few megabytes freed after one
    piece serve the next one: no page faults for each piece's blocks."""
    faults = {}
    for way in ("keep", "default"):
        done = subprocess.run(
            [sys.executable, "-c", _BLOCKS, way], capture_output=True, check=True, text=True
        )
        if done.stdout.strip() == "unsupported":
            pytest.skip("a C library without mallopt")
        faults[way] = int(done.stdout)
    assert faults["default"] > 20 * 4 * 700  # 3 MB blocks mapped and touched each time
    assert faults["keep"] < 1000, faults


def test_a_pieces_lines_are_freed_once_written() -> None:
    """A piece's lines (megabytes) go as soon as nothing refers to them, not at a collection
    of cycles: --jobs 1's memory stays flat (a bound method kept on the object, a cycle, took
    it from 40 MB to 200 MB on a million games)."""
    import gc
    import weakref

    from arbiter.archive.runner import NdjsonLines, NumberedNdjsonLines

    gc.disable()
    try:
        for make in (lambda: NdjsonLines("a.ndjson"), lambda: NumberedNdjsonLines("a.ndjson", 7)):
            lines = make()
            gone = weakref.ref(lines)
            lines.numbered()
            del lines
            assert gone() is None
    finally:
        gc.enable()
