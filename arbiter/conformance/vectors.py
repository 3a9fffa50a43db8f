"""Conformance vectors and the files that hold them (docs/conformance.md, "The vectors").

A :class:`Vector` is one line of ``<ruleset>.jsonl``: ``{"id", "ruleset", "rule", "log",
"expect"}``, where ``log`` is a game log of docs/api.md and ``expect`` one of four answers —
``legal_moves``, ``verdict`` (with the ``move`` judged), ``replay`` or ``error``. A directory
of vectors also holds ``MANIFEST.json``: the kit's version, the engine's, the seed, and per
ruleset its file's SHA-256 and how many vectors each rule has. :func:`load` reads a directory
back, checking every file against the manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib.resources import files
from pathlib import Path
from typing import Any, Final

#: The version of the vector format; a checker refuses a set of another version.
KIT_VERSION: Final = 1
MANIFEST: Final = "MANIFEST.json"
#: Where the published set lives in the installed package (a link to conformance/ in the
#: repository, copied as files into a wheel).
PUBLISHED: Final = files("arbiter.conformance") / "published"


class KitError(Exception):
    """A set of vectors that cannot be used: missing, altered, or of another version."""


class Ask(StrEnum):
    """What the engine under test is asked about a vector's log."""

    LEGAL_MOVES = "legal_moves"  # every move open to the player to act (order-free)
    VERDICT = "verdict"  # is this move ok, a renuncio or illegal?
    REPLAY = "replay"  # the adjudication of the whole log (or its refusal)


class Kind(StrEnum):
    """The kinds of ``expect``, named by the key that holds the answer."""

    LEGAL_MOVES = "legal_moves"
    VERDICT = "verdict"
    REPLAY = "replay"
    ERROR = "error"  # a log the referee refuses


#: What the engine is asked for each kind of ``expect``.
EXPECT_KINDS: Final = {
    Kind.LEGAL_MOVES: Ask.LEGAL_MOVES,
    Kind.VERDICT: Ask.VERDICT,
    Kind.REPLAY: Ask.REPLAY,
    Kind.ERROR: Ask.REPLAY,
}


def kind_of(expect: Mapping[str, Any]) -> Kind:
    """The kind of an ``expect`` (its first key that names one)."""
    return next(k for k in Kind if k in expect)


def events_in(log: Mapping[str, Any]) -> int:
    """How many events a log holds in all its deals (a vector's size)."""
    deals = log.get("deals")
    if not isinstance(deals, list):
        return 0
    return sum(len(d.get("events", [])) for d in deals if isinstance(d, Mapping))


def dumps(value: Any) -> str:
    """One line of compact JSON (the files' form, and the protocol's)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Vector:
    """One conformance vector."""

    id: str
    ruleset: str
    rule: str
    log: dict[str, Any]
    expect: dict[str, Any]

    @property
    def kind(self) -> Kind:
        return kind_of(self.expect)

    @property
    def ask(self) -> Ask:
        return EXPECT_KINDS[self.kind]

    @property
    def events(self) -> int:
        return events_in(self.log)

    @property
    def move(self) -> dict[str, Any] | None:
        move = self.expect.get("move") if self.kind == "verdict" else None
        return move if isinstance(move, dict) else None

    def question(self) -> dict[str, Any]:
        """What the engine under test receives (docs/conformance.md, "The protocol")."""
        out: dict[str, Any] = {"id": self.id, "log": self.log, "ask": self.ask.value}
        if self.move is not None:
            out["move"] = self.move
        return out

    def to_line(self) -> str:
        return dumps(
            {
                "id": self.id,
                "ruleset": self.ruleset,
                "rule": self.rule,
                "log": self.log,
                "expect": self.expect,
            }
        )

    @classmethod
    def from_line(cls, line: str, where: str) -> Vector:
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise KitError(f"{where}: not JSON ({err.msg})") from None
        if not isinstance(raw, dict):
            raise KitError(f"{where}: a vector is a JSON object")
        for key, kind in (("id", str), ("ruleset", str), ("rule", str)):
            if not isinstance(raw.get(key), kind):
                raise KitError(f"{where}: {key} must be a string")
        log, expect = raw.get("log"), raw.get("expect")
        if not isinstance(log, dict) or not isinstance(expect, dict):
            raise KitError(f"{where}: log and expect must be objects")
        if sum(k in expect for k in EXPECT_KINDS) != 1:
            raise KitError(f"{where}: expect must hold one of {', '.join(EXPECT_KINDS)}")
        if "verdict" in expect and not isinstance(expect.get("move"), dict):
            raise KitError(f"{where}: a verdict names its move")
        return cls(raw["id"], raw["ruleset"], raw["rule"], log, expect)


# --- a directory of vectors -----------------------------------------------------------------------


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(directory: Path, vectors: Sequence[Vector], seed: int, engine_version: str) -> None:
    """``<ruleset>.jsonl`` for every ruleset with vectors, and the manifest."""
    directory.mkdir(parents=True, exist_ok=True)
    by_ruleset: dict[str, list[Vector]] = {}
    for vector in vectors:
        by_ruleset.setdefault(vector.ruleset, []).append(vector)
    listed: dict[str, Any] = {}
    for ruleset, group in by_ruleset.items():
        data = "".join(v.to_line() + "\n" for v in group).encode()
        name = f"{ruleset}.jsonl"
        (directory / name).write_bytes(data)
        listed[ruleset] = {
            "file": name,
            "sha256": _digest(data),
            "vectors": len(group),
            "rules": dict(Counter(v.rule for v in group)),
        }
    manifest = {
        "kit_version": KIT_VERSION,
        "engine_version": engine_version,
        "seed": seed,
        "vectors": len(vectors),
        "rulesets": listed,
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


def read_manifest(directory: Path | Any) -> dict[str, Any]:
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError) as err:
        raise KitError(f"no readable {MANIFEST} in {directory}: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("kit_version") != KIT_VERSION:
        found = manifest.get("kit_version") if isinstance(manifest, dict) else None
        raise KitError(f"{directory}: kit version {found!r}; this checker reads {KIT_VERSION}")
    if not isinstance(manifest.get("rulesets"), dict):
        raise KitError(f"{directory}/{MANIFEST}: rulesets must be an object")
    return manifest


def load(directory: Path | Any, rulesets: Iterable[str] | None = None) -> list[Vector]:
    """The vectors of a directory (all its rulesets, or those named), each file checked
    against the manifest's SHA-256."""
    manifest = read_manifest(directory)
    wanted = None if rulesets is None else set(rulesets)
    vectors: list[Vector] = []
    for ruleset, entry in manifest["rulesets"].items():
        if wanted is not None and ruleset not in wanted:
            continue
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or "\\" in name:
            raise KitError(f"{MANIFEST}: a bad file name for {ruleset}")
        try:
            data = (directory / name).read_bytes()
        except OSError as err:
            raise KitError(f"cannot read {name}: {err}") from None
        if _digest(data) != entry.get("sha256"):
            raise KitError(f"{name} does not match the SHA-256 of {MANIFEST}")
        try:
            text = data.decode()
        except UnicodeDecodeError:
            raise KitError(f"{name} is not UTF-8") from None
        for number, line in enumerate(text.splitlines(), start=1):
            vector = Vector.from_line(line, f"{name}:{number}")
            if vector.ruleset != ruleset:
                raise KitError(f"{name}:{number}: a vector of {vector.ruleset}")
            vectors.append(vector)
    return vectors
