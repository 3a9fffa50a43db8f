"""Explanations in the words of a Spanish club player, in Spanish (``es``) or English (``en``).

Every ``message`` the referee returns is built here from an engine result: a renuncio, an
illegal event, a deal outcome, a verdict on a move. Cards are named in words ("el cuatro de
bastos", "the four of bastos"); French-suited logs get French-suited names.

The catalogue (``_TEXT``) is the project's one: every key in both languages, with the same
``{fields}``. A key's prefix says who speaks: none for the messages of the API's bodies,
``cli.`` for the ``arbiter`` command's words; :func:`text` looks any of them up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from arbiter.engine.cards import Card, Notation, card_rank, card_suit

Lang = Literal["en", "es"]
LANGS: Final[tuple[Lang, ...]] = ("en", "es")

_RANK_WORDS: Final[dict[tuple[str, str], dict[int, str]]] = {
    ("en", "spanish"): {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
                        7: "seven", 10: "jack", 11: "horse", 12: "king"},
    ("en", "french"): {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
                       7: "seven", 10: "jack", 11: "queen", 12: "king"},
    ("es", "spanish"): {1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis",
                        7: "siete", 10: "sota", 11: "caballo", 12: "rey"},
    ("es", "french"): {1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis",
                       7: "siete", 10: "jota", 11: "reina", 12: "rey"},
}  # fmt: skip
_SUIT_WORDS: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("en", "spanish"): ("oros", "copas", "espadas", "bastos"),
    ("en", "french"): ("diamonds", "hearts", "spades", "clubs"),
    ("es", "spanish"): ("oros", "copas", "espadas", "bastos"),
    ("es", "french"): ("diamantes", "corazones", "picas", "tréboles"),
}
#: Spanish card names take their own gender: la sota, la jota, la reina, el rey...
_FEMININE: Final = frozenset({"sota", "jota", "reina"})
_OF: Final = {"en": " of ", "es": " de "}
_OR: Final = {"en": " or ", "es": " o "}

_TEXT: Final[dict[str, dict[str, str]]] = {
    "en": {
        "renuncio.asistir": "Renuncio by {name} in trick {trick}: played {card} while holding "
        "{led}; had to follow suit ({correct})",
        "renuncio.montar": "Renuncio by {name} in trick {trick}: played {card}, which does not "
        "beat {winning}, while able to beat it; had to beat it ({correct})",
        "renuncio.fallar": "Renuncio by {name} in trick {trick}: played {card} with no {led} "
        "but holding trumps ({trump}); had to trump ({correct})",
        "renuncio.pisar": "Renuncio by {name} in trick {trick}: played {card}, which does not "
        "beat {winning}, while able to overtrump it; had to overtrump ({correct})",
        "illegal.match_over": "The match is already over: {name} cannot {act}.",
        "illegal.match_over_deal": "The match is already over: no further deal can be played.",
        "illegal.deal_over": "The deal is already over: {name} cannot {act}.",
        "illegal.out_of_turn": "{name} cannot play now: it is {turn}'s turn.",
        "illegal.card_not_in_hand": "{name} does not hold {card}.",
        "illegal.not_in_ruleset": "{ruleset} has no such declaration: {name} cannot {act}.",
        "illegal.not_on_lead": "{name} cannot {act}: only the player about to lead a trick "
        "may do so.",
        "illegal.no_trick_won": "{name} cannot {act} without having won the trick just completed.",
        "illegal.cante_already_declared": "{name} has already sung for this trick.",
        "illegal.suit_already_sung": "The cante in {suit} has already been sung in this deal.",
        "illegal.pair_not_held": "{name} cannot sing in {suit}: does not hold the king and "
        "horse of {suit}.",
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
        # --- the `arbiter` command's words ---
        "cli.stdin": "standard input",
        "cli.error.cannot_read": "cannot read {path}: {reason}",
        "cli.error.not_json": "{what} is not JSON: {reason}",
        "cli.error.invalid_input": "invalid input at {pointer}: {message}",
        "cli.error.interrupted": "interrupted",
        "cli.error.cannot_write": "cannot write {path}: {reason}",
        "cli.reason.no_folder": "the folder {folder} does not exist",
        "cli.reason.not_a_folder": "{folder} is not a folder",
        "cli.reason.is_a_folder": "it is a folder",
        "cli.needs": "{what} needs {package}: install it with {command}",
        "cli.replay.deal": "Deal {number} — dealer {dealer}, trump {trump}",
        "cli.replay.no_trump": "none yet",
        "cli.replay.leader": "leader",
        "cli.replay.plays": "plays",
        "cli.replay.winner": "winner",
        "cli.replay.points": "pts",
        "cli.replay.draws": "draws",
        "cli.replay.cante": "cante: {name} {points} in {suit} (trick {trick})",
        "cli.replay.exchange": "exchange: {name} gave {gave} for {took}",
        "cli.replay.renuncio": "RENUNCIO (event {event}): {message} [correct: {correct}]",
        "cli.replay.score": "{name} {total} (cards {cards}, cantes {cantes}, last {last}, "
        "tricks {tricks})",
        "cli.replay.scores": "scores: {scores}",
        "cli.replay.sides": "sides: {sides}",
        "cli.replay.outcome": "outcome: {message} ({reason})",
        "cli.replay.illegal": "ILLEGAL at deal {deal}, event {event}: {message} ({code})",
        "cli.replay.illegal_deal": "ILLEGAL at deal {deal}: {message} ({code})",
        "cli.replay.match": "Match ({counter}): {standings}",
        "cli.replay.match_over": "Match over — winners: {winners}",
        "cli.replay.status": "Status: {status}",
        "cli.replay.next": "Next: {player} — {moves}",
        "cli.counter.deals_won": "deals won",
        "cli.counter.loser_points": "loser points",
        "cli.counter.tokens": "tokens",
        "cli.status.complete": "complete",
        "cli.status.in_progress": "in progress",
        "cli.status.invalid": "invalid",
        "cli.move.play": "play {card}",
        "cli.move.sing": "sing {suit}",
        "cli.move.tute": "tute of {of}",
        "cli.move.exchange": "exchange the seven",
        "cli.verdict.ok": "ok",
        "cli.verdict.renuncio": "renuncio",
        "cli.verdict.illegal": "illegal",
        "cli.validate.moves": "legal moves: {moves}",
        "cli.validate.deal_over": "legal moves: none — the deal is over; the next one begins "
        "with a new deal in the log",
        "cli.validate.match_over": "legal moves: none — the match is over",
        "cli.score.parquet_out": "--format parquet writes a file: give --out FILE or --out DIR",
        "cli.score.out_is_input": "--out {path} is one of the inputs",
        "cli.score.same_part": "{first} and {second} would both be written to {part}",
        "cli.score.worker_died": "a worker process died (out of memory?); the output is incomplete",
        "cli.score.games": "games",
        "cli.score.rate": "games/s",
        "cli.score.errors": "errors",
        "cli.summary.title": "Archive scored",
        "cli.summary.figure": "figure",
        "cli.summary.count": "count",
        "cli.summary.breaches": "with a renuncio or illegal event",
        "cli.summary.statuses": "games by status",
        "cli.summary.deals": "deals",
        "cli.summary.outcomes": "outcome reasons",
        "cli.summary.renuncios": "renuncios",
        "cli.summary.obligations": "by obligation",
        "cli.summary.illegal": "illegal events",
        "cli.summary.none": "none",
        "cli.conformance.written": "{count} vectors written to {path}",
        "cli.conformance.no_match": "no vector matches --rules and --rulesets",
        "cli.conformance.cannot_start": "cannot start the engine {engine}: {reason}",
        "cli.conformance.cannot_reach": "cannot reach the engine at {engine}: {reason}",
        "cli.serve.workers": "--workers must be 1 or more, not {value}",
        "cli.serve.port": "--port must be from 1 to 65535, not {value}",
        "cli.serve.host": "cannot listen on {host}: {reason}",
        "cli.serve.busy": "port {port} of {host} is already in use (another server?): choose "
        "another with --port",
    },
    "es": {
        "renuncio.asistir": "Renuncio de {name} en la baza {trick}: jugó {card} teniendo "
        "{led}; debía asistir ({correct})",
        "renuncio.montar": "Renuncio de {name} en la baza {trick}: jugó {card}, que no supera "
        "{winning}, pudiendo superarla; debía montar ({correct})",
        "renuncio.fallar": "Renuncio de {name} en la baza {trick}: jugó {card} sin {led} y "
        "teniendo triunfo ({trump}); debía fallar ({correct})",
        "renuncio.pisar": "Renuncio de {name} en la baza {trick}: jugó {card}, que no supera "
        "{winning}, pudiendo pisarla; debía pisar ({correct})",
        "illegal.match_over": "La partida ya ha terminado: {name} no puede {act}.",
        "illegal.match_over_deal": "La partida ya ha terminado: no se puede jugar otra mano.",
        "illegal.deal_over": "La mano ya ha terminado: {name} no puede {act}.",
        "illegal.out_of_turn": "{name} no puede jugar ahora: es el turno de {turn}.",
        "illegal.card_not_in_hand": "{name} no tiene {card}.",
        "illegal.not_in_ruleset": "{ruleset} no tiene esa declaración: {name} no puede {act}.",
        "illegal.not_on_lead": "{name} no puede {act}: solo puede hacerlo quien va a salir "
        "en la baza.",
        "illegal.no_trick_won": "{name} no puede {act} sin haber ganado la baza anterior.",
        "illegal.cante_already_declared": "{name} ya ha cantado por esta baza.",
        "illegal.suit_already_sung": "Ya se han cantado las de {suit} en esta mano.",
        "illegal.pair_not_held": "{name} no puede cantar en {suit}: no tiene el rey y el "
        "caballo de {suit}.",
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
        # --- the `arbiter` command's words ---
        "cli.stdin": "la entrada estándar",
        "cli.error.cannot_read": "no se puede leer {path}: {reason}",
        "cli.error.not_json": "{what} no es JSON: {reason}",
        "cli.error.invalid_input": "entrada no válida en {pointer}: {message}",
        "cli.error.interrupted": "interrumpido",
        "cli.error.cannot_write": "no se puede escribir {path}: {reason}",
        "cli.reason.no_folder": "la carpeta {folder} no existe",
        "cli.reason.not_a_folder": "{folder} no es una carpeta",
        "cli.reason.is_a_folder": "es una carpeta",
        "cli.needs": "{what} necesita {package}: instálalo con {command}",
        "cli.replay.deal": "Mano {number} — reparte {dealer}, triunfo {trump}",
        "cli.replay.no_trump": "aún ninguno",
        "cli.replay.leader": "sale",
        "cli.replay.plays": "jugadas",
        "cli.replay.winner": "gana",
        "cli.replay.points": "ptos",
        "cli.replay.draws": "robos",
        "cli.replay.cante": "cante: {name} {points} en {suit} (baza {trick})",
        "cli.replay.exchange": "cambio: {name} dio {gave} por {took}",
        "cli.replay.renuncio": "RENUNCIO (evento {event}): {message} [correctas: {correct}]",
        "cli.replay.score": "{name} {total} (cartas {cards}, cantes {cantes}, últimas {last}, "
        "bazas {tricks})",
        "cli.replay.scores": "puntos: {scores}",
        "cli.replay.sides": "parejas: {sides}",
        "cli.replay.outcome": "resultado: {message} ({reason})",
        "cli.replay.illegal": "ILEGAL en la mano {deal}, evento {event}: {message} ({code})",
        "cli.replay.illegal_deal": "ILEGAL en la mano {deal}: {message} ({code})",
        "cli.replay.match": "Partida ({counter}): {standings}",
        "cli.replay.match_over": "Partida terminada — ganan: {winners}",
        "cli.replay.status": "Estado: {status}",
        "cli.replay.next": "Turno: {player} — {moves}",
        "cli.counter.deals_won": "manos ganadas",
        "cli.counter.loser_points": "puntos de perdedor",
        "cli.counter.tokens": "fichas",
        "cli.status.complete": "terminada",
        "cli.status.in_progress": "en curso",
        "cli.status.invalid": "no válida",
        "cli.move.play": "jugar {card}",
        "cli.move.sing": "cantar {suit}",
        "cli.move.tute": "tute de {of}",
        "cli.move.exchange": "cambiar el siete",
        "cli.verdict.ok": "vale",
        "cli.verdict.renuncio": "renuncio",
        "cli.verdict.illegal": "ilegal",
        "cli.validate.moves": "jugadas posibles: {moves}",
        "cli.validate.deal_over": "jugadas posibles: ninguna — la mano ha terminado; la "
        "siguiente empieza con una mano nueva en el registro",
        "cli.validate.match_over": "jugadas posibles: ninguna — la partida ha terminado",
        "cli.score.parquet_out": "--format parquet escribe un fichero: da --out FICHERO o "
        "--out CARPETA",
        "cli.score.out_is_input": "--out {path} es una de las entradas",
        "cli.score.same_part": "{first} y {second} se escribirían las dos en {part}",
        "cli.score.worker_died": "un proceso de trabajo murió (¿sin memoria?); la salida está "
        "incompleta",
        "cli.score.games": "partidas",
        "cli.score.rate": "partidas/s",
        "cli.score.errors": "errores",
        "cli.summary.title": "Archivo puntuado",
        "cli.summary.figure": "dato",
        "cli.summary.count": "cuántos",
        "cli.summary.breaches": "con un renuncio o un evento ilegal",
        "cli.summary.statuses": "partidas por estado",
        "cli.summary.deals": "manos",
        "cli.summary.outcomes": "motivos del resultado",
        "cli.summary.renuncios": "renuncios",
        "cli.summary.obligations": "por obligación",
        "cli.summary.illegal": "eventos ilegales",
        "cli.summary.none": "ninguno",
        "cli.conformance.written": "{count} vectores escritos en {path}",
        "cli.conformance.no_match": "ningún vector cumple --rules y --rulesets",
        "cli.conformance.cannot_start": "no se puede arrancar el motor {engine}: {reason}",
        "cli.conformance.cannot_reach": "no se puede contactar con el motor en {engine}: {reason}",
        "cli.serve.workers": "--workers debe ser 1 o más, no {value}",
        "cli.serve.port": "--port debe ir de 1 a 65535, no {value}",
        "cli.serve.host": "no se puede escuchar en {host}: {reason}",
        "cli.serve.busy": "el puerto {port} de {host} ya está en uso (¿otro servidor?): elige "
        "otro con --port",
    },
}


def pick_lang(accept_language: str | None) -> Lang:
    """The language for an ``Accept-Language`` header: ``es`` or ``en`` (the default)."""
    if not accept_language:
        return "en"
    best: tuple[float, Lang] = (0.0, "en")
    for part in accept_language.split(","):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in LANGS:
            continue
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        if quality > best[0]:
            best = (quality, "es" if primary == "es" else "en")
    return best[1]


def text(lang: Lang, key: str, **fields: object) -> str:
    """The catalogue's words for ``key`` in ``lang``, with ``fields`` filled in."""
    return _TEXT[lang][key].format(**fields)


