"""The referee's words: every ``message`` of the API's answers (renuncios, illegal events,
outcomes, verdicts) and the rulesets' titles, in Spanish and English, and the words that name
cards and suits.

Keys have no area prefix (``renuncio.asistir``, ``reason.points``...); :mod:`arbiter.i18n`
looks them up. Card names take their Spanish gender (la sota, el rey) and French-suited logs get
French names.
"""

from __future__ import annotations

from typing import Final

from arbiter.words.lang import Lang

RANK_WORDS: Final[dict[tuple[str, str], dict[int, str]]] = {
    ("en", "spanish"): {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
                        7: "seven", 10: "jack", 11: "horse", 12: "king"},
    ("en", "french"): {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
                       7: "seven", 10: "jack", 11: "queen", 12: "king"},
    ("es", "spanish"): {1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis",
                        7: "siete", 10: "sota", 11: "caballo", 12: "rey"},
    ("es", "french"): {1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis",
                       7: "siete", 10: "jota", 11: "reina", 12: "rey"},
}  # fmt: skip
SUIT_WORDS: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("en", "spanish"): ("oros", "copas", "espadas", "bastos"),
    ("en", "french"): ("diamonds", "hearts", "spades", "clubs"),
    ("es", "spanish"): ("oros", "copas", "espadas", "bastos"),
    ("es", "french"): ("diamantes", "corazones", "picas", "tréboles"),
}
#: Spanish card names take their own gender: la sota, la jota, la reina, el rey...
FEMININE: Final = frozenset({"sota", "jota", "reina"})
OF: Final = {"en": " of ", "es": " de "}
OR: Final = {"en": " or ", "es": " o "}

