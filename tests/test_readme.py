"""Every example of the README runs as written, and prints what the README says it prints.

The ``sh`` blocks run in order in one bash session (variables carry over, as in a reader's
shell), against the app under gunicorn on a free loopback port instead of 127.0.0.1:8000 and
with this interpreter's ``arbiter`` for ``.venv/bin/arbiter``; ``make`` lines are not run. The
``python`` blocks run as scripts. After a command, the comment lines that follow it are the
output it must print: JSON is compared field by field (ids aside, ``...`` elided), text as text.
gunicorn runs two workers, as ``make run`` does on a machine with two cores or more: a state
id made by one worker must open on the other (README, "State tokens").
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from arbiter.settings import INTERNAL_VARIABLES, VARIABLES, Settings
from tests import gunicorn_support
from tests.api_support import ROOT
from tests.gunicorn_support import Gunicorn

README = ROOT / "README.md"
BIN = Path(sys.executable).parent
_BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```$", re.M | re.S)
#: Fields whose values differ on every server (keys are random per process) or machine (the
#: engine's build: compiled where a C compiler was found).
_VARYING = {"state_id", "request_id", "build"}
#: The same in text (``arbiter --version``): the build of the engine.
_VARYING_TEXT = re.compile(r"\((?:compiled|pure) engine\)")


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)  # comment lines after it, "# " removed
    inline: str = ""  # a comment on the command's own last line

    @property
    def output_promised(self) -> str:
        if self.expected:
            return " ".join(self.expected)
        return self.inline if self.inline.startswith(("{", "[")) else ""


def blocks(kind: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall(README.read_text()) if lang == kind]


def _scan(line: str, quote: str) -> tuple[str, str, str]:
    """One line of shell: (code, comment, quote still open at its end), given the open quote."""
    i = 0
    while i < len(line):
        char = line[i]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            i += 1
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip(), quote
        i += 1
    return line, "", quote


def commands(script: str) -> list[Command]:
    """Shell commands (continuations and quoted newlines joined) with the comments after them."""
    found: list[Command] = []
    current: list[str] = []
    quote = ""
    for line in script.splitlines():
        if not current and line.lstrip().startswith("#"):
            if found:
                found[-1].expected.append(line.lstrip()[1:].strip())
            continue
        if not current and not line.strip():
            continue
        code, comment, quote = _scan(line, quote)
        current.append(code)
        if not quote and not code.endswith("\\"):
            found.append(Command("\n".join(current).rstrip(), inline=comment))
            current = []
    assert not current, f"an unfinished command in the README: {current}"
    return found


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with gunicorn_support.serving("arbiter-readme-", ARBITER_WORKERS="2") as served:
        yield served


def run_shell(cmds: list[Command], port: int) -> list[tuple[int, str]]:
    """Run the commands in one bash; the (status, output) of each."""
    lines = []
    for i, cmd in enumerate(cmds):
        text = cmd.text.replace(".venv/bin/", f"{BIN}/")
        text = text.replace("B=http://127.0.0.1:8000", f"B=http://127.0.0.1:{port}")
        lines.append(f"echo '@@{i}@@'; {{ {text}\n}} 2>&1; echo \"@@status $?@@\"")
    done = subprocess.run(
        ["bash", "-c", "\n".join(lines)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=gunicorn_support.environment(PATH=f"{BIN}:/usr/bin:/bin"),
    )
    results = []
    for i in range(len(cmds)):
        chunk = done.stdout.split(f"@@{i}@@\n", 1)[1]
        chunk, status = re.match(r"(.*?)@@status (\d+)@@", chunk, re.S).groups()  # type: ignore[union-attr]
        results.append((int(status), chunk))
    return results


def collapse(text: str) -> str:
    return " ".join(_VARYING_TEXT.sub("(… engine)", text).split())


def promised_pairs(promised: str) -> list[tuple[str, str]]:
    """The ``"field": "value"`` pairs a README comment shows, minus elided and varying ones."""
    pairs = re.findall(r'"(\w+)":\s?"((?:[^"\\]|\\.)*)"', promised)
    return [(k, v) for k, v in pairs if k not in _VARYING and "..." not in v and "…" not in v]


def check_output(cmd: Command, output: str) -> None:
    promised = cmd.output_promised
    if not promised:
        return
    if promised.startswith(("{", "[")):
        body: Any = json.loads(output)
        try:
            expected = json.loads(promised)
        except json.JSONDecodeError:
            expected = None
        if expected is not None and isinstance(body, dict):
            for key in _VARYING:
                body.pop(key, None)
                expected.pop(key, None)
            assert body == expected, cmd.text
            return
        shown = json.dumps(body, ensure_ascii=False, separators=(", ", ": "))
        for key in re.findall(r'"(\w+)":', promised):
            assert f'"{key}"' in shown, f"{cmd.text}: no field {key!r} in the answer"
        for key, value in promised_pairs(promised):
            assert f'"{key}": "{value}"' in shown, f"{cmd.text}: {key} is not {value!r}"
    else:
        assert collapse(promised) in collapse(output), f"{cmd.text}\nprinted:\n{output[:1500]}"


@pytest.mark.slow
def test_the_readme_shell_examples(server: Gunicorn) -> None:
    cmds = [c for b in blocks("sh") for c in commands(b) if not c.text.startswith("make ")]
    assert len(cmds) >= 12, "the README's examples were not found"
    for cmd, (status, output) in zip(cmds, run_shell(cmds, server.port), strict=True):
        verdicts = r"\.venv/bin/arbiter (replay|validate|score)"  # 1: a renuncio was found
        allowed = {0, 1} if re.match(verdicts, cmd.text) else {0}
        assert status in allowed, f"{cmd.text}\nexited {status}:\n{output[:1500]}"
        for failure in ("Traceback", "curl: (", "No such file", "arbiter: "):
            assert failure not in output, f"{cmd.text}\n{output[:1500]}"
        check_output(cmd, output)


def test_the_readme_python_examples() -> None:
    scripts = blocks("python")
    assert scripts
    for script in scripts:
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        lines = script.splitlines()
        promised = [
            line.lstrip("# ").strip()
            for prev, line in pairwise(lines)
            if prev.startswith("print(") and line.startswith("#")
        ]
        assert promised, "the example promises no output"
        for text in promised:
            assert text in done.stdout, f"{text!r} not printed:\n{done.stdout}"


@pytest.mark.slow
def test_the_first_example_opens_the_page(server: Gunicorn) -> None:
    text = README.read_text()
    first = text.index("```sh")
    assert "## First example: the referee's page" in text[:first]
    assert text[first:].split("\n", 2)[1].startswith("make run")
    assert "http://127.0.0.1:8000/" in text[first : first + 600]
    answer = gunicorn_support.request(server.port, "GET", "/")
    assert answer.status == 200 and b'id="log-file"' in answer.body


def test_the_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(([^)#\s]+)[^)]*\)", README.read_text()):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), f"README links to {target}, which is not in the repo"


# --- the configuration table ------------------------------------------------------------------

_ROW = re.compile(r"^\| `([A-Z_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", re.M)
#: Where the package, its server configuration and its build read variables.
_READERS = ("arbiter", "deploy", "devtools", "Makefile", ".ci", "setup.py")


def _configuration_rows() -> dict[str, tuple[str, str]]:
    text = README.read_text()
    section = text[text.index("## Configuration") :]
    section = section[: section.index("\n## ", 1)]
    return {name: (fmt.strip(), default.strip()) for name, fmt, default, _ in _ROW.findall(section)}


def test_the_configuration_table_lists_every_variable_with_its_default() -> None:
    """One row per variable :class:`Settings` reads, none it does not, each with its default."""
    rows = _configuration_rows()
    wanted = [v for v in VARIABLES if v not in INTERNAL_VARIABLES]
    assert sorted(rows) == sorted(wanted)
    for f in dataclasses.fields(Settings):
        name = f.metadata["env"]
        if name in INTERNAL_VARIABLES or f.default in (None, ()):
            continue
        default = rows[name][1]
        if isinstance(f.default, bool):
            shown = str(f.default).lower()
        else:
            shown = f"{f.default:g}" if isinstance(f.default, float) else str(f.default)
        assert shown in default.replace("`", ""), (name, f.default, default)


def test_every_variable_the_project_reads_is_in_the_readme() -> None:
    """A variable read anywhere in the package, the server's configuration or the build is
    named in the README (the table, or the lines after it), unless the service sets it itself."""
    readme = README.read_text()
    found: set[str] = set()
    for reader in _READERS:
        path = ROOT / reader
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for file in files:
            if file.suffix in (".so", ".pyc") or "__pycache__" in file.parts:
                continue
            found |= set(
                re.findall(r"\bARBITER_[A-Z][A-Z_]*[A-Z]\b", file.read_text(errors="replace"))
            )
    missing = sorted(v for v in found - set(INTERNAL_VARIABLES) if f"`{v}" not in readme)
    assert missing == []
