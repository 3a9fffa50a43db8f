"""Output formats of an archive run: NDJSON (the line format), and CSV and Parquet tables of
one row per deal for analysis tools (pandas, polars, DuckDB).

A worker encodes each scored line into a *payload* (:func:`payload`): the JSON of its body for
NDJSON, its rows (without ``id`` and ``source``) for the tables; the process that writes adds
``id`` and ``source``, which only it knows (:class:`Writer`). The table's columns are
:data:`COLUMNS`: ``id``, ``source``, the game's ``status`` (``error`` for a line that was not
scored), ``ruleset``, ``deal`` (its index), each seat's total (``total_0`` …), the deal's
``winners`` (seats), the outcome's ``reason``, its number of ``renuncios``, the ``illegal``
code of the event the game stopped at (on that deal's row), and for an error line its title
and first message. Parquet needs pyarrow (the optional extra ``archive``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, Protocol

from arbiter.archive import Format
from arbiter.archive.records import Scored, Source, encode_body, stamp
from arbiter.contract import clip
from arbiter.engine.rulesets import RULESETS

if TYPE_CHECKING:
    import pyarrow.parquet

#: Most seats at a table of any ruleset: one total column each.
MAX_SEATS: Final = max(max(r.to_dict()["players"]) for r in RULESETS.values())
COLUMNS: Final = (
    "id",
    "source",
    "status",
    "ruleset",
    "deal",
    *(f"total_{seat}" for seat in range(MAX_SEATS)),
    "winners",
    "reason",
    "renuncios",
    "illegal",
    "error",
)
#: Rows buffered before a Parquet row group is written.
PARQUET_ROWS: Final = 65_536

#: A row without its id and source.
Row = tuple[Any, ...]


def payload(fmt: Format, scored: Scored) -> bytes | list[Row]:
    """What a worker sends back for one line: the body's JSON, or its rows."""
    return encode_body(scored) if fmt is Format.NDJSON else rows(scored)


def rows(scored: Scored) -> list[Row]:
    """One row per deal of a scored line (one row for an error)."""
    error = scored.error
    if error is not None:
        first = error["errors"][0]["message"] if error["errors"] else ""
        text = clip(f"{error['title']}: {first}")
        return [("error", None, None, *(None,) * MAX_SEATS, None, None, None, None, text)]
    body = scored.body
    illegal = body["illegal"]
    out: list[Row] = []
    for index, deal in enumerate(body["deals"]):
        totals = {score["seat"]: score["total"] for score in deal["scores"]}
        outcome = deal["outcome"]
        out.append(
            (
                body["status"],
                scored.ruleset,
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
        out.append(
            (body["status"], scored.ruleset, illegal["deal"], *nothing, None, None, 0, code, None)
        )
    return out


class Writer(Protocol):
    """Where the lines of a run (or of one input) go."""

    def write(self, given_id: str | None, source: Source, data: bytes | list[Row]) -> None: ...

    def flush(self) -> int | None:
        """Everything written so far handed to the file; the bytes the file then holds (None:
        a stream, or a format whose file is complete only when closed)."""

    def close(self) -> None: ...


class NdjsonWriter:
    def __init__(self, stream: IO[bytes], owned: bool = True) -> None:
        self._stream = stream
        self._owned = owned

    def write(self, given_id: str | None, source: Source, data: bytes | list[Row]) -> None:
        assert isinstance(data, bytes)
        self._stream.write(stamp(given_id, source, data))

    def flush(self) -> int | None:
        self._stream.flush()
        return self._stream.tell() if self._owned else None

    def close(self) -> None:
        if self._owned:
            self._stream.close()
        else:
            self._stream.flush()


class CsvWriter:
    def __init__(self, stream: IO[bytes], owned: bool = True, header: bool = True) -> None:
        self._stream = stream
        self._text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        self._owned = owned
        self._csv = csv.writer(self._text)
        if header:
            self._csv.writerow(COLUMNS)

    def write(self, given_id: str | None, source: Source, data: bytes | list[Row]) -> None:
        assert isinstance(data, list)
        ident = source if given_id is None else given_id
        for row in data:
            self._csv.writerow((ident, source, *(_cell(value) for value in row)))

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
    """Seats as ``1 3`` in one cell; no value as an empty cell."""
    if isinstance(value, tuple):
        return " ".join(str(v) for v in value)
    return "" if value is None else value


class ParquetWriter:
    """Rows in row groups of :data:`PARQUET_ROWS`: memory holds one group at most."""

    def __init__(self, path: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._pa = pa
        number, text = pa.int32(), pa.string()
        types = {"deal": number, "renuncios": number, "winners": pa.list_(pa.int8())}
        types |= {f"total_{seat}": number for seat in range(MAX_SEATS)}
        self._schema = pa.schema([(name, types.get(name, text)) for name in COLUMNS])
        self._writer: pyarrow.parquet.ParquetWriter = pq.ParquetWriter(str(path), self._schema)
        self._columns: list[list[Any]] = [[] for _ in COLUMNS]

    def write(self, given_id: str | None, source: Source, data: bytes | list[Row]) -> None:
        assert isinstance(data, list)
        ident = source if given_id is None else given_id
        for row in data:
            for column, value in zip(self._columns, (ident, str(source), *row), strict=True):
                column.append(list(value) if isinstance(value, tuple) else value)
        if len(self._columns[0]) >= PARQUET_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._columns[0]:
            arrays = [
                self._pa.array(values, type=kind)
                for values, kind in zip(self._columns, self._schema.types, strict=True)
            ]
            self._writer.write_table(self._pa.Table.from_arrays(arrays, schema=self._schema))
            self._columns = [[] for _ in COLUMNS]

    def flush(self) -> int | None:
        return None  # a Parquet file is readable only once its footer is written

    def close(self) -> None:
        self._flush()
        self._writer.close()


def open_writer(
    fmt: Format, path: Path | None, stdout: IO[bytes] | None = None, *, keep: int = 0
) -> Writer:
    """A writer to the file ``path`` (created; with ``keep``, its first ``keep`` bytes kept and
    the rest cut: a run that continues), or to ``stdout`` (not closed at the end)."""
    if fmt is Format.PARQUET:
        assert path is not None, "Parquet is written to a file"
        assert not keep, "a Parquet file cannot be continued"
        return ParquetWriter(path)
    if path is None:
        assert stdout is not None
        stream, owned = stdout, False
    elif keep:
        stream, owned = open(path, "r+b"), True  # noqa: SIM115 (the writer closes it)
        stream.truncate(keep)
        stream.seek(keep)
    else:
        stream, owned = open(path, "wb"), True  # noqa: SIM115 (the writer closes it)
    if fmt is Format.NDJSON:
        return NdjsonWriter(stream, owned)
    return CsvWriter(stream, owned, header=not keep)
