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
            "{total} vectors: {passed} passed, {failed} failed, {unsupported} unsupported, "
            "{not_graded} not graded — {speed:.0f} vectors/s"
        ),
        "kit.failures": "Causes of failure (the smallest failing vector of each)",
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
            "{part}: {passed}/{total} passed, {failed} failed, {unsupported} unsupported, "
            "{not_graded} not graded"
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
            "{cause} — asked {ask} (game {game}; shrunk from {found} events in {found_deals} "
            "deals to {events} in {deals}: {ratio:.0%})"
        ),
        "kit.play.coverage": "Situations (questions asked, agreed):",
        "kit.play.no_ruleset": "no ruleset left: --rulesets names none the engine declares",
        "kit.play.vector": "The reproducer (a vector of the kit):",
        "kit.play.unsupported": "{count} answers were unsupported (not graded).",
        "kit.play.gave_up": (
            "The engine failed to answer {failures} times in a row: the run stopped."
        ),
        "kit.play.written": "{count} reproducers written to {path}",
        "kit.cause.refused": "refused a correct move",
        "kit.cause.allowed": "allowed a wrong move",
        "kit.cause.label": "wrong label",
        "kit.cause.outcome": "wrong outcome",
        "kit.cause.answer": "another kind of answer",
        "kit.cause.replay": "the replay parts",
        "kit.situation.lead": "on lead",
        "kit.situation.trumped": "trick won by a trump",
        "kit.situation.partner_wins": "the partner winning",
        "kit.situation.suit_led_wins": "trick won by the suit led",
        "kit.situation.over": "the deal over",
        "kit.situation.unreadable": "a move that cannot be read",
        "kit.situation.tie_last_trick": "a tie broken by the last trick",
        "kit.situation.tie_unbroken": "a tie left unbroken",
        "kit.situation.tied": "players tied on points",
        "kit.situation.last_trick_ten": "the last trick's ten deciding",
        "kit.situation.tute": "a tute",
        "kit.situation.over_100": "over 100 points",
        "kit.situation.middle": "cabrón's middle player",
        "kit.situation.no_tricks": "no tricks won",
        "kit.situation.trumped_above_below": (
            "a trumped trick, cards of the suit led above and below"
        ),
        "kit.situation.relief_by_trump": "partner relief by a trump",
        "kit.situation.cante_last_lead": "a cante at the last lead",
        "kit.situation.contrafallar": "contrafallar",
        "kit.shape.null": "null (no player to act: the deal or the match is over)",
        "kit.shape.list": "a list of {count} moves",
        "kit.shape.other": "{value}",
        "kit.shapes": "The referee says {referee}; the engine says {engine}.",
        "kit.untested": "Not tested for this engine:",
        "kit.untested.rulesets": "the rulesets {rulesets}: the engine does not declare them.",
        "kit.untested.notations": "the notation {notations}: the engine does not declare it.",
        "kit.untested.options": (
            "games with options other than the defaults: the engine plays the defaults only."
        ),
        "kit.untested.blocks": (
            "which obligation a renuncio breaks, the outcome a renuncio decides and every "
            "position after a renuncio: the engine refuses renuncios."
        ),
        "kit.untested.obligations": (
            "which obligation a renuncio breaks: the engine does not name it."
        ),
        "kit.untested.illegal_codes": "the code of an illegal move: the engine does not give it.",
        "kit.untested.declarations_automatic": (
            "declarations (cantes, tute, the exchange) as moves: the engine makes them itself."
        ),
        "kit.untested.declarations_none": (
            "declarations (cantes, tute, the exchange): the engine has none."
        ),
        "kit.untested.outcomes": (
            "the outcome of the deal a move ends: the engine does not give it."
        ),
        "kit.untested.replay": (
            "the adjudication of whole logs: the engine does not adjudicate them."
        ),
        "kit.untested.vectors": "({count} vectors not asked)",
        "kit.untested.partial": (
            "{count} parts of answers the engine left out (a null obligation, no code, no "
            "outcome): not graded."
        ),
        "kit.untested.nothing": "nothing: every part of every question was asked and graded.",
        "kit.untested.undeclared": (
            "the engine declared no capabilities (protocol 2): everything was asked."
        ),
    },
    "es": {
        "kit.title": "Conformidad de {engine}",
        "kit.rule": "regla",
        "kit.all": "todas",
        "kit.summary": (
            "{total} vectores: {passed} correctos, {failed} fallidos, {unsupported} sin soporte, "
            "{not_graded} sin nota — {speed:.0f} vectores/s"
        ),
        "kit.failures": "Causas de fallo (el vector fallido más pequeño de cada una)",
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
            "{part}: {passed}/{total} correctas, {failed} fallidas, {unsupported} sin soporte, "
            "{not_graded} sin nota"
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
            "{cause} — pregunta {ask} (partida {game}; reducido de {found} eventos en "
            "{found_deals} manos a {events} en {deals}: {ratio:.0%})"
        ),
        "kit.play.coverage": "Situaciones (preguntas hechas, de acuerdo):",
        "kit.play.no_ruleset": (
            "no queda modalidad: --rulesets no nombra ninguna que el motor declare"
        ),
        "kit.play.vector": "El caso mínimo (un vector del kit):",
        "kit.play.unsupported": "{count} respuestas sin soporte (sin nota).",
        "kit.play.gave_up": (
            "El motor no respondió {failures} veces seguidas: las partidas se detuvieron."
        ),
        "kit.play.written": "{count} casos mínimos escritos en {path}",
        "kit.cause.refused": "rechazó una jugada correcta",
        "kit.cause.allowed": "permitió una jugada incorrecta",
        "kit.cause.label": "etiqueta equivocada",
        "kit.cause.outcome": "resultado equivocado",
        "kit.cause.answer": "otra clase de respuesta",
        "kit.cause.replay": "la adjudicación difiere",
        "kit.situation.lead": "en la salida",
        "kit.situation.trumped": "baza ganada por un triunfo",
        "kit.situation.partner_wins": "el compañero ganando",
        "kit.situation.suit_led_wins": "baza ganada por el palo de salida",
        "kit.situation.over": "la mano terminada",
        "kit.situation.unreadable": "una jugada ilegible",
        "kit.situation.tie_last_trick": "un empate deshecho por la última baza",
        "kit.situation.tie_unbroken": "un empate sin deshacer",
        "kit.situation.tied": "jugadores empatados a puntos",
        "kit.situation.last_trick_ten": "las diez de últimas deciden",
        "kit.situation.tute": "un tute",
        "kit.situation.over_100": "más de 100 puntos",
        "kit.situation.middle": "el jugador del medio del cabrón",
        "kit.situation.no_tricks": "ninguna baza ganada",
        "kit.situation.trumped_above_below": (
            "baza fallada, cartas del palo de salida por encima y por debajo"
        ),
        "kit.situation.relief_by_trump": "alivio del compañero con un triunfo",
        "kit.situation.cante_last_lead": "un cante en la última salida",
        "kit.situation.contrafallar": "contrafallar",
        "kit.shape.null": "null (nadie juega: la mano o la partida terminó)",
        "kit.shape.list": "una lista de {count} jugadas",
        "kit.shape.other": "{value}",
        "kit.shapes": "El árbitro dice {referee}; el motor dice {engine}.",
        "kit.untested": "Sin probar para este motor:",
        "kit.untested.rulesets": "las modalidades {rulesets}: el motor no las declara.",
        "kit.untested.notations": "la notación {notations}: el motor no la declara.",
        "kit.untested.options": (
            "partidas con opciones distintas de las de serie: el motor solo juega las de serie."
        ),
        "kit.untested.blocks": (
            "qué obligación rompe un renuncio, el resultado que decide un renuncio y toda "
            "posición tras un renuncio: el motor rechaza los renuncios."
        ),
        "kit.untested.obligations": "qué obligación rompe un renuncio: el motor no la nombra.",
        "kit.untested.illegal_codes": "el código de una jugada ilegal: el motor no lo da.",
        "kit.untested.declarations_automatic": (
            "las declaraciones (cantes, tute, el cambio) como jugadas: el motor las hace solo."
        ),
        "kit.untested.declarations_none": (
            "las declaraciones (cantes, tute, el cambio): el motor no tiene."
        ),
        "kit.untested.outcomes": (
            "el resultado de la mano que termina una jugada: el motor no lo da."
        ),
        "kit.untested.replay": "la adjudicación de registros enteros: el motor no los adjudica.",
        "kit.untested.vectors": "({count} vectores sin preguntar)",
        "kit.untested.partial": (
            "{count} partes de respuestas que el motor dejó fuera (obligación null, sin "
            "código, sin resultado): sin nota."
        ),
        "kit.untested.nothing": "nada: se preguntó y se calificó cada parte de cada pregunta.",
        "kit.untested.undeclared": (
            "el motor no declaró capacidades (protocolo 2): se preguntó todo."
        ),
    },
}
