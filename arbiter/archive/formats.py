"""Output formats of an archive run: NDJSON (the line format), and CSV and Parquet tables for
analysis tools (pandas, polars, DuckDB): one row per deal (:attr:`Table.DEALS`), or one row per
seat of each deal (:attr:`Table.SEATS`: who played, their total, their renuncios by
obligation, whether they won).

A worker encodes each scored line into a *payload* (:func:`payload`): the JSON of its body for
NDJSON, its rows (without the columns of where the line was) for CSV and Parquet; the process
that writes adds ``id``, ``source``, ``file`` and ``line``, which only it knows
(:class:`Writer`); an archive run's NDJSON lines come a piece at a time, numbered
(:meth:`NdjsonWriter.write_lines`). The Parquet writer turns its rows into Arrow columns made
from buffers (:func:`arrow_columns`): one copy of each cell, and none of ``pyarrow.array``'s
checks for pandas values, which import pandas (some 50 MB) when it is installed.
The columns are declared once (:data:`DEALS`, :data:`SEATS`: name, type, meaning): the CSV
header, the Parquet schema and its file metadata come from them, and docs/archives.md lists
them (a test compares). Every file has the same schema whatever it holds: a column is typed
even when all its values are null, and ``winners`` is a list of seats (in CSV, its JSON text:
``[0,2]``). Parquet needs pyarrow (the optional extra ``archive``).
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, Protocol

import orjson

from arbiter.archive import Format, Table
from arbiter.archive.records import Scored, Source, encode_body, stamp
from arbiter.contract import clip
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import RULESETS
from arbiter.report import ENUM_TEXT

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
#: Bytes of NDJSON lines gathered before they are written.
NDJSON_BYTES: Final = 1 << 20
#: Rows buffered before a Parquet row group is written.
PARQUET_ROWS: Final = 65536
#: Rows of a group turned into columns at a time: the group waits as columns (some 165 bytes a
#: row of one-deal games), and only these rows as Python values (8,192 of them: the process
#: peaked 5 MB higher on 50,000 one-deal games, for 0.1 us a row less).
PARQUET_BATCH_ROWS: Final = 2048

#: A row without its id, source, file and line.
Row = tuple[Any, ...]
#: What a worker sends back for one line (:func:`payload`).
Payload = bytes | list[Row]


def columns(table: Table) -> tuple[Column, ...]:
    return DEALS if table is Table.DEALS else SEATS


def payload(fmt: Format, scored: Scored, table: Table = Table.DEALS) -> Payload:
    """What a worker sends back for one line: the body's JSON (NDJSON), or its rows (CSV and
    Parquet; for CSV with its cells as the file writes them: :func:`rows`)."""
    if fmt is Format.NDJSON:
        return encode_body(scored)
    text = fmt is Format.CSV
    return rows(scored, text) if table is Table.DEALS else seat_rows(scored, text)


def rows(scored: Scored, text: bool = False) -> list[Row]:
    """One row per deal of a scored line (one row for an error), read from the engine's
    adjudication (:attr:`Scored.replay`). With ``text``, ``winners`` as CSV writes it: its
    JSON text (``[0,2]``, text in every file, never a number)."""
    replay = scored.replay
    if replay is None:
        error = scored.body["error"]
        first = error["errors"][0]["message"] if error["errors"] else ""
        message = clip(f"{error['title']}: {first}")
        return [("error", None, None, None, *(None,) * MAX_SEATS, None, None, None, None, message)]
    match = replay.match
    status, ruleset = ENUM_TEXT[match.status], scored.ruleset
    players = len(match.header.players)
    absent = (None,) * (MAX_SEATS - players)  # the totals of seats past the table's
    illegal = match.illegal
    illegal_deal = -1 if illegal is None else illegal.deal
    out: list[Row] = []
    for index, record in enumerate(match.deals):
        outcome = record.outcome
        if outcome is None:
            winners: tuple[int, ...] | str | None = None
            reason = None
        else:
            winners = _seats_text(outcome.winners) if text else outcome.winners
            reason = ENUM_TEXT[outcome.reason]
        state = record.state
        out.append(
            (
                status,
                ruleset,
                players,
                index,
                *state.totals(),
                *absent,
                winners,
                reason,
                len(state.violations),
                ENUM_TEXT[illegal.code] if illegal is not None and index == illegal_deal else None,
                None,
            )
        )
    if illegal is not None and illegal_deal >= len(out):  # a deal past the match's end
        nothing = (None,) * MAX_SEATS
        row = (status, ruleset, players, illegal_deal, *nothing)
        out.append((*row, None, None, 0, ENUM_TEXT[illegal.code], None))
    return out


def _seats_text(seats: tuple[int, ...]) -> str:
    return orjson.dumps(seats).decode()


def seat_rows(scored: Scored, text: bool = False) -> list[Row]:
    """One row per seat of each deal of a scored line (none for an error: the per-deal table
    has it), read as :func:`rows` reads them. With ``text``, ``won`` as CSV writes it:
    ``true`` or ``false``."""
    replay = scored.replay
    if replay is None:
        return []
    match = replay.match
    status, ruleset = ENUM_TEXT[match.status], scored.ruleset
    names = match.header.players
    players = len(names)
    out: list[Row] = []
    for index, record in enumerate(match.deals):
        outcome = record.outcome
        winners = None if outcome is None else outcome.winners
        reason = None if outcome is None else ENUM_TEXT[outcome.reason]
        state = record.state
        totals, tricks, violations = state.totals(), state.tricks_won, state.violations
        for seat in range(players):
            broken = _NONE_BROKEN
            if violations:
                obligations = [v.obligation for v in violations if v.seat == seat]
                broken = (len(obligations), *[obligations.count(o) for o in Obligation])
            out.append(
                (
                    status,
                    ruleset,
                    players,
                    index,
                    seat,
                    names[seat],
                    totals[seat],
                    tricks[seat],
                    *broken,
                    _won(seat, winners, text),
                    reason,
                )
            )
    return out


#: A seat's renuncios, and those against each obligation, in a deal without any.
_NONE_BROKEN: Final = (0,) * (1 + len(Obligation))


def _won(seat: int, winners: tuple[int, ...] | None, text: bool) -> bool | str | None:
    """Whether ``seat`` won (None: not decided); with ``text``, as JSON says it."""
    if winners is None:
        return None
    won = seat in winners
    return ("true" if won else "false") if text else won


def where(source: Source) -> tuple[str | None, int]:
    """The file and line of a ``source`` (``FILE:LINE``; a number alone: no file)."""
    if isinstance(source, int):
        return None, source
    file, _, line = source.rpartition(":")
    return file, int(line)


#: The file and line of a source (:func:`where`).
Where = tuple[str | None, int]


class Writer(Protocol):
    """Where the lines of a run (or of one input) go."""

    def write(
        self, given_id: str | None, source: Source, data: Payload, at: Where | None = None
    ) -> None:
        """The line from ``source`` (``at``: its file and line, when the caller knows them;
        else read from ``source``)."""

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

    def write(
        self, given_id: str | None, source: Source, data: Payload, at: Where | None = None
    ) -> None:
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

    def write(
        self, given_id: str | None, source: Source, data: Payload, at: Where | None = None
    ) -> None:
        assert isinstance(data, list)
        ident = source if given_id is None else given_id
        file, line = where(source) if at is None else at
        # the cells are as the file writes them (payload): csv writes None as an empty cell
        head = (ident, source, file, line)
        self._csv.writerows([head + row for row in data])

    def flush(self) -> int | None:
        self._text.flush()
        return self._stream.tell() if self._owned else None

    def close(self) -> None:
        self._text.flush()
        if self._owned:
            self._text.close()
        else:
            self._text.detach()


class ParquetWriter:
    """Rows in row groups of :data:`PARQUET_ROWS`: memory holds one group at most. Each row
    gets its ``id``, ``source``, ``file`` and ``line`` in front; every
    :data:`PARQUET_BATCH_ROWS` rows are turned into Arrow columns (:func:`arrow_columns`: one
    copy of each cell into the column's buffer, no text parsed again), and a group's columns
    are written once it is full (on this thread: ``--jobs`` says how many cores a run
    takes)."""

    def __init__(self, path: Path, table: Table = Table.DEALS) -> None:
        import pyarrow.parquet as pq

        self._pa = _arrow()
        self._schema = schema(table)
        self._kinds = [column.kind for column in columns(table)]
        # Arrow's default pool (mimalloc) keeps what a group freed: the process peaked at 157 MB
        # on 50,000 one-deal games, 117 MB with the C library's malloc, which gives large
        # blocks back (the same file, byte for byte)
        self._pool = self._pa.system_memory_pool()
        self._writer: pyarrow.parquet.ParquetWriter = pq.ParquetWriter(
            str(path), self._schema, memory_pool=self._pool
        )
        self._rows: list[Row] = []  # whole rows, where the line was first, not yet columns
        self._count = 0  # rows in the group
        # the group's rows turned into columns: each column's chunks
        self._chunks: list[list[pyarrow.Array]] = [[] for _ in self._kinds]

    def write(
        self, given_id: str | None, source: Source, data: Payload, at: Where | None = None
    ) -> None:
        assert isinstance(data, list)
        if not data:
            return
        ident = source if given_id is None else given_id
        file, line = where(source) if at is None else at
        head = (str(ident), str(source), file, line)
        self._rows += [head + row for row in data]
        self._count += len(data)
        if self._count >= PARQUET_ROWS:
            self._flush()
        elif len(self._rows) >= PARQUET_BATCH_ROWS:
            self._to_columns()

    def _to_columns(self) -> None:
        """The rows waiting turned into columns."""
        if not self._rows:
            return
        found, self._rows = self._rows, []
        for chunks, array in zip(self._chunks, arrow_columns(self._kinds, found), strict=True):
            chunks.append(array)

    def _flush(self) -> None:
        """The group's rows written as a row group."""
        self._to_columns()
        if not self._count:
            return
        # one chunk a column, as when a group was read in one block: the same file; each
        # column's chunks freed once joined (memory holds the group and one column twice)
        joined = []
        for chunks in self._chunks:
            joined.append(self._pa.concat_arrays(chunks, memory_pool=self._pool))
            chunks.clear()
        self._count = 0
        group = self._pa.Table.from_arrays(joined, schema=self._schema)
        del joined
        self._writer.write_table(group)

    def flush(self) -> int | None:
        return None  # a Parquet file is readable only once its footer is written

    def close(self) -> None:
        self._flush()
        self._writer.close()


def arrow_columns(kinds: list[str], found: list[Row]) -> list[pyarrow.Array]:
    """The columns of ``found`` (whole rows) as Arrow arrays of the declared ``kinds``, made
    from buffers: ``pyarrow.array`` on Python values would check each for pandas types and so
    import pandas (some 50 MB) where it is installed."""
    import numpy

    pa = _arrow()
    out = []
    for kind, values in zip(kinds, zip(*found, strict=True), strict=True):
        nulls = values.count(None)
        if nulls == len(values):
            out.append(pa.nulls(len(values), arrow_types()[kind]))
        elif kind == "string":
            out.append(_strings(pa, numpy, values, nulls))
        elif kind == "list<int8>":
            out.append(_seat_lists(pa, numpy, values, nulls))
        else:
            out.append(_numbers(pa, numpy, kind, values, nulls))
    return out


def _validity(pa: Any, numpy: Any, valid: Any) -> Any:
    """Arrow's validity bitmap of ``valid`` (one bool per value), least significant bit first."""
    return pa.py_buffer(numpy.packbits(valid, bitorder="little"))


def _strings(pa: Any, numpy: Any, values: tuple[Any, ...], nulls: int) -> Any:
    validity = None
    if nulls:
        validity = _validity(pa, numpy, [value is not None for value in values])
        values = tuple("" if value is None else value for value in values)
    text = "".join(values)
    data = text.encode()
    if len(data) == len(text):  # ASCII: a character a byte
        lengths = numpy.fromiter(map(len, values), numpy.int32, len(values))
    else:
        encoded = (len(value.encode()) for value in values)
        lengths = numpy.fromiter(encoded, numpy.int32, len(values))
    offsets = numpy.zeros(len(values) + 1, numpy.int32)
    numpy.cumsum(lengths, out=offsets[1:])
    buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.string(), len(values), buffers, null_count=nulls)


