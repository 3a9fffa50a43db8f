"""The tables of ``arbiter score`` (:mod:`arbiter.archive.formats`): the table of seats, the
same typed schema in every file, the Parquet file metadata, the columns as docs/archives.md
lists them, and its pandas and DuckDB examples run on real outputs.

The expected rows are computed here from ``Referee.score(log).scores_dict()`` and the logs,
not from the archive code.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arbiter
from arbiter.archive import Format, Table
from arbiter.archive.formats import DEALS, SEATS, arrow_columns, open_writer, schema
from arbiter.archive.formats import payload as formats_payload
from arbiter.archive.inputs import expand
from arbiter.archive.records import ScoringConfig
from arbiter.archive.runner import Job, Sink, run_here
from arbiter.contract import MAX_ID_LENGTH
from arbiter.engine.obligations import Obligation
from tests.archive_support import MAX_LINE, game_lines, mixed_lines, ndjson, run_cli, write_archive

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "archives.md"


def _table(path: Path, fmt: Format, table: Table, out: Path) -> None:
    inputs = expand([str(path)]).inputs
    sink = Sink(inputs, writer=open_writer(fmt, out, table=table))
    run_here(Job(inputs, ScoringConfig(), fmt, sink, lambda result: None, table=table))
    sink.close()


def _seats_of(text: bytes, source: str) -> list[dict[str, Any]]:
    """The rows of one line in the table of seats, computed here."""
    try:
        log = orjson.loads(text)
        body = arbiter.Referee().score(log).scores_dict("en")
    except (orjson.JSONDecodeError, ValueError, TypeError, AttributeError):
        return []
    ident = log.get("id", source)
    if not isinstance(ident, str) or not 0 < len(ident) <= MAX_ID_LENGTH or len(text) > MAX_LINE:
        return []  # a line not scored
    file, line = source.rsplit(":", 1)
    out = []
    for index, deal in enumerate(body["deals"]):
        outcome = deal["outcome"]
        for score in deal["scores"]:
            seat = score["seat"]
            mine = [v["obligation"] for v in deal["violations"] if v["seat"] == seat]
            row = {
                "id": ident, "source": source, "file": file, "line": int(line),
                "status": body["status"], "ruleset": log["ruleset"],
                "players": len(log["players"]), "deal": index, "seat": seat,
                "player": log["players"][seat], "total": score["total"],
                "tricks": score["tricks"], "renuncios": len(mine),
                **{f"renuncios_{o.value}": mine.count(o.value) for o in Obligation},
                "won": None if outcome is None else seat in outcome["winners"],
                "reason": None if outcome is None else outcome["reason"],
            }  # fmt: skip
            out.append(row)
    return out


def test_the_table_of_seats_is_each_seat_of_each_deal(tmp_path: Path) -> None:
    import pyarrow.parquet as pq  # the archive extra, installed with the test extras

    lines = mixed_lines(120, seed=21)
    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(lines))
    out = tmp_path / "seats.parquet"
    _table(path, Format.PARQUET, Table.SEATS, out)
    got = pq.read_table(out).to_pylist()
    want = [row for n, text in enumerate(lines, 1) for row in _seats_of(text, f"{path}:{n}")]
    assert got == want
    assert sum(row["renuncios"] for row in got) > 0  # the games have some


def test_every_file_has_the_same_typed_schema(tmp_path: Path) -> None:
    import pandas as pd  # the analysis extra, installed with the test extras
    import pyarrow.parquet as pq

    two_players = [line for line in game_lines(40, seed=3) if b'"tute-2p"' in line]
    plain = tmp_path / "plain.ndjson"  # no error, no illegal event, one winner a deal
    plain.write_bytes(ndjson(two_players))
    mixed = tmp_path / "mixed.ndjson"
    mixed.write_bytes(ndjson(mixed_lines(60, seed=4)))
    for table in Table:
        schemas = []
        for path in (plain, mixed):
            out = tmp_path / f"{path.stem}.{table.value}.parquet"
            _table(path, Format.PARQUET, table, out)
            schemas.append(pq.read_schema(out))
        assert schemas[0] == schemas[1] == schema(table)
        assert schemas[0].equals(schemas[1], check_metadata=True)
    types = _csv_types()
    frames = []
    for path in (plain, mixed):
        out = tmp_path / f"{path.stem}.csv"
        _table(path, Format.CSV, Table.DEALS, out)
        frames.append(pd.read_csv(out, dtype=types, keep_default_na=False, na_values=[""]))
        assert all(cell.startswith("[") for cell in frames[-1]["winners"].dropna())
    assert dict(frames[0].dtypes) == dict(frames[1].dtypes)
    assert frames[0]["illegal"].isna().all() and frames[0]["error"].isna().all()


def _csv_types() -> dict[str, str]:
    """The dtype map docs/archives.md gives for reading a CSV output."""
    block = next(b for b in _python_blocks() if "read_csv" in b)
    scope: dict[str, Any] = {}
    exec(block.split("deals = pd.read_csv")[0], scope)  # the map, as the page writes it
    types: dict[str, str] = scope["types"]
    assert set(types) == {column.name for column in DEALS}
    return types


def test_parquet_files_say_their_tool_table_and_columns(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(game_lines(5, seed=1)))
    for table, columns in ((Table.DEALS, DEALS), (Table.SEATS, SEATS)):
        out = tmp_path / f"{table.value}.parquet"
        _table(path, Format.PARQUET, table, out)
        about = json.loads(pq.read_schema(out).metadata[b"tute-arbiter"])
        assert about["tool"] == "tute-arbiter" and about["version"] == arbiter.__version__
        assert about["table"] == table.value
        assert [(c["name"], c["type"]) for c in about["columns"]] == [
            (c.name, c.kind) for c in columns
        ]


def test_the_page_lists_every_column_with_its_type_and_nulls() -> None:
    text = DOC.read_text()
    for heading, columns in (("--table deals", DEALS), ("--table seats", SEATS)):
        section = text.split(f"(`{heading}`)\n")[1].split("###")[0]
        rows = re.findall(r"^\| `(\w+)` \| ([\w<>]+) \| (\w+) \| (.+) \|$", section, re.M)
        assert [(name, kind) for name, kind, _, _ in rows] == [(c.name, c.kind) for c in columns]
        for name, _, null, about in rows:
            assert null == ("never" if name in ("id", "source", "line") else "yes"), name
            assert about == next(c.about for c in columns if c.name == name)


def _printed(block: str) -> str:
    """What a block of the page prints when run."""
    shown = io.StringIO()
    exec(block, {"print": lambda *a: print(*a, file=shown)})
    return shown.getvalue()


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_a_table_of_seats_needs_a_table_format(tmp_path: Path) -> None:
    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(game_lines(2, seed=1)))
    done = run_cli("score", path, "--table", "seats")
    assert (done.status, done.out) == (2, b"")
    assert done.err == "arbiter: --table seats is for --format csv or parquet\n"


@pytest.mark.slow
def test_the_pages_examples_answer_on_real_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    archive = write_archive(tmp_path / "archive", games=300)
    monkeypatch.chdir(tmp_path)
    for table, out in (("seats", "seats/"), ("deals", "deals/")):
        done = run_cli("score", archive, "--format", "parquet", "--table", table, "--out", out,
                       "--quiet", "--jobs", "1")  # fmt: skip
        assert done.status == 3, done.err  # the archive holds bad lines
    done = run_cli("score", archive / "a.ndjson", "--format", "csv", "--out", "scores.csv",
                   "--quiet", "--summary-json", "summary.json")  # fmt: skip
    figures = orjson.loads(Path("summary.json").read_bytes())
    seats = pd.read_parquet("seats/")
    printed = []
    for block in _python_blocks():
        if "hashlib" in block:  # the manifest check: on the folder of seats
            block = block.replace('pathlib.Path("scores")', 'pathlib.Path("seats")')
        printed.append(_printed(block))
    assert Path("by-ruleset").is_dir() and any(Path("by-ruleset").rglob("*.parquet"))
    top = seats.groupby("player")["renuncios"].sum().sort_values(ascending=False)
    assert str(int(top.iloc[0])) in printed[1] and str(top.index[0]) in printed[1]
    assert "points" in printed[2]
    renuncios = figures["renuncios"]["total"]
    csv_only = pd.read_csv("scores.csv", keep_default_na=False, na_values=[""])
    assert int(csv_only["renuncios"].sum()) == renuncios


#: Runs ``arbiter score`` in this process (its arguments after ``--``), then says which of
#: pandas and pyarrow it imported.
_IMPORTED = """
import sys
from arbiter.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(name for name in ("pandas", "pyarrow") if name in sys.modules))
"""


@pytest.mark.parametrize(("jobs", "table"), [("1", "deals"), ("2", "seats")])
def test_parquet_output_does_not_import_pandas(tmp_path: Path, jobs: str, table: str) -> None:
    """pyarrow.array() imports pandas (some 50 MB) when it is installed, to look for pandas
    values; the Parquet writer does without it (every kind of column)."""
    pytest.importorskip("pandas")  # installed, or there would be nothing to show
    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(mixed_lines(30, seed=41)))
    out = tmp_path / "scores.parquet"
    args = ["score", str(path), "--format", "parquet", "--out", str(out), "--quiet"]
    args += ["--jobs", jobs, "--table", table]
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED, *args], capture_output=True, check=False, timeout=180
    )
    assert done.stdout.decode().split() == ["pyarrow"], done.stderr.decode()
    import pyarrow.parquet as pq

    assert pq.read_table(out).num_rows >= 30  # it wrote the rows


_TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ['\n{"id":1}', "}\n{", '"', "\\", "\u2028"]
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            _TEXT.filter(bool),
            st.lists(st.tuples(_TEXT, st.none() | st.integers(-(2**31), 2**31 - 1)), max_size=3),
        ),
        max_size=8,
    )
)
def test_parquet_rows_come_back_as_written(
    tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[str, list[tuple[str, Any]]]]
) -> None:
    """Each line's head (id, source, file, line) is put in front of each of its rows, and the
    rows go to Arrow as columns made from buffers: whatever their text holds (newlines,
    braces, quotes, characters of several bytes), every row comes back with its own head and
    values."""
    out = tmp_path_factory.mktemp("rows") / "rows.parquet"
    writer = open_writer(Format.PARQUET, out, table=Table.SEATS)
    want = []
    for number, (ident, seats) in enumerate(lines, start=1):
        source = f"in\n{{put}}.ndjson:{number}"
        rows = []
        for player, total in seats:
            values: dict[str, Any] = dict.fromkeys(c.name for c in SEATS)
            where = {"id": ident, "source": source, "file": "in\n{put}.ndjson", "line": number}
            values |= where | {"player": player, "total": total, "seat": 1, "won": True}
            rows.append(tuple(values[c.name] for c in SEATS[4:]))
            want.append(values)
        writer.write(ident, source, rows)
    writer.close()
    import pyarrow.parquet as pq

    assert pq.read_table(out).to_pylist() == want


def test_a_group_read_in_parts_writes_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Parquet writer turns a group's rows into columns a few thousand at a time (memory
    holds the group as columns, not as Python values): the file is the one a group turned
    into columns at once gives, byte for byte: no row lost, doubled or moved where the parts
    meet (lines of several rows straddle them), and the same row groups. (Written without
    making each column one chunk, a real run's file of 200,000 games differed in its
    ``source`` column: Arrow gives up a column's dictionary at another row; these groups are
    too small to show it.)"""
    from arbiter.archive import formats
    from arbiter.archive.records import Scorer

    scorer = Scorer.of(ScoringConfig())
    payloads = []
    for index, text in enumerate(game_lines(40, seed=44)):
        scored = scorer.score(index, text)
        assert scored is not None
        payloads.append((scored.given_id, formats.payload(Format.PARQUET, scored)))
    folder = "archives/2024/"
    files = {}
    for read_rows in (formats.PARQUET_BATCH_ROWS, 10**9):  # in parts; at once
        monkeypatch.setattr(formats, "PARQUET_BATCH_ROWS", read_rows)
        files[read_rows] = tmp_path / f"{read_rows}.parquet"
        writer = open_writer(Format.PARQUET, files[read_rows])
        for line in range(1, 36_001):
            given_id, data = payloads[line % len(payloads)]
            writer.write(given_id, f"{folder}day-{line % 7}.ndjson:{line}", data)
        writer.close()
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(files[10**9]).metadata
    assert meta.num_row_groups == 2 and meta.num_rows > formats.PARQUET_ROWS
    assert files[formats.PARQUET_BATCH_ROWS].read_bytes() == files[10**9].read_bytes()