class Phrases:
    """The catalogue in one language and notation, with the players' names."""

    def __init__(self, lang: Lang, notation: Notation, players: Sequence[str]) -> None:
        self.lang = lang
        self.notation = notation
        self.players = players
        self._text = _TEXT[lang]

    def text(self, key: str, **fields: object) -> str:
        return self._text[key].format(**fields)

    def card(self, card: Card, *, article: bool = True) -> str:
        """``the four of bastos`` / ``el cuatro de bastos``."""
        rank = _RANK_WORDS[(self.lang, self.notation)][card_rank(card)]
        words = f"{rank}{_OF[self.lang]}{self.suit(card_suit(card))}"
        if not article:
            return words
        if self.lang == "en":
            return "the " + words
        return ("la " if rank in _FEMININE else "el ") + words

    def cards(self, cards: Sequence[Card]) -> str:
        """``five of oros or king of oros``: a list of alternatives, without articles."""
        return _OR[self.lang].join(self.card(c, article=False) for c in cards)

    def suit(self, suit: int) -> str:
        return _SUIT_WORDS[(self.lang, self.notation)][suit]

    def name(self, seat: int) -> str:
        return self.players[seat]

    def names(self, seats: Sequence[int]) -> str:
        if not seats:
            return self._text["nobody"]
        return self._text["and"].join(self.players[s] for s in seats)
