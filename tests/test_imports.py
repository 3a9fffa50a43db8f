"""The package's layout tells the truth: no import cycle among its modules, the engine imports
nothing of the package but itself, the adapters import the contract instead of each other, and
nothing installed imports the project's own tools (devtools/: the vectors' generator...)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.api_support import ROOT

PACKAGE = ROOT / "arbiter"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports_at_load(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is loaded: at its top level (in ``try`` and ``if``
    blocks too), not in functions and not under ``TYPE_CHECKING``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return found


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    names: set[str] = set()
    if isinstance(node, ast.ImportFrom):
        if node.module is None or node.level:
            return names
        for alias in node.names:
            sub = f"{node.module}.{alias.name}"
            names.add(sub if sub in MODULES else node.module)
    else:
        names |= {alias.name for alias in node.names}
    # a module's own package (its __init__ runs first in any case) is no edge of a cycle
    return {n for n in names if n in MODULES and n != module and not module.startswith(n + ".")}


def graph(*, everywhere: bool = False) -> dict[str, set[str]]:
    """Module → the package's modules it imports (at load, or ``everywhere`` in it)."""
    out: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = (
            [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
            if everywhere
            else _imports_at_load(tree)
        )
        out[module] = set().union(*(_targets(module, n) for n in nodes))
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return found


def test_no_module_imports_itself_back_at_load() -> None:
    assert cycles(graph()) == []


def test_the_engine_imports_nothing_of_the_package_but_itself() -> None:
    outside = {
        (module, target)
        for module, targets in graph(everywhere=True).items()
        if module.startswith("arbiter.engine")
        for target in targets
        if not target.startswith("arbiter.engine")
    }
    assert outside == set()


def test_adapters_do_not_lean_on_each_other() -> None:
    """The HTTP adapter, the page and the command meet in the service, the contract, the words
    and the archives' runner, never in each other (anywhere in their code) — but for the app
    factory, which mounts the page."""
    adapters = ("arbiter.api", "arbiter.web", "arbiter.commands")
    edges = graph(everywhere=True)

    def adapter(name: str) -> str | None:
        return next((a for a in adapters if name == a or name.startswith(a + ".")), None)

    allowed = {("arbiter.api", "arbiter.web")}
    leaning = {
        (module, target)
        for module, targets in edges.items()
        for target in targets
        if adapter(module)
        and adapter(target)
        and adapter(module) != adapter(target)
        and (adapter(module), adapter(target)) not in allowed
    }
    assert leaning == set()


def _imported(tree: ast.Module) -> set[str]:
    """Every module a tree imports, anywhere in it (absolute imports)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_nothing_installed_imports_the_project_s_tools() -> None:
    """The package (what a wheel installs) never imports devtools/ — the conformance vectors'
    generator lives there, and the installed kit reads the published set instead — nor the
    tests or the benchmarks."""
    leaning = {
        (module, name)
        for module, path in MODULES.items()
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")))
        if name.split(".")[0] in ("devtools", "tests", "benchmarks")
    }
    assert leaning == set()
    # the finder sees both forms, in a function too
    sample = "import devtools.vectors\ndef f():\n    from devtools.vectors import export\n"
    assert _imported(ast.parse(sample)) == {"devtools.vectors"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