_SEAT_LISTS = st.none() | st.lists(st.integers(0, 4), max_size=5).map(tuple)
_COLUMN_VALUES = {
    "string": st.none() | _TEXT,
    "int64": st.none() | st.integers(-(2**53), 2**53),
    "int32": st.none() | st.integers(-(2**31), 2**31 - 1),
    "int8": st.none() | st.integers(-128, 127),
    "bool": st.none() | st.booleans(),
    "list<int8>": _SEAT_LISTS,
}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_columns_made_from_buffers_are_what_pyarrow_array_makes(data: st.DataObject) -> None:
    """The writer's columns, made from buffers (no pandas imported), hold what
    ``pyarrow.array`` of the same values and type holds: nulls where the values are None
    (some, none, or all of them), text of one byte a character or more, empty lists, and
    numbers at the ends of their type."""
    import pyarrow as pa

    from arbiter.archive.formats import arrow_types

    kinds = list(_COLUMN_VALUES)
    count = data.draw(st.integers(1, 40))
    found = [tuple(data.draw(_COLUMN_VALUES[kind]) for kind in kinds) for _ in range(count)]
    if data.draw(st.booleans()):  # a column of nulls only
        blank = data.draw(st.integers(0, len(kinds) - 1))
        found = [(*row[:blank], None, *row[blank + 1 :]) for row in found]
    made_columns = arrow_columns(kinds, found)
    for kind, made, values in zip(kinds, made_columns, zip(*found, strict=True), strict=True):
        want = pa.array(values, type=arrow_types()[kind])
        made.validate(full=True)
        listed = [list(value) if isinstance(value, tuple) else value for value in values]
        assert made.equals(want) and made.to_pylist() == listed, kind


