"""The conformance kit's words (``kit.`` keys): the checker's report, es and en."""

from __future__ import annotations

from typing import Final, Literal

Lang = Literal["en", "es"]

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
    },
}
