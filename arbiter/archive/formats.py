"""Output formats of an archive run: NDJSON (the line format), and CSV and Parquet tables for
analysis tools (pandas, polars, DuckDB): one row per deal (:attr:`Table.DEALS`), or one row per
seat of each deal (:attr:`Table.SEATS`: who played, their total, their renuncios by
obligation, whether they won).

A worker encodes each scored line into a *payload* (:func:`payload`): the JSON of its body for
NDJSON, its rows (without the columns of where the line was) for CSV, and those rows as JSON
objects, one a line, for Parquet (bytes: what a worker sends back costs one copy, not the
pickling of every cell); the process that writes adds ``id``, ``source``, ``file`` and
``line``, which only it knows (:class:`Writer`); an archive run's NDJSON lines come a piece
at a time, numbered (:meth:`NdjsonWriter.write_lines`). The Parquet writer turns its rows into
columns with Arrow's own JSON reader, typed by the schema: no Python object per cell, and
none of ``pyarrow.array``'s checks for pandas values, which import pandas (some 50 MB) when it
is installed.
The columns are declared once (:data:`DEALS`, :data:`SEATS`: name, type, meaning): the CSV
header, the Parquet schema and its file metadata come from them, and docs/archives.md lists
them (a test compares). Every file has the same schema whatever it holds: a column is typed
even when all its values are null, and ``winners`` is a list of seats (in CSV, its JSON text:
``[0,2]``). Parquet needs pyarrow (the optional extra ``archive``).
"""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, Protocol

import orjson

from arbiter.archive import Format, Table
from arbiter.archive.records import Scored, Source, encode_body, stamp
from arbiter.contract import clip
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import RULESETS

