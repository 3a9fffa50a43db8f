"""Which build of the engine runs: compiled with mypyc, or pure Python — from one source.

``make`` compiles :data:`COMPILED` with mypyc next to their sources (``setup.py``, when a C
compiler is present) and writes :data:`STAMP`: the SHA-256 of every source it compiled. On
import, :func:`choose` keeps the compiled modules only if the stamp still matches the sources;
a stale build (a source edited since) or ``ARBITER_PURE=1`` installs a finder that loads those
modules from their ``.py`` files instead, so a stale ``.so`` never runs. Nothing here imports
the engine.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Final

#: The modules mypyc compiles: the engine (its package __init__ stays Python), the answers, and
#: the summary of an archive run (a call per game scored).
COMPILED: Final = (
    "arbiter.archive.summary",
    "arbiter.engine.cards",
    "arbiter.engine.errors",
    "arbiter.engine.log",
    "arbiter.engine.match",
    "arbiter.engine.moves",
    "arbiter.engine.obligations",
    "arbiter.engine.position",
    "arbiter.engine.records",
    "arbiter.engine.rulesets",
    "arbiter.engine.scoring",
    "arbiter.engine.setup",
    "arbiter.engine.snapshot",
    "arbiter.engine.state",
    "arbiter.i18n",
    "arbiter.report",
)
#: mypyc's shared library, inside the package (``arbiter/_native__mypyc*.so``).
GROUP: Final = "arbiter._native"
PACKAGE_ROOT: Final = Path(__file__).resolve().parent.parent
STAMP: Final = PACKAGE_ROOT / "arbiter" / "_native.json"


def source_of(module: str) -> Path:
    return PACKAGE_ROOT.joinpath(*module.split(".")).with_suffix(".py")


def digests(modules: Sequence[str] = COMPILED) -> dict[str, str]:
    """SHA-256 of each module's source."""
    return {m: hashlib.sha256(source_of(m).read_bytes()).hexdigest() for m in modules}


def _extension_exists(module: str) -> bool:
    base = source_of(module).with_suffix("")
    return any(
        base.with_name(base.name + s).exists() for s in importlib.machinery.EXTENSION_SUFFIXES
    )


class _SourceFinder(MetaPathFinder):
    """Loads the compiled modules from their Python sources."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


def choose(environ: dict[str, str] | os._Environ[str] = os.environ) -> tuple[str, str | None]:
    """``("compiled", None)``, or ``("pure", why)`` after installing the source finder (why:
    None when no compiled build exists or pure was asked for, else a warning to print)."""
    if environ.get("ARBITER_PURE", "") not in ("", "0"):
        _use_sources()
        return "pure", None
    present = [_extension_exists(m) for m in COMPILED]
    if not any(present):
        return "pure", None
    if all(present) and _stamp_is_fresh():
        return "compiled", None
    # a part of a build must not run either: its modules would mix with the sources'
    _use_sources()
    return "pure", (
        "arbiter: the compiled engine is older than its sources (or incomplete); running the "
        "pure build (run `make install` to rebuild it)"
    )


def _stamp_is_fresh() -> bool:
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
        return bool(stamp.get("sources") == digests())
    except (OSError, ValueError, AttributeError):
        return False


def _use_sources() -> None:
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def write_stamp(path: Path = STAMP) -> None:
    """Record the sources just compiled (setup.py, after a build: in place, or into a wheel)."""
    path.write_text(json.dumps({"sources": digests()}, indent=1) + "\n", encoding="utf-8")
