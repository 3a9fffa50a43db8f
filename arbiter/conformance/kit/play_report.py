"""Play-testing's report: each disagreement shrunk to a reproducer, explained in the referee's
words (es/en), the reproducer written as a vector of the kit, the engine's troubles; and the
same as JSON.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, TextIO

from arbiter.conformance.kit.checker import GIVE_UP_AFTER
from arbiter.conformance.kit.play import Finding, PlayRun
from arbiter.conformance.kit.report import (
    cause_text,
    failure_body,
    troubles_line,
    untested_json,
    untested_lines,
    words,
    write_rich,
)
from arbiter.conformance.kit.situations import SITUATIONS
from arbiter.i18n import Lang


def finding_lines(found: Finding, lang: Lang) -> list[tuple[str, str]]:
    vector = found.vector
    head = words(
        lang,
        "play.finding",
        cause=cause_text(found.signature, lang),
        ask=vector.ask.value,
        game=found.game,
        found=found.found.events,
        found_deals=len(found.found.log["deals"]),
        events=vector.events,
        deals=len(vector.log["deals"]),
        ratio=found.ratio,
    )
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
    lines += [("", ""), *[(line, "") for line in coverage_lines(run, lang)]]
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
    lines += [("", ""), (summary, ""), ("", ""), (words(lang, "untested"), "bold")]
    untold = untested_lines(run.plan.caps, Counter(), run.not_graded, lang)
    return lines + [(line, "") for line in untold]


def coverage_lines(run: PlayRun, lang: Lang) -> list[str]:
    """The situation coverage table: per situation, the questions asked and agreed on."""
    lines = [words(lang, "play.coverage")]
    width = max(len(words(lang, f"situation.{s}")) for s in SITUATIONS)
    for name in SITUATIONS:
        asked, agreed = run.coverage.get(name, (0, 0))
        label = words(lang, f"situation.{name}").ljust(width)
        lines.append(f"  {label}  {asked:>7}  {agreed:>7}")
    return lines


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
        "not_graded": run.not_graded,
        "coverage": {
            name: dict(zip(("asked", "agreed"), run.coverage.get(name, (0, 0)), strict=True))
            for name in SITUATIONS
        },
        "elapsed_seconds": round(run.elapsed, 3),
        "positions_per_second": round(run.speed, 1),
        "troubles": {t.value: n for t, n in run.troubles.items()},
        "restarts": run.restarts,
        "gave_up": run.gave_up,
        "findings": [
            {
                "cause": str(found.signature),
                "signature": found.signature._asdict(),
                "game": found.game,
                "events_found": found.found.events,
                "deals_found": len(found.found.log["deals"]),
                "events": found.vector.events,
                "deals": len(found.vector.log["deals"]),
                "shrink_ratio": round(found.ratio, 3),
                "vector": json.loads(found.vector.to_line()),
                "said": found.said,
                "first_seen": json.loads(found.found.to_line()),
                "explanation": failure_body(found.result, lang),
            }
            for found in run.findings
        ],
        **untested_json(run.plan.caps, Counter(), run.not_graded),
    }


def write_play_json(run: PlayRun, path: str, lang: Lang) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump(play_report(run, lang), out, ensure_ascii=False, indent=2)
        out.write("\n")
