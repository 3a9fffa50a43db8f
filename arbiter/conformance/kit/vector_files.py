"""A directory of vectors: ``<ruleset>.jsonl`` files and the ``MANIFEST.json`` that vouches for
them (docs/conformance.md, "The vectors").

The manifest holds the kit's version, the engine's, the seed, and per ruleset its file's SHA-256
and how many vectors each rule has. :func:`write` writes a directory; :func:`load` reads one
back, checking every file against the manifest. The published set is :data:`PUBLISHED`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any, Final

from arbiter.conformance.kit.protocol import KIT_VERSION, KitError, Vector

MANIFEST: Final = "MANIFEST.json"
#: Where the published set lives in the installed package (a link to conformance/ in the
#: repository, copied as files into a wheel).
PUBLISHED: Final = files("arbiter.conformance") / "published"


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