def test_csv_cells_are_written_as_the_table_says() -> None:
    """The CSV writer takes the cells as the payload made them: a line of a list of lines (its
    source a number) has no file, an empty cell; ``winners`` is its JSON text, ``won`` JSON's
    word, and no value an empty cell."""
    from arbiter.archive.formats import CsvWriter
    from arbiter.archive.records import Scorer

    text = game_lines(2, seed=3)[1]  # tute-4p: two winners
    scored = Scorer.of(ScoringConfig()).score(0, text)
    assert scored is not None
    deals, seats = io.BytesIO(), io.BytesIO()
    for table, out in ((Table.DEALS, deals), (Table.SEATS, seats)):
        writer = CsvWriter(out, owned=False, header=False, table=table)
        writer.write(None, 7, formats_payload(Format.CSV, scored, table))
        writer.close()
    deal = next(csv.reader(io.StringIO(deals.getvalue().decode())))
    outcome = scored.body["deals"][0]["outcome"]
    assert deal[:4] == ["7", "7", "", "7"] and deal[-2:] == ["", ""]  # no illegal, no error
    assert deal[13] == orjson.dumps(outcome["winners"]).decode()
    won = [row[-2] for row in csv.reader(io.StringIO(seats.getvalue().decode())) if row[7] == "0"]
    assert won == [("true" if s in outcome["winners"] else "false") for s in range(len(won))]


