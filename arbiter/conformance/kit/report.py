"""The checker's report: a table of rules by rulesets, the smallest failure of each failing rule
explained in the referee's words (es/en), and the same as JSON.

An explanation quotes the referee (:mod:`arbiter.report`'s messages, through the public API):
its verdict on the move, on each move the engine allowed or left out, the message nearest to
the first field where the replays part, or why it refuses the log. The table is drawn with
`rich <https://rich.readthedocs.io>`_, or as plain text (``--plain``) for logs and pipes that
want no box-drawing characters.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final, TextIO

import arbiter
from arbiter.conformance.kit.capabilities import (
    Capabilities,
    untested,
    untested_fields,
)
from arbiter.conformance.kit.checker import GIVE_UP_AFTER, Run
from arbiter.conformance.kit.engines import Trouble
from arbiter.conformance.kit.grading import Difference, Grade, Part, Result, move_key
from arbiter.conformance.kit.protocol import KIT_VERSION, Ask, Family, Vector, dumps, family_of
from arbiter.conformance.kit.sampling import CAUSES, Signature
from arbiter.engine.errors import ArbiterError
from arbiter.i18n import Lang, text

#: How many moves an explanation quotes, and how long a JSON value it shows.
QUOTED_MOVES: Final = 3
SHOWN: Final = 240


def words(lang: Lang, key: str, **fields: object) -> str:
    """The report's words (``kit.`` + key) in ``lang``."""
    return text(lang, f"kit.{key}", **fields)


