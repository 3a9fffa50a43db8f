"""Play-testing's report: each disagreement shrunk to a reproducer, explained in the referee's
words (es/en), the reproducer written as a vector of the kit, the engine's troubles; and the
same as JSON.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from arbiter.conformance.kit.checker import GIVE_UP_AFTER
from arbiter.conformance.kit.play import Finding, PlayRun
from arbiter.conformance.kit.report import failure_body, troubles_line, words, write_rich
from arbiter.i18n import Lang


def finding_lines(found: Finding, lang: Lang) -> list[tuple[str, str]]:
    vector = found.vector
    shrunk = {"events": vector.events, "deals": len(vector.log["deals"])}
    head = words(lang, "play.finding", **found.signature._asdict(), game=found.game, **shrunk,
                 found=found.found.events)  # fmt: skip
    lines = [("", ""), (f"✗ {head}", "bold red")]
    lines += [(f"  {line}", "") for line in failure_body(found.result, lang)]
    lines += [(f"  {words(lang, 'play.vector')}", ""), (f"  {vector.to_line()}", "dim")]
    return lines


def lines_of(run: PlayRun, lang: Lang) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = [
        (words(lang, "play.title", engine=run.engine, seed=run.plan.seed), "bold")
    ]
    for found in run.findings:
        lines += finding_lines(found, lang)
    if not run.findings and not run.troubles:
        lines += [("", ""), (words(lang, "play.none"), "green")]
    if run.unsupported:
        lines += [("", ""), (words(lang, "play.unsupported", count=run.unsupported), "yellow")]
    trouble = troubles_line(run.troubles, run.restarts, lang)
    if trouble:
        lines += [("", ""), (trouble, "bold red")]
    if run.gave_up:
        lines.append((words(lang, "play.gave_up", failures=GIVE_UP_AFTER), "bold red"))
    summary = words(
        lang,
        "play.summary",
        games=run.games,
        positions=run.positions,
        questions=run.questions,
        seconds=run.elapsed,
        speed=run.speed,
        findings=len(run.findings),
    )
    return [*lines, ("", ""), (summary, "")]


def render_play(run: PlayRun, out: TextIO, lang: Lang, rich_ok: bool = True) -> None:
    lines = lines_of(run, lang)
    if rich_ok:
        write_rich(out, None, lines)
    else:
        out.write("".join(text + "\n" for text, _ in lines))


def play_report(run: PlayRun, lang: Lang) -> dict[str, Any]:
    """The report as JSON: the run's counts and bounds, the troubles, and every disagreement
    with its reproducer (a vector), the question first seen and the explanation."""
    plan = run.plan
    return {
        "engine": run.engine,
        "seed": plan.seed,
        "protocol": plan.protocol,
        "rulesets": list(plan.rulesets),
        "options_random": plan.options_random,
        "games": run.games,
        "positions": run.positions,
        "questions": run.questions,
        "unsupported": run.unsupported,
        "elapsed_seconds": round(run.elapsed, 3),
        "positions_per_second": round(run.speed, 1),
        "troubles": {t.value: n for t, n in run.troubles.items()},
        "restarts": run.restarts,
        "gave_up": run.gave_up,
        "findings": [
            {
                "signature": found.signature._asdict(),
                "game": found.game,
                "vector": json.loads(found.vector.to_line()),
                "said": found.said,
                "first_seen": json.loads(found.found.to_line()),
                "explanation": failure_body(found.result, lang),
            }
            for found in run.findings
        ],
    }


def write_play_json(run: PlayRun, path: str, lang: Lang) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump(play_report(run, lang), out, ensure_ascii=False, indent=2)
        out.write("\n")