def _deal_rows_of(body: dict[str, Any], ruleset: str) -> list[tuple[Any, ...]]:
    """The rows of one game in the table of deals, computed here from its body."""
    players = len(body["match"]["standings"])
    illegal = body["illegal"]
    out = []
    for index, deal in enumerate(body["deals"]):
        outcome = deal["outcome"]
        totals = [score["total"] for score in deal["scores"]]
        out.append((
            body["status"], ruleset, players, index, *totals, *[None] * (5 - players),
            None if outcome is None else tuple(outcome["winners"]),
            None if outcome is None else outcome["reason"], len(deal["violations"]),
            illegal["code"] if illegal and illegal["deal"] == index else None, None,
        ))  # fmt: skip
    if illegal and illegal["deal"] >= len(out):
        out.append((body["status"], ruleset, players, illegal["deal"], *[None] * 7, 0,
                    illegal["code"], None))  # fmt: skip
    return out


def _hard_logs() -> list[bytes]:
    """Games of every ruleset and number of players, with renuncios, unfinished deals, and
    illegal events: on a deal, and on a deal given after the match's end."""
    import random

    from arbiter.simulate import random_log

    rng = random.Random(29)
    combos = [("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4), ("tute-cabron", 3)]
    combos += [("tute-gana-pierde", players) for players in (3, 4, 5)]
    logs = []
    for n in range(70):
        ruleset, players = combos[n % len(combos)]
        log = random_log(
            ruleset, rng, players=players, deals=1 + n % 5, renuncio_rate=0.05,
            finish_last=n % 3 != 0,
        )  # fmt: skip
        if n % 4 == 1 and n % 3:  # a finished last deal again: past the match's end, or not
            log["deals"].append(log["deals"][-1])
        elif n % 4 == 3 and log["deals"][-1]["events"]:  # its last event twice: illegal
            log["deals"][-1]["events"].append(log["deals"][-1]["events"][-1])
        logs.append(orjson.dumps(log))
    return logs


def test_rows_are_read_from_the_adjudication_without_making_the_body() -> None:
    """The rows of both tables, read from the engine's adjudication, are those its body
    says, for every ruleset and number of players; neither the rows nor the summary make the
    body (its messages cost as much as the rows), which is made when asked for and is the
    body of ``POST /v1/scores``."""
    from arbiter.archive import formats
    from arbiter.archive.records import Scorer
    from arbiter.archive.summary import Summary

    scorer, summary = Scorer.of(ScoringConfig(lang="es"), bodies=False), Summary()
    codes = set()
    for n, text in enumerate(_hard_logs()):
        scored = scorer.score(n, text)
        assert scored is not None and scored.replay is not None
        deals, seats = formats.rows(scored), formats.seat_rows(scored)
        summary.add(scored)
        assert scored.made is None  # not made yet
        log = orjson.loads(text)
        body = arbiter.Referee().score(log).scores_dict("es")
        assert scored.body == body
        assert deals == _deal_rows_of(body, log["ruleset"])
        source = f"in.ndjson:{n + 1}"
        assert seats == [tuple(row.values())[4:] for row in _seats_of(text, source)]
        illegal = body["illegal"]
        codes.add(None if illegal is None else illegal["deal"] < len(body["deals"]))
    assert codes == {None, True, False}  # none; on a deal; on a deal past the match's end
    assert summary.to_dict()["renuncios"]["total"] > 0


def test_the_sink_gives_a_rows_file_and_line_with_its_source(tmp_path: Path) -> None:
    """A table's ``file`` and ``line`` come from the sink (not parsed back out of the
    source): the file's name as given, colons included, and the line's number, in pieces
    after the first too."""
    from arbiter.archive.formats import where

    folder = tmp_path / "a:b"
    folder.mkdir()
    path = folder / "c:1.ndjson"
    path.write_bytes(b"\n".join(mixed_lines(30, 3)) + b"\n")
    inputs = expand([str(path)]).inputs
    out = io.BytesIO()
    sink = Sink(inputs, writer=open_writer(Format.CSV, None, out))
    run_here(Job(inputs, ScoringConfig(), Format.CSV, sink, lambda result: None), block=512)
    sink.close()
    rows = list(csv.DictReader(io.StringIO(out.getvalue().decode())))
    assert len({row["line"] for row in rows}) > 30 and int(rows[-1]["line"]) > 30
    for row in rows:
        assert (row["file"], int(row["line"])) == where(row["source"])
        assert row["file"] == inputs[0].name
