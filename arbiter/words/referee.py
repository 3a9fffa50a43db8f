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
        # input faults (a position given), by their code (arbiter.engine.errors.FaultCode)
        "fault.missing": "missing",
        "fault.not_object": "must be an object",
        "fault.list_size": "must be a list of {least} to {most} items",
        "fault.list_size_exact": "must be a list of {most} items",
        "fault.int_range": "must be an integer from {low} to {high}",
        "fault.card_code": "{code} is not a {notation} {what} code",
        "fault.what.card": "card",
        "fault.what.suit": "suit",
        "fault.notation.spanish": "spanish",
        "fault.notation.french": "french",
        "fault.one_of": "must be {values}",
        "fault.boolean": "must be true or false",
        "fault.must_be": "must be {value}",
        "fault.does_not_follow": "does not follow from the position: {value}",
        "fault.play_seat": "seat {seat} plays here",
        "fault.draw_seat": "seat {seat} draws here",
        "fault.draw_count": "{count} cards are drawn after this trick",
        "fault.trick_leader": "the trick is led by seat {seat}",
        "fault.table_leader": "the last trick's winner (the mano before any) leads",
        "fault.no_stock": "{ruleset} has no stock",
        "fault.no_exchange": "{ruleset} has no exchange",
        "fault.no_turned_card": "{ruleset} turns no card",
        "fault.trump_by_call": "the first call makes trump (none before it)",
        "fault.turned_missing": "missing: the card that shows trump",
        "fault.trump_of_turned": "trump is the suit of the turned card",
        "fault.exchange_before_trick": "exchange_requires_trick_won: not before the first trick",
        "fault.exchange_not_leader": "seat {seat} leads after that trick, not seat {given}",
        "fault.exchange_not_leader_first": "seat {seat} leads first (the mano), not seat {given}",
        "fault.exchange_no_stock": "no stock was left after that trick",
        "fault.renuncio_not_played": "not a play of that trick",
        "fault.renuncio_in_unknown_trick": "the cards of that trick are not known",
        "fault.decided_by_renuncio": "the first renuncio decided the deal",
        "fault.renuncio_decides": "the deal's first renuncio decides it",
        "fault.card_not_in_pack": "not a card of this pack",
        "fault.repeated": "this card is already at {first}",
        "fault.hand_size": "seat {seat} holds {count} cards at this point",
        "fault.stock_size": "{count} cards are left after the draws",
        "fault.points_below_known": "seat {seat}'s known tricks alone have {points} points",
        "fault.points_not_known_tricks": (
            "seat {seat} won no trick of unknown points: it has {points}"
        ),
        "fault.unknown_points_too_many": "the tricks of unknown cards hold at most {most} points",
        "fault.unknown_points_not_all": (
            "the tricks of unknown cards hold {points} points (every unseen card)"
        ),
        "fault.deal_with_position": "deal goes with a state_id, not with a position",
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
        # input faults (a position given), by their code (arbiter.engine.errors.FaultCode)
        "fault.missing": "falta",
        "fault.not_object": "debe ser un objeto",
        "fault.list_size": "debe ser una lista de {least} a {most} elementos",
        "fault.list_size_exact": "debe ser una lista de {most} elementos",
        "fault.int_range": "debe ser un entero de {low} a {high}",
        "fault.card_code": "{code} no es un código de {what} de la notación {notation}",
        "fault.what.card": "carta",
        "fault.what.suit": "palo",
        "fault.notation.spanish": "española",
        "fault.notation.french": "francesa",
        "fault.one_of": "debe ser {values}",
        "fault.boolean": "debe ser true o false",
        "fault.must_be": "debe ser {value}",
        "fault.does_not_follow": "no se deduce de la posición: {value}",
        "fault.play_seat": "aquí juega el asiento {seat}",
        "fault.draw_seat": "aquí roba el asiento {seat}",
        "fault.draw_count": "tras esta baza se roban {count} cartas",
        "fault.trick_leader": "sale a esta baza el asiento {seat}",
        "fault.table_leader": "sale quien ganó la última baza (la mano, antes de ninguna)",
        "fault.no_stock": "{ruleset} no tiene monte",
        "fault.no_exchange": "{ruleset} no tiene cambio del siete",
        "fault.no_turned_card": "{ruleset} no vuelve ninguna carta",
        "fault.trump_by_call": "la primera llamada hace el triunfo (no lo hay antes)",
        "fault.turned_missing": "falta la carta que muestra el triunfo",
        "fault.trump_of_turned": "el triunfo es el palo de la carta vuelta",
        "fault.exchange_before_trick": "exchange_requires_trick_won: no antes de la primera baza",
        "fault.exchange_not_leader": "tras esa baza sale el asiento {seat}, no el {given}",
        "fault.exchange_not_leader_first": (
            "sale primero el asiento {seat} (la mano), no el {given}"
        ),
        "fault.exchange_no_stock": "tras esa baza ya no quedaba monte",
        "fault.renuncio_not_played": "no es una jugada de esa baza",
        "fault.renuncio_in_unknown_trick": "no se conocen las cartas de esa baza",
        "fault.decided_by_renuncio": "el primer renuncio decidió la mano",
        "fault.renuncio_decides": "el primer renuncio de la mano la decide",
        "fault.card_not_in_pack": "no es una carta de esta baraja",
        "fault.repeated": "esta carta ya está en {first}",
        "fault.hand_size": "el asiento {seat} tiene {count} cartas en este punto",
        "fault.stock_size": "tras los robos quedan {count} cartas en el monte",
        "fault.points_below_known": (
            "solo las bazas conocidas del asiento {seat} suman {points} puntos"
        ),
        "fault.points_not_known_tricks": (
            "el asiento {seat} no ganó ninguna baza de puntos desconocidos: tiene {points}"
        ),
        "fault.unknown_points_too_many": (
            "las bazas de cartas desconocidas suman como mucho {most} puntos"
        ),
        "fault.unknown_points_not_all": (
            "las bazas de cartas desconocidas suman {points} puntos (todas las cartas no vistas)"
        ),
        "fault.deal_with_position": "deal va con un state_id, no con una posición",
    },
}
