"""The conformance kit's words (``kit.`` keys): the checker's and play-testing's reports, es
and en."""

from __future__ import annotations

from typing import Final

from arbiter.words.lang import Lang

WORDS: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "kit.title": "Conformance of {engine}",
        "kit.rule": "rule",
        "kit.all": "all",
        "kit.summary": (
            "{total} vectors: {passed} passed, {failed} failed, {unsupported} unsupported — "
            "{speed:.0f} vectors/s"
        ),
        "kit.failures": "Failing rules (the smallest failing vector of each)",
        "kit.vector": "{rule} — in {rulesets}; vector {id} (events: {events}; ask: {ask})",
        "kit.expected": "expected",
        "kit.said": "the engine said",
        "kit.referee": "The referee: {message}",
        "kit.allowed_too": "The engine allows a move the referee does not: {message}",
        "kit.left_out": "The engine leaves out a move the referee allows: {message}",
        "kit.refused": "The referee refuses this log: {detail}",
        "kit.accepted": "The referee accepts this log, and the engine refused it.",
        "kit.field": "At {path} the replays part.",
        "kit.trouble.timeout": "No answer within {detail}.",
        "kit.trouble.exited": "The engine ended ({detail}).",
        "kit.trouble.garbage": "Its answer is not a JSON object: {detail}",
        "kit.trouble.desync": "It answered another vector ({detail}).",
        "kit.trouble.unreachable": "The service cannot be reached: {detail}",
        "kit.trouble.status": "The service answered {detail}",
        "kit.trouble.gave_up": "Not asked: the engine had failed to answer {detail}.",
        "kit.gave_up": (
            "The checker gave up on the engine after {failures} failures to answer in a row: "
            "{left} vectors were not asked. The last failure: {why}"
        ),
        "kit.grades": "Grades of the answers, part by part",
        "kit.grade_line": (
            "{part}: {passed}/{total} passed, {failed} failed, {unsupported} unsupported"
        ),
        "kit.part.legal_moves.plays": "legal moves, the plays",
        "kit.part.legal_moves.declarations": "legal moves, the declarations",
        "kit.part.verdict.kind": "verdict, its kind (ok, renuncio, illegal)",
        "kit.part.verdict.label": "verdict, its obligation or code",
        "kit.part.verdict.outcome": "verdict, the outcome of the deal it ends",
        "kit.part.replay": "replay",
        "kit.part.refusal": "refusal",
        "kit.failed_parts": "Failed: {parts}.",
        "kit.all_failures": "{count} failing vectors in all (--json FILE lists every one).",
        "kit.troubles": "The engine's troubles: {troubles}; it was started again {restarts} times.",
        "kit.trouble_name.timeout": "{count} without an answer in time",
        "kit.trouble_name.exited": "{count} ended",
        "kit.trouble_name.garbage": "{count} unreadable answers",
        "kit.trouble_name.desync": "{count} answers to another question",
        "kit.trouble_name.unreachable": "{count} unreachable",
        "kit.trouble_name.status": "{count} unexpected statuses",
        "kit.trouble_name.gave_up": "{count} not asked",
        "kit.play.title": "Play-testing {engine} (seed {seed})",
        "kit.play.summary": (
            "{games} games, {positions} positions ({questions} questions) in {seconds:.1f} s — "
            "{speed:.0f} positions/s; {findings} disagreements"
        ),
        "kit.play.none": "No disagreement with the referee.",
        "kit.play.finding": (
            "{rule} — asked {ask}: the referee says {referee}, the engine {engine} (game {game}; "
            "shrunk from {found} events to {events}; deals: {deals})"
        ),
        "kit.play.vector": "The reproducer (a vector of the kit):",
        "kit.play.unsupported": "{count} answers were unsupported (not graded).",
        "kit.play.gave_up": (
            "The engine failed to answer {failures} times in a row: the run stopped."
        ),
        "kit.play.written": "{count} reproducers written to {path}",
    },
    "es": {
        "kit.title": "Conformidad de {engine}",
        "kit.rule": "regla",
        "kit.all": "todas",
        "kit.summary": (
            "{total} vectores: {passed} correctos, {failed} fallidos, {unsupported} sin soporte — "
            "{speed:.0f} vectores/s"
        ),
        "kit.failures": "Reglas que fallan (el vector fallido más pequeño de cada una)",
        "kit.vector": "{rule} — en {rulesets}; vector {id} (eventos: {events}; pregunta: {ask})",
        "kit.expected": "se esperaba",
        "kit.said": "el motor dijo",
        "kit.referee": "El árbitro: {message}",
        "kit.allowed_too": "El motor permite una jugada que el árbitro no permite: {message}",
        "kit.left_out": "El motor omite una jugada que el árbitro permite: {message}",
        "kit.refused": "El árbitro rechaza este registro: {detail}",
        "kit.accepted": "El árbitro acepta este registro, y el motor lo rechazó.",
        "kit.field": "En {path} las adjudicaciones difieren.",
        "kit.trouble.timeout": "Sin respuesta en {detail}.",
        "kit.trouble.exited": "El motor terminó ({detail}).",
        "kit.trouble.garbage": "Su respuesta no es un objeto JSON: {detail}",
        "kit.trouble.desync": "Respondió a otro vector ({detail}).",
        "kit.trouble.unreachable": "No se puede contactar con el servicio: {detail}",
        "kit.trouble.status": "El servicio respondió {detail}",
        "kit.trouble.gave_up": "No preguntado: el motor ya había fallado {detail}.",
        "kit.gave_up": (
            "El comprobador dejó de preguntar al motor tras {failures} fallos seguidos sin "
            "respuesta: {left} vectores quedaron sin preguntar. El último fallo: {why}"
        ),
        "kit.grades": "Notas de las respuestas, parte por parte",
        "kit.grade_line": (
            "{part}: {passed}/{total} correctas, {failed} fallidas, {unsupported} sin soporte"
        ),
        "kit.part.legal_moves.plays": "jugadas legales, las cartas",
        "kit.part.legal_moves.declarations": "jugadas legales, las declaraciones",
        "kit.part.verdict.kind": "veredicto, su clase (ok, renuncio, ilegal)",
        "kit.part.verdict.label": "veredicto, su obligación o código",
        "kit.part.verdict.outcome": "veredicto, el resultado de la mano que termina",
        "kit.part.replay": "adjudicación",
        "kit.part.refusal": "rechazo",
        "kit.failed_parts": "Fallan: {parts}.",
        "kit.all_failures": "{count} vectores fallidos en total (--json FICHERO los lista todos).",
        "kit.troubles": "Problemas del motor: {troubles}; se arrancó de nuevo {restarts} veces.",
        "kit.trouble_name.timeout": "{count} sin respuesta a tiempo",
        "kit.trouble_name.exited": "{count} terminado",
        "kit.trouble_name.garbage": "{count} respuestas ilegibles",
        "kit.trouble_name.desync": "{count} respuestas a otra pregunta",
        "kit.trouble_name.unreachable": "{count} inalcanzable",
        "kit.trouble_name.status": "{count} estados inesperados",
        "kit.trouble_name.gave_up": "{count} sin preguntar",
        "kit.play.title": "Partidas de prueba contra {engine} (semilla {seed})",
        "kit.play.summary": (
            "{games} partidas, {positions} posiciones ({questions} preguntas) en {seconds:.1f} s — "
            "{speed:.0f} posiciones/s; {findings} desacuerdos"
        ),
        "kit.play.none": "Ningún desacuerdo con el árbitro.",
        "kit.play.finding": (
            "{rule} — pregunta {ask}: el árbitro dice {referee}, el motor {engine} (partida "
            "{game}; reducido de {found} eventos a {events}; manos: {deals})"
        ),
        "kit.play.vector": "El caso mínimo (un vector del kit):",
        "kit.play.unsupported": "{count} respuestas sin soporte (sin nota).",
        "kit.play.gave_up": (
            "El motor no respondió {failures} veces seguidas: las partidas se detuvieron."
        ),
        "kit.play.written": "{count} casos mínimos escritos en {path}",
    },
}