#: The NumPy type of each numeric kind of column.
_NUMPY: Final = {"int64": "int64", "int32": "int32", "int8": "int8", "bool": "bool"}


def _numbers(pa: Any, numpy: Any, kind: str, values: tuple[Any, ...], nulls: int) -> Any:
    validity = None
    if nulls:
        # a float for each value, NaN for None (exact: no value here comes near 2**53)
        floats = numpy.array(values, numpy.float64)
        valid = ~numpy.isnan(floats)
        validity = _validity(pa, numpy, valid)
        data = numpy.where(valid, floats, 0).astype(_NUMPY[kind])
    else:
        data = numpy.array(values, _NUMPY[kind])
    if kind == "bool":  # Arrow's booleans are bits
        data = numpy.packbits(data, bitorder="little")
    buffers = [validity, pa.py_buffer(data)]
    return pa.Array.from_buffers(arrow_types()[kind], len(values), buffers, null_count=nulls)


def _seat_lists(pa: Any, numpy: Any, values: tuple[Any, ...], nulls: int) -> Any:
    validity = None
    if nulls:
        validity = _validity(pa, numpy, [value is not None for value in values])
        values = tuple(() if value is None else value for value in values)
    lengths = numpy.fromiter(map(len, values), numpy.int32, len(values))
    offsets = numpy.zeros(len(values) + 1, numpy.int32)
    numpy.cumsum(lengths, out=offsets[1:])
    seats = numpy.fromiter(itertools.chain.from_iterable(values), numpy.int8, int(offsets[-1]))
    items = pa.Array.from_buffers(pa.int8(), len(seats), [None, pa.py_buffer(seats)])
    buffers = [validity, pa.py_buffer(offsets)]
    kind = pa.list_(pa.int8())
    return pa.Array.from_buffers(kind, len(values), buffers, null_count=nulls, children=[items])


def _arrow() -> Any:
    import pyarrow

    return pyarrow


@functools.cache
def arrow_types() -> dict[str, pyarrow.DataType]:
    """The Arrow type of each kind of column (:attr:`Column.kind`)."""
    pa = _arrow()
    return {
        "string": pa.string(),
        "int64": pa.int64(),
        "int32": pa.int32(),
        "int8": pa.int8(),
        "bool": pa.bool_(),
        "list<int8>": pa.list_(pa.int8()),
    }


def schema(table: Table) -> pyarrow.Schema:
    """The Parquet schema of ``table``, with the file metadata ``tute-arbiter``: the tool's
    version, the table, and its columns (name, type, meaning)."""
    from arbiter import __version__

    pa = _arrow()
    kinds = arrow_types()
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