#: The referee's messages.
WORDS: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "renuncio.asistir": (
            "Renuncio by {name} in trick {trick}: played {card} while holding {led}; had to "
            "follow suit ({correct})"
        ),
        "renuncio.montar": (
            "Renuncio by {name} in trick {trick}: played {card}, which does not beat {winning}, "
            "while able to beat it; had to beat it ({correct})"
        ),
        "renuncio.fallar": (
            "Renuncio by {name} in trick {trick}: played {card} with no {led} but holding trumps "
            "({trump}); had to trump ({correct})"
        ),
        "renuncio.pisar": (
            "Renuncio by {name} in trick {trick}: played {card}, which does not beat {winning}, "
            "while able to overtrump it; had to overtrump ({correct})"
        ),
        "illegal.match_over": "The match is already over: {name} cannot {act}.",
        "illegal.match_over_deal": "The match is already over: no further deal can be played.",
        "illegal.deal_over": "The deal is already over: {name} cannot {act}.",
        "illegal.out_of_turn": "{name} cannot play now: it is {turn}'s turn.",
        "illegal.card_not_in_hand": "{name} does not hold {card}.",
        "illegal.not_in_ruleset": "{ruleset} has no such declaration: {name} cannot {act}.",
        "illegal.not_on_lead": (
            "{name} cannot {act}: only the player about to lead a trick may do so."
        ),
        "illegal.no_trick_won": "{name} cannot {act} without having won the trick just completed.",
        "illegal.cante_already_declared": "{name} has already sung for this trick.",
        "illegal.suit_already_sung": "The cante in {suit} has already been sung in this deal.",
        "illegal.pair_not_held": (
            "{name} cannot sing in {suit}: does not hold the king and horse of {suit}."
        ),
        "illegal.tute_not_held": "{name} does not hold the four {of}.",
        "illegal.no_stock": "{name} cannot exchange the seven: the stock is exhausted.",
        "illegal.seven_not_held": "{name} does not hold the seven of trumps ({trump}).",
        "act.play": "play {card}",
        "act.sing": "sing in {suit}",
        "act.tute": "declare a tute of {of}",
        "act.exchange": "exchange the seven of trumps",
        "of.kings": "kings",
        "of.horses": "horses",
        "ok.play": "{name} may play {card}.",
        "ok.sing": "{name} may sing in {suit} ({points}).",
        "ok.tute": "{name} may declare a tute of {of}: the deal is theirs.",
        "ok.exchange": "{name} may exchange the seven of trumps for {card}.",
        "reason.points": "{winners} won the deal on points.",
        "reason.last_trick": "Tied on points; {winners} won the last trick and the deal.",
        "reason.tie": "Tied on points: {result}.",
        "reason.tute": "{winners} won the deal with a tute.",
        "reason.renuncio": "{offender}'s renuncio decided the deal: {winners} won it.",
        "reason.no_tricks": "{losers} won no trick and lost.",
        "reason.over_100": "{losers} passed 100 points and lost.",
        "reason.tied": "{losers} tied on points and lost.",
        "reason.middle": "{losers} had the middle score and lost.",
        "reason.extremes": "The most and the fewest points won: {winners}.",
        "tie.nobody": "the deal is drawn",
        "tie.all": "the deal goes to {winners}",
        "nobody": "nobody",
        "and": " and ",
        # the rulesets' titles (GET /v1/rulesets answers them in English; the page shows them)
        "ruleset.tute-2p": "Tute (two players)",
        "ruleset.tute-3p": "Tute (three players)",
        "ruleset.tute-4p": "Tute (four players in pairs)",
        "ruleset.tute-cabron": "Tute cabrón (pierde en medio)",
        "ruleset.tute-gana-pierde": "Tute gana-pierde",
    },
    "es": {
        "renuncio.asistir": (
            "Renuncio de {name} en la baza {trick}: jugó {card} teniendo {led}; debía asistir "
            "({correct})"
        ),
        "renuncio.montar": (
            "Renuncio de {name} en la baza {trick}: jugó {card}, que no supera {winning}, "
            "pudiendo superarla; debía montar ({correct})"
        ),
        "renuncio.fallar": (
            "Renuncio de {name} en la baza {trick}: jugó {card} sin {led} y teniendo triunfo "
            "({trump}); debía fallar ({correct})"
        ),
        "renuncio.pisar": (
            "Renuncio de {name} en la baza {trick}: jugó {card}, que no supera {winning}, "
            "pudiendo pisarla; debía pisar ({correct})"
        ),
        "illegal.match_over": "La partida ya ha terminado: {name} no puede {act}.",
        "illegal.match_over_deal": "La partida ya ha terminado: no se puede jugar otra mano.",
        "illegal.deal_over": "La mano ya ha terminado: {name} no puede {act}.",
        "illegal.out_of_turn": "{name} no puede jugar ahora: es el turno de {turn}.",
        "illegal.card_not_in_hand": "{name} no tiene {card}.",
        "illegal.not_in_ruleset": "{ruleset} no tiene esa declaración: {name} no puede {act}.",
        "illegal.not_on_lead": (
            "{name} no puede {act}: solo puede hacerlo quien va a salir en la baza."
        ),
        "illegal.no_trick_won": "{name} no puede {act} sin haber ganado la baza anterior.",
        "illegal.cante_already_declared": "{name} ya ha cantado por esta baza.",
        "illegal.suit_already_sung": "Ya se han cantado las de {suit} en esta mano.",
        "illegal.pair_not_held": (
            "{name} no puede cantar en {suit}: no tiene el rey y el caballo de {suit}."
        ),
        "illegal.tute_not_held": "{name} no tiene los cuatro {of}.",
        "illegal.no_stock": "{name} no puede cambiar el siete: no queda monte.",
        "illegal.seven_not_held": "{name} no tiene el siete de triunfo ({trump}).",
        "act.play": "jugar {card}",
        "act.sing": "cantar en {suit}",
        "act.tute": "cantar tute de {of}",
        "act.exchange": "cambiar el siete de triunfo",
        "of.kings": "reyes",
        "of.horses": "caballos",
        "ok.play": "{name} puede jugar {card}.",
        "ok.sing": "{name} puede cantar en {suit} ({points}).",
        "ok.tute": "{name} puede cantar tute de {of}: la mano es suya.",
        "ok.exchange": "{name} puede cambiar el siete de triunfo por {card}.",
        "reason.points": "Mano para {winners}, a los puntos.",
        "reason.last_trick": "Empate a puntos: la última baza da la mano a {winners}.",
        "reason.tie": "Empate a puntos: {result}.",
        "reason.tute": "Mano para {winners}, por tute.",
        "reason.renuncio": "El renuncio de {offender} decide la mano a favor de {winners}.",
        "reason.no_tricks": "Pierde quien no hizo ninguna baza: {losers}.",
        "reason.over_100": "Pierde quien pasó de 100 puntos: {losers}.",
        "reason.tied": "Pierden los empatados a puntos: {losers}.",
        "reason.middle": "Pierde quien quedó en medio: {losers}.",
        "reason.extremes": "Ganan los que más y menos puntos hicieron: {winners}.",
        "tie.nobody": "la mano queda en tablas",
        "tie.all": "la mano es para {winners}",
        "nobody": "nadie",
        "and": " y ",
        "ruleset.tute-2p": "Tute a dos",
        "ruleset.tute-3p": "Tute a tres",
        "ruleset.tute-4p": "Tute por parejas, a cuatro",
        "ruleset.tute-cabron": "Tute cabrón (pierde en medio)",
        "ruleset.tute-gana-pierde": "Tute gana-pierde",
    },
}