def shown(value: Any) -> str:
    text = dumps(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


# --- explanations ---------------------------------------------------------------------------------


def _verdict_message(log: Any, move: Any, lang: Lang) -> str:
    try:
        message: str = arbiter.validate(log, move).to_dict(lang)["message"]
    except ArbiterError as err:
        return str(err)
    return message


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _nearest_message(body: Mapping[str, Any], path: str) -> str | None:
    """The message of the deepest object along ``path`` in a replay body (or the illegal
    event's, or the deal's outcome's)."""
    node: Any = body
    found = None
    for name, index in _STEP.findall(path.removeprefix("replay").lstrip(".")):
        try:
            node = node[int(index)] if index else node[name]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and isinstance(node.get("message"), str):
            found = node["message"]
    if found is None and body.get("illegal"):
        found = body["illegal"]["message"]
    if found is None:
        outcomes = [d["outcome"]["message"] for d in body.get("deals", []) if d.get("outcome")]
        found = outcomes[-1] if outcomes else None
    return found


def explain(result: Result, lang: Lang) -> list[str]:
    """Why the engine's answer is not the referee's, in the referee's words."""
    vector = result.vector
    if result.trouble is not None:
        return [words(lang, f"trouble.{result.trouble.value}", detail=result.detail)]
    said = result.said or {}
    expect = vector.expect
    if "error" in expect:
        try:
            arbiter.replay(vector.log)
        except ArbiterError as err:
            return [words(lang, "refused", detail=str(err))]
    if "error" in said:
        return [words(lang, "accepted")]
    if vector.ask is Ask.VERDICT:
        message = _verdict_message(vector.log, vector.move, lang)
        lines = [words(lang, "referee", message=message)]
        if result.parts.get(Part.OUTCOME) is Grade.FAIL:
            lines.append(words(lang, "referee", message=_outcome_message(vector, lang)))
        return lines
    if vector.ask is Ask.LEGAL_MOVES:
        return _moves_apart(vector.log, expect["legal_moves"], said.get("legal_moves"), lang)
    lines = []
    if result.difference is not None:
        lines.append(words(lang, "field", path=result.difference.path))
        body = arbiter.replay(vector.log).to_dict(lang)
        nearest = _nearest_message(body, result.difference.path)
        if nearest:
            lines.append(words(lang, "referee", message=nearest))
    return lines


def _outcome_message(vector: Vector, lang: Lang) -> str:
    """The referee's words on the outcome of the deal the vector's move ends."""
    log = vector.log
    *before, last = log["deals"]
    ended = {**log, "deals": [*before, {**last, "events": [*last["events"], vector.move]}]}
    outcome = arbiter.replay(ended).to_dict(lang)["deals"][-1]["outcome"]
    return str(outcome["message"]) if outcome else ""


def _shape(moves: Any, lang: Lang) -> str:
    """What an answer of legal moves is: null (no player to act), a list, or something else."""
    if moves is None:
        return words(lang, "shape.null")
    if isinstance(moves, list):
        return words(lang, "shape.list", count=len(moves))
    return words(lang, "shape.other", value=shown(moves))


def _moves_apart(log: Any, expected: list[Any] | None, said: Any, lang: Lang) -> list[str]:
    if expected is None or not isinstance(said, list):  # each says what it says
        referee, engine = _shape(expected, lang), _shape(said, lang)
        return [words(lang, "shapes", referee=referee, engine=engine)]
    wanted = {move_key(m): m for m in expected}
    given = {move_key(m): m for m in said}
    lines = []
    for key in [k for k in given if k not in wanted][:QUOTED_MOVES]:
        message = _verdict_message(log, given[key], lang)
        lines.append(words(lang, "allowed_too", message=message))
    for key in [k for k in wanted if k not in given][:QUOTED_MOVES]:
        message = _verdict_message(log, wanted[key], lang)
        lines.append(words(lang, "left_out", message=message))
    return lines


# --- the report -----------------------------------------------------------------------------------


def _cell(counts: Counter[Grade] | None) -> tuple[str, str]:
    """A table cell's text and style."""
    if not counts:
        return "·", "dim"
    total = sum(counts.values())
    text = f"{counts[Grade.PASS]}/{total}"
    if counts[Grade.FAIL]:
        return f"{text} ✗{counts[Grade.FAIL]}", "bold red"
    if counts[Grade.UNSUPPORTED]:
        return f"{text} ?{counts[Grade.UNSUPPORTED]}", "yellow"
    return text, "green"


#: Each family's place in the table, families first in their order, then rules of none.
_FAMILIES: Final = {family: place for place, family in enumerate(Family)}


def _family_place(rule: str) -> int:
    family = family_of(rule)
    return len(_FAMILIES) if family is None else _FAMILIES[family]


def table_rows(run: Run) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """The rulesets (columns) and, per rule and a last line for all, the cells."""
    rulesets = list(dict.fromkeys(r.vector.ruleset for r in run.results))
    met = dict.fromkeys(r.vector.rule for r in run.results)  # each ruleset's in its file's order
    rules = sorted(met, key=_family_place)
    cells = run.by_cell()
    rows = [[(rule, "")] + [_cell(cells.get((rule, rs))) for rs in rulesets] for rule in rules]
    totals = run.by_ruleset()
    return rulesets, [*rows, [("", "")] + [_cell(totals.get(rs)) for rs in rulesets]]


def summary(run: Run, lang: Lang) -> str:
    return words(
        lang,
        "summary",
        total=len(run.results),
        passed=run.count(Grade.PASS),
        failed=run.count(Grade.FAIL),
        unsupported=run.count(Grade.UNSUPPORTED),
        not_graded=run.count(Grade.NOT_GRADED),
        speed=run.speed,
    )


def gave_up(run: Run, lang: Lang) -> str | None:
    """What made the checker stop asking the engine, if it did."""
    for n, result in enumerate(run.results):
        if result.trouble is Trouble.GAVE_UP and n > 0:
            left = sum(1 for r in run.results[n:] if r.trouble is Trouble.GAVE_UP)
            why = " ".join(explain(run.results[n - 1], lang))
            return words(lang, "gave_up", failures=GIVE_UP_AFTER, left=left, why=why)
    return None


def cause_text(cause: Signature, lang: Lang) -> str:
    """A cause in words: ``montar · refused a correct move · a trick won by a trump``."""
    how = words(lang, f"cause.{cause.how}") if cause.how in CAUSES else cause.how
    situation = words(lang, f"situation.{cause.situation}") if cause.situation else ""
    return " · ".join(part for part in (cause.subject, how, situation) if part)


def untested_lines(
    caps: Capabilities, left_out: Counter[str], not_graded: int, lang: Lang
) -> list[str]:
    """What was not tested for this engine, and why: what its capabilities leave out (and how
    many vectors each kept from being asked), and the parts of answers left out."""
    fields = untested_fields(caps)
    lines = []
    for key in dict.fromkeys([*untested(caps), *left_out]):
        line = words(lang, f"untested.{key}", **fields)
        if left_out[key]:
            line += " " + words(lang, "untested.vectors", count=left_out[key])
        lines.append(f"- {line}")
    if not_graded:
        lines.append("- " + words(lang, "untested.partial", count=not_graded))
    if not lines:
        lines.append("- " + words(lang, "untested.nothing"))
    if not caps.declared:
        lines.append("- " + words(lang, "untested.undeclared"))
    return lines


def untested_json(caps: Capabilities, left_out: Counter[str], not_graded: int) -> dict[str, Any]:
    return {
        "capabilities": {**caps.to_json(), "declared": caps.declared},
        "untested": untested(caps),
        "vectors_not_asked": dict(left_out),
        "parts_not_graded": not_graded,
    }


def _failure_lines(run: Run, lang: Lang) -> list[tuple[str, list[str]]]:
    out = []
    for result, rulesets in run.smallest_failures():
        v = result.vector
        head = words(
            lang,
            "vector",
            rule=cause_text(run.cause(result), lang),
            rulesets=", ".join(rulesets),
            id=v.id,
            events=v.events,
            ask=v.ask.value,
        )
        out.append((head, failure_body(result, lang)))
    return out


def failure_body(result: Result, lang: Lang) -> list[str]:
    """What a failure shows: the expected answer, the engine's, the parts that failed and why,
    in the referee's words."""
    body = [f"{words(lang, 'expected')}: {shown(result.vector.expect)}"]
    if result.trouble is None:
        said = {k: v for k, v in (result.said or {}).items() if k != "id"}
        body.append(f"{words(lang, 'said')}: {shown(said)}")
        failed = [
            words(lang, f"part.{p.value}") for p, g in result.parts.items() if g is Grade.FAIL
        ]
        if failed:
            body.append(words(lang, "failed_parts", parts="; ".join(failed)))
    return body + explain(result, lang)


def grade_lines(run: Run, lang: Lang) -> list[str]:
    """Per part of the answers (plays, declarations, verdict kind, label...), its grades."""
    lines = []
    for part, counts in run.by_part().items():
        lines.append(
            words(
                lang,
                "grade_line",
                part=words(lang, f"part.{part.value}"),
                passed=counts[Grade.PASS],
                total=sum(counts.values()),
                failed=counts[Grade.FAIL],
                unsupported=counts[Grade.UNSUPPORTED],
                not_graded=counts[Grade.NOT_GRADED],
            )
        )
    return lines


def troubles_line(troubles: Counter[Trouble], restarts: int, lang: Lang) -> str | None:
    """The engine's troubles, named: timeouts, exits, unreadable answers, restarts."""
    if not troubles and not restarts:
        return None
    named = [words(lang, f"trouble_name.{t.value}", count=n) for t, n in troubles.items()]
    return words(lang, "troubles", troubles=", ".join(named) or "0", restarts=restarts)


def _tail(run: Run, lang: Lang) -> list[tuple[str, str]]:
    """What follows the table: (text, style) lines, a blank text for a blank line."""
    lines: list[tuple[str, str]] = [("", ""), (words(lang, "grades"), "bold")]
    lines += [(line, "") for line in grade_lines(run, lang)]
    failures = _failure_lines(run, lang)
    if failures:
        lines += [("", ""), (words(lang, "failures"), "bold")]
    for head, body in failures:
        lines += [("", ""), (f"✗ {head}", "bold red")]
        lines += [(f"  {line}", "") for line in body]
    if len(run.failures()) > len(failures):
        lines += [("", ""), (words(lang, "all_failures", count=len(run.failures())), "")]
    trouble = troubles_line(run.troubles(), run.restarts, lang)
    stopped = gave_up(run, lang)
    for line in (trouble, stopped):
        if line:
            lines += [("", ""), (line, "bold red")]
    lines += [("", ""), (summary(run, lang), ""), ("", ""), (words(lang, "untested"), "bold")]
    return lines + [
        (line, "") for line in untested_lines(run.caps, run.left_out, run.not_graded(), lang)
    ]


def render(run: Run, out: TextIO, lang: Lang, rich_ok: bool = True) -> None:
    """The report as a table (rich's unless ``rich_ok`` is false), then the grades, the
    failures and the engine's troubles."""
    if not rich_ok:
        _render_plain(run, out, lang)
        return
    from rich.table import Table

    rulesets, rows = table_rows(run)
    table = Table(title=words(lang, "title", engine=run.engine), show_lines=False)
    table.add_column(words(lang, "rule"))
    for name in rulesets:
        table.add_column(name, justify="right")
    for row in rows:
        label = row[0][0] or words(lang, "all")
        table.add_row(label, *(f"[{style}]{text}[/]" for text, style in row[1:]))
    write_rich(out, table, _tail(run, lang))


def write_rich(out: TextIO, table: Any, lines: list[tuple[str, str]]) -> None:
    """A rich table (or None) and styled lines, drawn into a buffer, then written: a reader
    that stops early is the caller's business."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=120, highlight=False, force_terminal=out.isatty())
    if table is not None:
        console.print(table)
    for line, style in lines:
        console.print(line, style=style or None, markup=False)
    out.write(buffer.getvalue())


def _render_plain(run: Run, out: TextIO, lang: Lang) -> None:
    rulesets, rows = table_rows(run)
    first = max([len(words(lang, "rule"))] + [len(r[0][0]) for r in rows])
    widths = [max(len(rs), *(len(r[i + 1][0]) for r in rows)) for i, rs in enumerate(rulesets)]
    out.write(words(lang, "title", engine=run.engine) + "\n")
    out.write(words(lang, "rule").ljust(first))
    out.write("".join("  " + rs.rjust(w) for rs, w in zip(rulesets, widths, strict=True)))
    out.write("\n")
    for row in rows:
        out.write((row[0][0] or words(lang, "all")).ljust(first))
        cells = [text for text, _ in row[1:]]
        out.write("".join("  " + c.rjust(w) for c, w in zip(cells, widths, strict=True)) + "\n")
    out.write("".join(text + "\n" for text, _ in _tail(run, lang)))


def _counts(counts: Counter[Grade]) -> dict[str, int]:
    return {grade.value: counts[grade] for grade in Grade}


def result_json(result: Result, lang: Lang, protocol: int, cause: Signature) -> dict[str, Any]:
    """One failing vector as the JSON report lists it."""
    from arbiter.conformance.kit.checker import question_of

    v = result.vector
    return {
        "rule": v.rule,
        "cause": str(cause),
        "id": v.id,
        "ruleset": v.ruleset,
        "events": v.events,
        "ask": v.ask.value,
        "question": question_of(v, protocol),
        "expected": v.expect,
        "said": result.said,
        "parts": {part.value: grade.value for part, grade in result.parts.items()},
        "trouble": None if result.trouble is None else result.trouble.value,
        "detail": result.detail,
        "difference": _difference(result.difference),
        "explanation": explain(result, lang),
    }


def report(run: Run, lang: Lang) -> dict[str, Any]:
    """The report as JSON: totals, per ruleset, per rule and ruleset, per part of the answers,
    the engine's troubles, and every failing vector (the smallest of each rule named)."""
    rules: dict[str, dict[str, dict[str, int]]] = {}
    for (rule, ruleset), counts in run.by_cell().items():
        rules.setdefault(rule, {})[ruleset] = _counts(counts)
    smallest = {
        str(run.cause(result)): {"id": result.vector.id, "rulesets": rulesets}
        for result, rulesets in run.smallest_failures()
    }
    troubles: Counter[Trouble] = run.troubles()
    return {
        "kit_version": KIT_VERSION,
        "protocol": run.protocol,
        "engine": run.engine,
        "vectors": len(run.results),
        **_counts(Counter(r.grade for r in run.results)),
        "elapsed_seconds": round(run.elapsed, 3),
        "vectors_per_second": round(run.speed, 1),
        "troubles": {t.value: n for t, n in troubles.items()},
        "restarts": run.restarts,
        "rulesets": {rs: _counts(c) for rs, c in run.by_ruleset().items()},
        "rules": rules,
        "grades": {part.value: _counts(c) for part, c in run.by_part().items()},
        "smallest_failures": smallest,
        "failures": [result_json(r, lang, run.protocol, run.cause(r)) for r in run.failures()],
        **untested_json(run.caps, run.left_out, run.not_graded()),
    }


def _difference(found: Difference | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"path": found.path, "expected": found.expected, "said": found.said}


def write_json(run: Run, path: str, lang: Lang) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump(report(run, lang), out, ensure_ascii=False, indent=2)
        out.write("\n")


__all__: Sequence[str] = ("explain", "render", "report", "summary", "write_json")