if TYPE_CHECKING:
    import pyarrow
    import pyarrow.parquet


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a table: its name, its type (Arrow's name; nulls allowed in every column
    but ``id``, ``source`` and ``line``) and what it holds."""

    name: str
    kind: str
    about: str


#: Most seats at a table of any ruleset: one total column each.
MAX_SEATS: Final = max(max(r.to_dict()["players"]) for r in RULESETS.values())
#: The columns every table begins with: where its line was.
_WHERE: Final = (
    Column("id", "string", "the log's own id, or else its source"),
    Column("source", "string", "FILE:LINE of the line (its number alone for a list of lines)"),
    Column("file", "string", "the input file, as given (stdin: standard input)"),
    Column("line", "int64", "the line's number in its file, from 1"),
    Column("status", "string", "complete, in_progress, invalid; error: the line was not scored"),
    Column("ruleset", "string", "the log's ruleset (null for an error)"),
    Column("players", "int8", "seats at the table (null for an error)"),
    Column("deal", "int32", "the deal's index in the log, from 0"),
)
DEALS: Final = (
    *_WHERE,
    *(Column(f"total_{seat}", "int32", f"seat {seat}'s total") for seat in range(MAX_SEATS)),
    Column("winners", "list<int8>", "the seats that won the deal (null: not decided)"),
    Column("reason", "string", "why the deal ended as it did (null: not decided)"),
    Column("renuncios", "int32", "renuncios in the deal"),
    Column("illegal", "string", "the code of the illegal event the log stopped at, on its deal"),
    Column("error", "string", "for a line not scored: its error's title and first message"),
)
SEATS: Final = (
    *_WHERE,
    Column("seat", "int8", "the seat, from 0"),
    Column("player", "string", "the player's name in the log"),
    Column("total", "int32", "the seat's total in the deal"),
    Column("tricks", "int32", "tricks the seat took"),
    Column("renuncios", "int32", "renuncios of the seat in the deal"),
    *(
        Column(f"renuncios_{o.value}", "int32", f"of them, against the obligation {o.value}")
        for o in Obligation
    ),
    Column("won", "bool", "the seat won the deal (null: not decided)"),
    Column("reason", "string", "why the deal ended as it did (null: not decided)"),
)
#: The columns that always hold a value.
_NEVER_NULL: Final = ("id", "source", "line")
#: The per-deal table's column names.
COLUMNS: Final = tuple(column.name for column in DEALS)
#: The columns of where a line was, which the writer adds to its rows: id, source, file, line.
_HEAD: Final = 4
#: The names of a row's values (:data:`Row`: without the columns of where the line was).
_ROW_NAMES: Final = {
    table: tuple(column.name for column in declared[_HEAD:])
    for table, declared in ((Table.DEALS, DEALS), (Table.SEATS, SEATS))
}
#: Bytes of NDJSON lines gathered before they are written.
NDJSON_BYTES: Final = 1 << 20
#: Rows buffered before a Parquet row group is written.
PARQUET_ROWS: Final = 65536
#: Rows of a group read into columns at a time: the group waits as columns (less than half
#: the bytes of its JSON text), and the text of only these rows at once.
PARQUET_READ_ROWS: Final = 8192

#: A row without its id, source, file and line.
Row = tuple[Any, ...]
#: What a worker sends back for one line (:func:`payload`).
Payload = bytes | list[Row]


def columns(table: Table) -> tuple[Column, ...]:
    return DEALS if table is Table.DEALS else SEATS


def payload(fmt: Format, scored: Scored, table: Table = Table.DEALS) -> Payload:
    """What a worker sends back for one line: the body's JSON (NDJSON), its rows (CSV), or
    its rows as JSON objects, each ended by a newline (Parquet: :func:`json_rows`)."""
    if fmt is Format.NDJSON:
        return encode_body(scored)
    found = rows(scored) if table is Table.DEALS else seat_rows(scored)
    if fmt is Format.PARQUET:
        return json_rows(found, table)
    return found


def json_rows(found: list[Row], table: Table) -> bytes:
    """Rows as JSON objects keyed by their columns (past the four of where the line was), one
    a line: what :class:`ParquetWriter` reads (a JSON text never holds a raw newline, so
    ``\\n{`` can only start a row)."""
    names = _ROW_NAMES[table]
    return b"".join([orjson.dumps(dict(zip(names, row, strict=True))) + b"\n" for row in found])


def rows(scored: Scored) -> list[Row]:
    """One row per deal of a scored line (one row for an error)."""
    error = scored.error
    if error is not None:
        first = error["errors"][0]["message"] if error["errors"] else ""
        text = clip(f"{error['title']}: {first}")
        return [("error", None, None, None, *(None,) * MAX_SEATS, None, None, None, None, text)]
    body = scored.body
    illegal = body["illegal"]
    players = len(body["match"]["standings"])
    out: list[Row] = []
    for index, deal in enumerate(body["deals"]):
        totals = {score["seat"]: score["total"] for score in deal["scores"]}
        outcome = deal["outcome"]
        out.append(
            (
                body["status"],
                scored.ruleset,
                players,
                index,
                *(totals.get(seat) for seat in range(MAX_SEATS)),
                None if outcome is None else tuple(outcome["winners"]),
                None if outcome is None else outcome["reason"],
                len(deal["violations"]),
                illegal["code"] if illegal is not None and illegal["deal"] == index else None,
                None,
            )
        )
    if illegal is not None and illegal["deal"] >= len(out):  # a deal past the match's end
        nothing = (None,) * MAX_SEATS
        code = illegal["code"]
        row = (body["status"], scored.ruleset, players, illegal["deal"], *nothing)
        out.append((*row, None, None, 0, code, None))
    return out


def seat_rows(scored: Scored) -> list[Row]:
    """One row per seat of each deal of a scored line (none for an error: the per-deal table
    has it)."""
    if scored.error is not None:
        return []
    body = scored.body
    names = [standing["player"] for standing in body["match"]["standings"]]
    out: list[Row] = []
    for index, deal in enumerate(body["deals"]):
        outcome = deal["outcome"]
        winners = None if outcome is None else set(outcome["winners"])
        reason = None if outcome is None else outcome["reason"]
        for score in deal["scores"]:
            seat = score["seat"]
            broken = [v["obligation"] for v in deal["violations"] if v["seat"] == seat]
            out.append(
                (
                    body["status"],
                    scored.ruleset,
                    len(names),
                    index,
                    seat,
                    names[seat],
                    score["total"],
                    score["tricks"],
                    len(broken),
                    *(broken.count(o.value) for o in Obligation),
                    None if winners is None else seat in winners,
                    reason,
                )
            )
    return out


def where(source: Source) -> tuple[str | None, int]:
    """The file and line of a ``source`` (``FILE:LINE``; a number alone: no file)."""
    if isinstance(source, int):
        return None, source
    file, _, line = source.rpartition(":")
    return file, int(line)


class Writer(Protocol):
    """Where the lines of a run (or of one input) go."""

    def write(self, given_id: str | None, source: Source, data: Payload) -> None: ...

    def flush(self) -> int | None:
        """Everything written so far handed to the file; the bytes the file then holds (None:
        a stream, or a format whose file is complete only when closed)."""

    def close(self) -> None: ...


class NdjsonWriter:
    """Lines gathered and handed to the file :data:`NDJSON_BYTES` at a time (one write of a
    megabyte costs what one of a line does)."""

    def __init__(self, stream: IO[bytes], owned: bool = True) -> None:
        self._stream = stream
        self._owned = owned
        self._lines: list[bytes] = []
        self._size = 0

    def write(self, given_id: str | None, source: Source, data: Payload) -> None:
        assert isinstance(data, bytes)
        self.write_lines(stamp(given_id, source, data))

    def write_lines(self, lines: bytes) -> None:
        """Whole lines, ``id`` and ``source`` in them (an archive run's: a piece's at once)."""
        self._lines.append(lines)
        self._size += len(lines)
        if self._size >= NDJSON_BYTES:
            self._hand_over()

    def _hand_over(self) -> None:
        if self._lines:
            self._stream.write(b"".join(self._lines))
            self._lines, self._size = [], 0

    def flush(self) -> int | None:
        self._hand_over()
        self._stream.flush()
        return self._stream.tell() if self._owned else None

    def close(self) -> None:
        self._hand_over()
        if self._owned:
            self._stream.close()
        else:
            self._stream.flush()


class CsvWriter:
    def __init__(
        self,
        stream: IO[bytes],
        owned: bool = True,
        header: bool = True,
        table: Table = Table.DEALS,
    ) -> None:
        self._stream = stream
        self._text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        self._owned = owned
        self._csv = csv.writer(self._text)
        if header:
            self._csv.writerow(column.name for column in columns(table))

    def write(self, given_id: str | None, source: Source, data: Payload) -> None:
        assert isinstance(data, list)
        ident = source if given_id is None else given_id
        file, line = where(source)
        for row in data:
            cells = (_cell(value) for value in row)
            self._csv.writerow((ident, source, "" if file is None else file, line, *cells))

    def flush(self) -> int | None:
        self._text.flush()
        return self._stream.tell() if self._owned else None

    def close(self) -> None:
        self._text.flush()
        if self._owned:
            self._text.close()
        else:
            self._text.detach()


def _cell(value: Any) -> Any:
    """Seats as their JSON list (``[1,3]``: text in every file, never a number); true and
    false as JSON says them; no value as an empty cell."""
    if isinstance(value, tuple):
        return orjson.dumps(value).decode()
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


class ParquetWriter:
    """Rows in row groups of :data:`PARQUET_ROWS`: memory holds one group at most. The rows
    come as JSON lines (:func:`json_rows`); each gets its ``id``, ``source``, ``file`` and
    ``line`` in front, and a group's lines become its columns in Arrow's JSON reader (in C++,
    typed by :func:`schema`, on this thread: ``--jobs`` says how many cores a run takes)."""

    def __init__(self, path: Path, table: Table = Table.DEALS) -> None:
        import pyarrow.json
        import pyarrow.parquet as pq

        self._pa = _arrow()
        self._json = pyarrow.json
        self._schema = schema(table)
        self._names = self._schema.names
        # Arrow's default pool (mimalloc) keeps what a group freed: the process peaked at 157 MB
        # on 50,000 one-deal games, 117 MB with the C library's malloc, which gives large
        # blocks back (the same file, byte for byte)
        self._pool = self._pa.system_memory_pool()
        self._writer: pyarrow.parquet.ParquetWriter = pq.ParquetWriter(
            str(path), self._schema, memory_pool=self._pool
        )
        self._options = pyarrow.json.ParseOptions(
            explicit_schema=self._schema, unexpected_field_behavior="error"
        )
        self._text = bytearray()  # rows as JSON lines, appended in place, not yet read
        self._unread = 0  # rows in the text
        self._count = 0  # rows in the group
        self._read: list[pyarrow.Table] = []  # the group's rows read into columns

    def write(self, given_id: str | None, source: Source, data: Payload) -> None:
        assert isinstance(data, bytes)
        if not data:
            return
        ident = source if given_id is None else given_id
        file, line = where(source)
        where_from = {"id": str(ident), "source": str(source), "file": file, "line": line}
        head = orjson.dumps(where_from)[:-1] + b","  # the object left open for the row
        # every row of the line gets the head (a row starts the payload or follows a newline)
        self._text += head
        self._text += data[1:].replace(b"\n{", b"\n" + head)
        rows = data.count(b"\n")
        self._count += rows
        self._unread += rows
        if self._count >= PARQUET_ROWS:
            self._flush()
        elif self._unread >= PARQUET_READ_ROWS:
            self._read_text()

    def _read_text(self) -> None:
        """The rows of the text read into columns."""
        if not self._unread:
            return
        text, self._text, self._unread = self._text, bytearray(), 0
        # one block: one record batch, read on this thread (the buffer is the bytearray's own
        # memory, not a copy)
        options = self._json.ReadOptions(use_threads=False, block_size=len(text) + 1)
        read = self._json.read_json(
            self._pa.py_buffer(text),
            read_options=options,
            parse_options=self._options,
            memory_pool=self._pool,
        )
        del text
        # the schema's own fields (nulls not allowed in some, its metadata), in its order
        columns = [read.column(name) for name in self._names]
        self._read.append(self._pa.Table.from_arrays(columns, schema=self._schema))

    def _flush(self) -> None:
        """The group's rows written as a row group."""
        self._read_text()
        if not self._read:
            return
        parts, self._read, self._count = self._read, [], 0
        # one chunk a column, as when a group was read in one block: the same file
        group = self._pa.concat_tables(parts).combine_chunks(memory_pool=self._pool)
        del parts
        self._writer.write_table(group)

    def flush(self) -> int | None:
        return None  # a Parquet file is readable only once its footer is written

    def close(self) -> None:
        self._flush()
        self._writer.close()


def _arrow() -> Any:
    import pyarrow

    return pyarrow


def schema(table: Table) -> pyarrow.Schema:
    """The Parquet schema of ``table``, with the file metadata ``tute-arbiter``: the tool's
    version, the table, and its columns (name, type, meaning)."""
    from arbiter import __version__

    pa = _arrow()
    kinds = {
        "string": pa.string(),
        "int64": pa.int64(),
        "int32": pa.int32(),
        "int8": pa.int8(),
        "bool": pa.bool_(),
        "list<int8>": pa.list_(pa.int8()),
    }
    declared = columns(table)
    about = {
        "tool": "tute-arbiter",
        "version": __version__,
        "table": table.value,
        "columns": [{"name": c.name, "type": c.kind, "about": c.about} for c in declared],
    }
    fields = [pa.field(c.name, kinds[c.kind], nullable=c.name not in _NEVER_NULL) for c in declared]
    return pa.schema(fields, metadata={"tute-arbiter": orjson.dumps(about)})


class GzipStream(io.RawIOBase):
    """A file written gzip-compressed as a series of gzip members, one ended at each
    :meth:`flush` (a checkpoint): the file can be cut at the end of any of them and continued,
    and reads as one stream (``gzip -d``, ``zcat``, Python's ``gzip``). Deterministic: no
    time stamp, no name, so a run continued writes the bytes of one that never stopped."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._raw = raw
        self._member: gzip.GzipFile | None = None

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self._member is None:
            self._member = gzip.GzipFile(
                filename="", mode="wb", fileobj=self._raw, compresslevel=GZIP_LEVEL, mtime=0
            )
        return self._member.write(data)

    def flush(self) -> None:
        if self._member is not None:
            self._member.close()  # its trailer written; the raw file stays open
            self._member = None
        if not self._raw.closed:
            self._raw.flush()

    def tell(self) -> int:
        return self._raw.tell()

    def close(self) -> None:
        if not self.closed:
            self.flush()
            self._raw.close()
        super().close()


#: gzip's level for compressed outputs: its default trade of size for speed.
GZIP_LEVEL: Final = 6


def compressed(path: Path) -> bool:
    """An output whose name asks for gzip (``scores.ndjson.gz``)."""
    return path.name.lower().endswith(".gz")


def open_writer(
    fmt: Format,
    path: Path | None,
    stdout: IO[bytes] | None = None,
    *,
    keep: int = 0,
    table: Table = Table.DEALS,
    gzip_members: bool = False,
) -> Writer:
    """A writer to the file ``path`` (created; with ``keep``, its first ``keep`` bytes kept and
    the rest cut: a run that continues; with ``gzip_members``, compressed: :class:`GzipStream`),
    or to ``stdout`` (not closed at the end)."""
    if fmt is Format.PARQUET:
        assert path is not None, "Parquet is written to a file"
        assert not keep, "a Parquet file cannot be continued"
        return ParquetWriter(path, table)
    if path is None:
        assert stdout is not None
        stream, owned = stdout, False
    elif keep:
        stream, owned = open(path, "r+b"), True  # noqa: SIM115 (the writer closes it)
        stream.truncate(keep)
        stream.seek(keep)
    else:
        stream, owned = open(path, "wb"), True  # noqa: SIM115 (the writer closes it)
    if gzip_members:
        stream = GzipStream(stream)  # type: ignore[assignment]
    if fmt is Format.NDJSON:
        return NdjsonWriter(stream, owned)
    return CsvWriter(stream, owned, header=not keep, table=table)
