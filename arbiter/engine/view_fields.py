"""The position view's fields, declared once: name, type, JSON codec and docs line.

:class:`~arbiter.engine.position.PositionView` (its slots, constructor and comparison), the part
of its JSON that is one field to one key (:func:`arbiter.report.view_dict`) and the matching
fields of its marshmallow schema (``StepSchema``, so the OpenAPI document) all come from
:data:`VIEW_FIELDS`. The class and the JSON writer are written out as source by
``python -m devtools.records`` (mypyc compiles static source: tests/test_position_value.py checks
that what is written is what the table makes); the schema reads the table when it is imported.
Adding a field is a line here, its value in :meth:`Position.view`, and its words in docs/api.md
(and a ``default`` when :meth:`Position.from_view` does not read it, so that the view a given
position makes, :mod:`arbiter.engine.given`, need not name it).

A field's ``json`` is its key in the JSON, or None when the JSON writes it as part of something
else (the trick on the table, the moves, the history...) or not at all. Its ``codec`` says how
a value becomes JSON (:data:`CODECS`).
"""

from __future__ import annotations

from typing import Final, NamedTuple


class ViewField(NamedTuple):
    """One field of a record: of the position view, or of a record of :data:`RECORDS`."""

    name: str
    type: str
    json: str | None
    codec: str
    doc: str
    #: how the view compares it, when not by its value
    compared: str | None = None
    #: whether the JSON may hold null where the record has no value (the trick on the table's
    #: winner and points, in the deal's list of tricks)
    nullable: bool = False
    #: where a JSON-only record (a score line) takes the value from; ``r.<name>`` otherwise
    source: str | None = None
    #: a fact a position given as JSON states (read by :mod:`arbiter.engine.given`), rather
    #: than one that follows from the others and is checked against them
    fact: bool = False
    #: the view's value when none is given: for the fields that
    #: :meth:`~arbiter.engine.position.Position.from_view` does not read (worked out again by
    #: its own view), so that the view a given position makes need not name them
    default: str | None = None
    #: the condition under which the JSON writes the key (an expression of the writer's
    #: parameters); the schema then does not require it
    when: str | None = None
    #: how a position given as JSON gives it (:mod:`arbiter.engine.given` reads it from here):
    #: "need" (read, a fault when missing), "may" (read, empty when missing), "check" (not
    #: read: the rules make it, and when given it must be what they make); None: not read
    read: str | None = None
    #: for a field read: the name of its bounds, (least, most) of an int or of a list's length,
    #: which the reader knows (the seats, the tricks of the ruleset...)
    bound: str | None = None


#: A field of any record (the position view's are :class:`ViewField`\ s too).
Field = ViewField


class RecordTable(NamedTuple):
    """One answer record: its class (none for a record made only as JSON), its fields in the
    class's order, its JSON writer in arbiter/report.py and its schema in arbiter/api/schemas.py.
    ``json_order`` names the fields in the order the JSON writes them, when it is not the
    class's; ``params`` are the writer's parameters after the record (for a JSON-only record,
    all of them)."""

    cls: str
    doc: str
    fields: tuple[ViewField, ...]
    writer: str
    schema: str
    json_order: tuple[str, ...] = ()
    params: tuple[str, ...] = (
        "codes: tuple[str, ...]", "suits: tuple[str, ...]", "table: tuple[dict[str, Any], ...]",
    )  # fmt: skip
    #: the name the sources give the record (``r``: a field's default source is ``r.<name>``)
    subject: str = "r"


#: How a codec writes a value (``{v}``, the field's value) as JSON, with ``codes`` and
#: ``suits`` the notation's card and suit codes.
CODECS: Final[dict[str, str]] = {
    "value": "{v}",
    "seat?": "None if {v} < 0 else {v}",
    "int?": "None if {v} < 0 else {v}",
    "suit?": "None if {v} < 0 else suits[{v}]",
    "card?": "None if {v} < 0 else codes[{v}]",
    "ints": "list({v})",
    "suits": "[suits[s] for s in range(4) if {v} >> s & 1]",
    "card": "codes[{v}]",
    "suit": "suits[{v}]",
    "cards": "[codes[c] for c in display_order({v})]",
    # in the writer, not a call: ``[{"seat", "card"}, ...]``, the notation's read-only dicts
    # (``table``, arbiter/report.py's ``_SEAT_CARDS``) shared by every answer; the pairs a tuple
    # (``Plays``), which the compiled loop indexes and unpacks without an iterator
    "plays": "[table[s * PACK_SIZE + c] for s, c in {v}]",
    "enum": "_text({v})",
    "const": "{v}",
    "kind": "EVENT_TYPES[{v}]",
    "tute-of": "TUTE_OF[{v}]",
    "card-list": "[codes[c] for c in {v}]",
    "masks": "[_codes_of(m, codes, memo) for m in {v}]",
    "masks?": "None if {v} is None else [_codes_of(m, codes, memo) for m in {v}]",
    "strs": "{v}",
    "nested": "{v}",
    "nested-list": "{v}",
    "-": "",
}

VIEW_FIELDS: Final[tuple[ViewField, ...]] = (
    ViewField("header", "Header", None, "-", "The match's header: ruleset, options, players.",
              "self.header"),
    ViewField("standing", "MatchStanding", None, "-",
              "The match standing (a copy: the view does not change with the match).",
              "self.standing.to_fields()"),
    ViewField("deal", "int", None, "-", "The deal's index in the match."),
    ViewField("dealer", "int", None, "-", "The dealer's seat."),
    ViewField("mano", "int", None, "-", "The seat that led the deal's first trick."),
    ViewField("trump", "int", "trump", "suit?", "The trump suit; null while there is none.",
              fact=True, read="need"),
    ViewField("turned", "Card", "turned", "card?", "The card that shows trump, if any.",
              fact=True, read="may"),
    ViewField("hands", "tuple[Mask, ...]", None, "-", "Each seat's hand."),
    ViewField("stock_left", "int", None, "-", "Cards left in the stock."),
    ViewField("stock_known", "tuple[Card, ...]", None, "-",
              "The stock cards whose place everyone knows (the turned card, drawn last)."),
    ViewField("leader", "int", None, "-", "Who led the trick on the table."),
    ViewField("trick", "tuple[tuple[int, Card], ...]", None, "-",
              "The trick on the table: (seat, card) in order."),
    ViewField("trick_no", "int", None, "-", "Tricks completed so far."),
    ViewField("tricks_won", "tuple[int, ...]", "tricks_won", "ints", "Tricks won by each seat."),
    ViewField("card_points", "tuple[int, ...]", "card_points", "ints",
              "Card points of each seat's tricks (given, if a trick's are not known)."),
    ViewField("cante_points", "tuple[int, ...]", "cante_points", "ints",
              "Points of each seat's cantes or calls."),
    ViewField("totals", "tuple[int, ...]", "totals", "ints",
              "Each seat's deal total so far (with the last trick's ten once it is won).",
              default="()"),
    ViewField("cantes", "tuple[Cante, ...]", None, "-", "The cantes or calls made."),
    ViewField("open_cantes", "tuple[tuple[int, int], ...]", None, "-",
              "(seat, suit) of the cantes held and not sung (declared-cante rulesets).",
              default="()"),
    ViewField("sung", "int", "sung", "suits", "The suits sung so far."),
    ViewField("strict", "bool", "strict", "value",
              "Whether the obligations apply (false while a stock lasts)."),
    ViewField("turn", "int | None", "turn", "value", "The seat to act; null once over."),
    ViewField("correct", "Mask", None, "-", "The plays of the seat to act that are no renuncio.",
              default="0"),
    ViewField("declarations", "tuple[Move, ...]", None, "-",
              "The declarations open to the seat to act.", default="()"),
    ViewField("events", "int", "event", "value", "Events applied so far."),
    ViewField("over", "bool", "over", "value", "Whether the deal is over."),
    ViewField("outcome", "Outcome | None", None, "-", "The deal's outcome once it is over.",
              default="None"),
    ViewField("match_over", "bool", "match_over", "value", "Whether the match is over."),
    ViewField("led_suit", "int", None, "-", "The suit led to the trick on the table (-1: none)."),
    ViewField("win_seat", "int", None, "-", "The seat winning the trick on the table (-1: none)."),
    ViewField("win_card", "Card", None, "-", "The card winning the trick on the table (-1: none)."),
    ViewField("last_winner", "int", "last_winner", "seat?",
              "The last completed trick's winner, who leads; null before the first."),
    ViewField("cantes_this_lead", "int", "cantes_this_lead", "value",
              "Cantes declared on this lead."),
    ViewField("calls", "int", "calls", "value", "Calls made so far (calls only)."),
    ViewField("decisive", "Decisive | None", None, "-",
              "The event that decided the deal before its end (its first renuncio or tute)."),
    ViewField("tricks", "tuple[Trick, ...] | None", None, "-",
              "The tricks completed, with the cards drawn after each (None: not known)."),
    ViewField("captured", "tuple[Mask, ...] | None", None, "-",
              "The cards of each seat's tricks whose cards are known (None: not known)."),
    ViewField("exchanges", "tuple[Exchange, ...]", None, "-", "The exchanges made."),
    ViewField("renuncios", "tuple[Renuncio, ...]", None, "-", "The renuncios made."),
)  # fmt: skip

TRICK = RecordTable(
    "Trick",
    "A completed baza: who led, the plays in order, who won, its card points, the draws.",
    (
        Field("leader", "int", "leader", "value", "The seat that led it.", read="need",
              bound="seat"),
        Field("plays", "Plays", "plays", "plays",
              "(seat, card) in the order they were played (none: not known, in a position "
              "given so).", read="need", bound="trick"),
        Field("winner", "int", "winner", "seat?", "The seat that won it; null while in play.",
              nullable=True, read="check"),
        Field("points", "int", "points", "int?",
              "Its card points; null while in play, or not known.", nullable=True, read="check"),
        Field("draws", "Plays", "draws", "plays",
              "(seat, card) drawn from the stock after it, in order.", read="may",
              bound="draws"),
    ),
    "_trick",
    "TrickSchema",
)  # fmt: skip

CANTE = RecordTable(
    "Cante",
    "A cante declared after trick ``trick``, or a call that fell in trick ``trick``.",
    (
        Field("seat", "int", "seat", "value", "The seat that sang or called.", read="need",
              bound="seat"),
        Field("suit", "int", "suit", "suit", "The suit of its king and horse.", read="need"),
        Field("points", "int", "points", "value", "Its points (20, or 40 in trumps).",
              read="check"),
        Field("trick", "int", "trick", "value",
              "The trick (from 0) it was declared after, or (a call) made in.", read="need",
              bound="tricks"),
    ),
    "_cante",
    "CanteSchema",
)  # fmt: skip

EXCHANGE = RecordTable(
    "Exchange",
    "The seven of trumps given for the turned card after trick ``trick`` (-1: before any).",
    (
        Field("seat", "int", "seat", "value", "The seat that exchanged.", read="need",
              bound="seat"),
        Field("gave", "Card", "gave", "card", "The card it gave (the seven of trumps).",
              read="need"),
        Field("took", "Card", "took", "card", "The card it took (the turned card).",
              read="need"),
        Field("trick", "int", "trick", "value",
              "The trick (from 0) it was made after, as a cante's; -1 before the first.",
              read="need", bound="after"),
    ),
    "_exchange",
    "ExchangeSchema",
)  # fmt: skip

RENUNCIO = RecordTable(
    "Renuncio",
    "A play that broke ``obligation``; ``correct`` is the mask of the plays that were due;\n"
    "    ``led_suit`` and ``winning`` are the suit led and the card winning when it was played;\n"
    "    ``event`` and ``trick`` count from 0.",
    (
        Field("event", "int", "event", "value", "The event (from 0) of the play.", read="need",
              bound="event"),
        Field("seat", "int", "seat", "value", "The seat that played.", read="need",
              bound="seat"),
        Field("card", "Card", "card", "card", "The card it played.", read="need"),
        Field("obligation", "Obligation", "obligation", "enum", "The obligation it broke.",
              read="need"),
        Field("correct", "Mask", "correct", "cards", "The plays that were due.", read="may",
              bound="pack"),
        Field("trick", "int", "trick", "value", "The trick (from 0) it was played in.",
              read="need", bound="played"),
        Field("led_suit", "int", "led", "suit?", "The suit led when it was played."),
        Field("winning", "Card", "winning", "card?",
              "The card winning the trick when it was played."),
    ),
    "_position_renuncio",
    "PositionRenuncioSchema",
    json_order=("event", "seat", "card", "obligation", "trick", "correct", "led_suit", "winning"),
)  # fmt: skip

DECISIVE = RecordTable(
    "Decisive",
    "The first renuncio or tute of a deal, which decides it (docs/rules.md §7).",
    (
        Field("kind", "DecisiveKind", "kind", "enum", "What decided the deal.", read="need"),
        Field("seat", "int", "seat", "value", "The seat that made it.", read="need",
              bound="seat"),
        Field("event", "int", "event", "value", "The event (from 0) that made it.",
              read="need", bound="event"),
    ),
    "_decisive",
    "DecidedSchema",
)  # fmt: skip

SCORE_LINE = RecordTable(
    "",
    "A seat's line of a deal's scores.",
    (
        Field("seat", "int", "seat", "value", "The seat.", source="s"),
        Field("tricks", "int", "tricks", "value", "Tricks it won.", source="state.tricks_won[s]"),
        Field("card_points", "int", "card_points", "value", "Card points of its tricks.",
              source="state.card_points[s]"),
        Field("cantes", "int", "cantes", "value", "Points of its cantes or calls.",
              source="state.cante_points[s]"),
        Field("last_trick", "int", "last_trick", "value", "The last trick's ten, if it won it.",
              source="LAST_TRICK_BONUS if s == last else 0"),
        Field("total", "int", "total", "value", "Its total.", source="totals[s]"),
    ),
    "_score_line",
    "ScoreSchema",
    params=("state: DealState", "s: int", "last: int | None", "totals: list[int]"),
)  # fmt: skip

#: The body of ``POST /v1/replays``: a nested part's ``type`` is its schema (its writer is
#: :mod:`arbiter.report`'s, named by ``source``).
REPLAY_BODY = RecordTable(
    "",
    "The body of ``POST /v1/replays``.",
    (
        Field("state_id", "str | None", "state_id", "value",
              "The token of the position the log ends in (null without a sealer or when the "
              "log is invalid).", source="replay.state_id"),
        Field("status", "Status", "status", "enum", "Whether the log is complete, in progress or "
              "invalid.", source="replay.status"),
        Field("illegal", "IllegalSchema", "illegal", "nested",
              "The event that made the log invalid; null when none did.", nullable=True,
              source="_illegal(replay.match, words)"),
        Field("deals", "DealResultSchema", "deals", "nested-list", "Each deal of the log.",
              source="deals"),
        Field("match", "MatchSchema", "match", "nested", "The match standing.",
              source="match_dict(replay.match.header, replay.match.standing)"),
        Field("next", "NextSchema", "next", "nested",
              "Who acts next and their legal moves; null unless the log is in progress.",
              nullable=True, source="_next(replay.match, words)"),
    ),
    "_replay_body",
    "ReplaySchema",
    params=("replay: Replay", "words: Phrases", "deals: list[dict[str, Any]]"),
)  # fmt: skip

#: The parameters of the writers of a step's parts: the notation's card and suit codes and its
#: ``{"seat", "card"}`` dicts (arbiter/report.py).
_CODES = "codes: tuple[str, ...]"
_SUITS = "suits: tuple[str, ...]"
_TABLE = "table: tuple[dict[str, Any], ...]"

OUTCOME_FACTS = RecordTable(
    "",
    "How a deal ended: its winners, its losers and why.",
    (
        Field("winners", "tuple[int, ...]", "winners", "ints", "The seats that won the deal."),
        Field("losers", "tuple[int, ...]", "losers", "ints", "The seats that lost the deal."),
        Field("reason", "Reason", "reason", "enum", "Why it ended so."),
    ),
    "_outcome_facts",
    "OutcomeFactsSchema",
    params=("r: Outcome",),
)  # fmt: skip

OUTCOME = RecordTable(
    "",
    "How a deal ended, in words too.",
    (
        *OUTCOME_FACTS.fields,
        Field("message", "str", "message", "value", "The outcome in a sentence.",
              source="_outcome_message(state, r, words)"),
    ),
    "_outcome",
    "OutcomeSchema",
    params=("state: DealState", "r: Outcome", "words: Phrases"),
)  # fmt: skip

_RENUNCIO = {f.name: f for f in RENUNCIO.fields}

VIOLATION = RecordTable(
    "",
    "A renuncio in a deal's body: who played what, the obligation it broke, in words too.",
    (
        _RENUNCIO["event"], _RENUNCIO["seat"], _RENUNCIO["card"],
        Field("kind", "str", "kind", "const", "What was broken: a renuncio.",
              source='"renuncio"'),
        _RENUNCIO["obligation"], _RENUNCIO["correct"], _RENUNCIO["trick"],
        Field("message", "str", "message", "value", "The renuncio in a sentence.",
              source="renuncio_message(r, state, words)"),
    ),
    "_violation",
    "ViolationSchema",
    params=("r: Renuncio", "state: DealState", "words: Phrases", _CODES),
)  # fmt: skip

SIDE = RecordTable(
    "",
    "A side of a deal played in pairs, and its total.",
    (
        Field("seats", "tuple[int, ...]", "seats", "ints", "Its seats.", source="side"),
        Field("total", "int", "total", "value", "Its total: its seats' totals.",
              source="totals[side[0]] + totals[side[1]]"),
    ),
    "_side",
    "SideSchema",
    params=("side: tuple[int, ...]", "totals: list[int]"),
)  # fmt: skip

SCORES_BODY = RecordTable(
    "",
    "The body of ``POST /v1/scores``.",
    (
        REPLAY_BODY.fields[1],
        REPLAY_BODY.fields[2],
        Field("deals", "DealScoresSchema", "deals", "nested-list",
              "Each deal of the log: its scores, outcome and renuncios.",
              source="[_deal_scores(replay.match, d.state, d.outcome, words) "
                     "for d in replay.match.deals]"),
        REPLAY_BODY.fields[4],
    ),
    "_scores_body",
    "ScoresSchema",
    params=("replay: Replay", "words: Phrases"),
)  # fmt: skip

#: A move the seat to act may make (in the legal moves of a step, a verdict, the next turn).
MOVE = RecordTable(
    "",
    "A move, as an event of a log.",
    (
        Field("type", "int", "type", "kind", "What the move is.", source="r.kind"),
        Field("seat", "int", "seat", "value", "The seat that makes it."),
        Field("card", "Card", "card", "card", "A play's card.", when="r.kind == PLAY"),
        Field("suit", "int", "suit", "suit", "A cante's suit.", when="r.kind == SING"),
        Field("of", "int", "of", "tute-of", "What a tute is of: kings or horses.",
              when="r.kind == TUTE"),
    ),
    "_move",
    "MoveSchema",
    params=("r: Move", _CODES, _SUITS),
)  # fmt: skip

_CARDS_OF = "The cards it rests on."

DECLARATION = RecordTable(
    "",
    "A declaration open to the seat to act, with the cards it rests on.",
    (
        *MOVE.fields,
        Field("cards", "Mask", "cards", "cards", _CARDS_OF,
              source="declaration_cards(r, view.trump)"),
    ),
    "_declaration",
    "DeclarationSchema",
    params=("r: Move", "view: PositionView", _CODES, _SUITS),
)  # fmt: skip

STEP_TRICK = RecordTable(
    "",
    "The trick on the table of a step: its number, its leader, the plays so far, the suit led "
    "and what wins it so far.",
    (
        Field("number", "int", "number", "value", "Tricks completed so far (from 0).",
              source="view.trick_no"),
        Field("leader", "int", "leader", "value", "The seat that leads it.",
              source="view.leader", read="need", bound="seat"),
        Field("plays", "Plays", "plays", "plays", "(seat, card) played so far, in order.",
              source="view.trick", read="need", bound="table"),
        Field("led", "int", "led", "suit?", "The suit led; null: none.",
              source="view.led_suit"),
        Field("winning", "SeatCardSchema", "winning", "nested",
              "The seat and card winning the trick so far; null before its first play.",
              nullable=True,
              source="None if view.win_seat < 0 else "
                     "table[view.win_seat * PACK_SIZE + view.win_card]"),
    ),
    "_step_trick",
    "StepTrickSchema",
    params=("view: PositionView", _SUITS, _TABLE),
)  # fmt: skip

STEP_CANTE = RecordTable(
    "",
    "A cante of a step: as the deal's, with the cards it rests on and whether it made trump.",
    (
        *CANTE.fields,
        Field("cards", "Mask", "cards", "cards", _CARDS_OF,
              source="_cante_cards(view, r.suit)"),
        Field("made_trump", "bool", "made_trump", "value",
              "The deal's first call, which made trump (calls only).",
              source="index == 0 and view.calls > 0"),
    ),
    "_step_cante",
    "StepCanteSchema",
    params=("r: Cante", "index: int", "view: PositionView", _CODES, _SUITS),
)  # fmt: skip

OPEN_CANTE = RecordTable(
    "",
    "King and horse held together in a suit not sung yet.",
    (
        Field("seat", "int", "seat", "value", "The seat that holds them.", source="seat"),
        Field("suit", "int", "suit", "suit", "Their suit.", source="s"),
        Field("cards", "Mask", "cards", "cards", _CARDS_OF, source="_cante_cards(view, s)"),
    ),
    "_open_cante",
    "OpenCanteSchema",
    params=("view: PositionView", "seat: int", "s: int", _CODES, _SUITS),
)  # fmt: skip

STEP_SIDE = RecordTable(
    "",
    "A side of a step (pairs): its card points, its total and the cards of its tricks.",
    (
        SIDE.fields[0],
        Field("card_points", "int", "card_points", "value", "Card points of its tricks.",
              source="view.card_points[side[0]] + view.card_points[side[1]]"),
        Field("total", "int", "total", "value", "Its total so far.",
              source="view.totals[side[0]] + view.totals[side[1]]"),
        Field("captured", "list[str] | None", "captured", "strs",
              "The cards of its tricks; null: not known.", nullable=True,
              source="None if view.captured is None else "
                     "_codes(view.captured[side[0]] | view.captured[side[1]], codes)"),
    ),
    "_step_side",
    "StepSideSchema",
    params=("view: PositionView", "side: tuple[int, ...]", _CODES),
)  # fmt: skip

_DEAL = ("state: DealState", "outcome: Outcome | None", "words: Phrases", "ruleset: Ruleset")
_SCORED = ("totals: list[int]", "last: int | None")

#: What ``POST /v1/scores`` keeps of a deal (and the end of a deal's body in a replay).
DEAL_SCORES = RecordTable(
    "",
    "A deal's renuncios, scores, outcome and (pairs) sides.",
    (
        Field("violations", "ViolationSchema", "violations", "nested-list",
              "The deal's renuncios, in the order they were made: the first decides it.",
              source="[_violation(v, state, words, codes) for v in state.violations]"),
        Field("scores", "ScoreSchema", "scores", "nested-list", "Each seat's line, in seat order.",
              source="[_score_line(state, s, last, totals) for s in range(state.players)]"),
        Field("outcome", "OutcomeSchema", "outcome", "nested",
              "How the deal ended; null while it goes on.", nullable=True,
              source="None if outcome is None else _outcome(state, outcome, words)"),
        Field("sides", "SideSchema", "sides", "nested-list", "tute-4p only",
              source="[_side(side, totals) for side in sides(ruleset, state.players)]",
              when="ruleset.pairs"),
    ),
    "_deal_scores_body",
    "DealScoresSchema",
    params=(*_DEAL, _CODES, *_SCORED),
)  # fmt: skip

DEAL_RESULT = RecordTable(
    "",
    "A deal of a replay: its setup, its tricks, cantes and exchanges, then its scores.",
    (
        Field("dealer", "int", "dealer", "value", "The dealer's seat.", source="state.dealer"),
        Field("mano", "int", "mano", "value", "The seat that led the deal's first trick.",
              source="mano(state.dealer, state.players)"),
        Field("trump", "int", "trump", "suit?", "The trump suit; null while there is none.",
              source="state.trump"),
        Field("finished", "bool", "finished", "value", "Whether the deal is over.",
              source="state.over"),
        Field("tricks", "TrickSchema", "tricks", "nested-list",
              "The tricks, the one in play last (its winner and points null).",
              source="tricks"),
        Field("cantes", "CanteSchema", "cantes", "nested-list", "The cantes or calls made.",
              source="[_cante(c, codes, suits, table) for c in state.cantes]"),
        Field("exchanges", "ExchangeSchema", "exchanges", "nested-list", "The exchanges made.",
              source="[_exchange(e, codes, suits, table) for e in state.exchanges]"),
        *DEAL_SCORES.fields,
        Field("stock_left", "int", "stock_left", "value", "tute-2p only",
              source="state.stock_left", when="ruleset.stock"),
        Field("steps", "StepSchema", "steps", "nested-list", 'With "steps": true only.',
              source="steps", when="steps is not None"),
    ),
    "_deal_body",
    "DealResultSchema",
    params=(
        *_DEAL, _CODES, _SUITS, _TABLE, *_SCORED, "tricks: list[dict[str, Any]]",
        "steps: list[dict[str, Any]] | None",
    ),
)  # fmt: skip

#: The view's fields written one to one, in the table's order.
_ONE_TO_ONE = tuple(f for f in VIEW_FIELDS if f.json is not None)

#: A step (and the view part of a position): the view's fields written one to one, then its
#: parts, each made of several of the view's fields.
STEP = RecordTable(
    "",
    "A point of a deal as the table sees it: before the first event, or after one.",
    (
        *_ONE_TO_ONE,
        Field("hands", "list[list[str]]", "hands", "masks", "Each seat's hand, in seat order.",
              source="view.hands", read="need", bound="hands"),
        Field("trick", "StepTrickSchema", "trick", "nested", "The trick on the table.",
              source="_step_trick(view, suits, table)", read="need"),
        Field("cantes", "StepCanteSchema", "cantes", "nested-list",
              "The cantes or calls made.",
              source="[_step_cante(c, i, view, codes, suits) "
                     "for i, c in enumerate(view.cantes)]"),
        Field("open_cantes", "OpenCanteSchema", "open_cantes", "nested-list",
              "King and horse held together in a suit not sung yet (declared cantes).",
              source="[_open_cante(view, seat, s, codes, suits) "
                     "for seat, s in view.open_cantes]"),
        Field("legal_moves", "MoveSchema", "legal_moves", "nested-list",
              "The moves open to the seat to act: its correct plays, then its declarations.",
              source="[_move(m, codes, suits) for m in _legal_moves(view)]"),
        Field("declarations", "DeclarationSchema", "declarations", "nested-list",
              "The declarations open to the seat to act, with their cards.",
              source="[_declaration(m, view, codes, suits) for m in view.declarations]"),
        Field("tricks", "TrickSchema", "tricks", "nested-list",
              "The tricks completed, with the draws; null: not known (from a state_id).",
              nullable=True, source="_tricks(view.tricks, codes, suits, table, memo)"),
        Field("captured", "list[list[str]] | None", "captured", "masks?",
              "Each seat's cards of the tricks it won; null: not known.", nullable=True,
              source="view.captured"),
        Field("exchanges", "ExchangeSchema", "exchanges", "nested-list", "The exchanges made.",
              source="[_exchange(e, codes, suits, table) for e in view.exchanges]"),
        Field("decided", "DecidedSchema", "decided", "nested",
              "The event that decided the deal before its end (first renuncio or tute).",
              nullable=True,
              source="None if view.decisive is None else "
                     "_decisive(view.decisive, codes, suits, table)"),
        Field("outcome", "OutcomeFactsSchema", "outcome", "nested",
              "How the deal ended; null while it goes on.", nullable=True,
              source="None if view.outcome is None else _outcome_facts(view.outcome)"),
        Field("sides", "StepSideSchema", "sides", "nested-list", "tute-4p only",
              source="[_step_side(view, side, codes) "
                     "for side in sides(header.ruleset, len(view.hands))]",
              when="header.ruleset.pairs"),
        Field("stock_left", "int", "stock_left", "value", "tute-2p only",
              source="view.stock_left", when="header.ruleset.stock"),
        Field("stock_known", "tuple[Card, ...]", "stock_known", "card-list",
              "tute-2p only: stock cards everyone knows (the turned card).",
              source="view.stock_known", when="header.ruleset.stock"),
    ),
    "_view_json",
    "StepSchema",
    params=(
        "view: PositionView", "header: Header", _CODES, _SUITS, _TABLE,
        "memo: StepMemo | None",
    ),
    subject="view",
)  # fmt: skip

#: The answer records declared here, besides the position view.
RECORDS: Final[tuple[RecordTable, ...]] = (
    TRICK, CANTE, EXCHANGE, RENUNCIO, DECISIVE, SCORE_LINE, REPLAY_BODY, OUTCOME_FACTS, OUTCOME,
    VIOLATION, SIDE, DEAL_SCORES, DEAL_RESULT, SCORES_BODY, MOVE, DECLARATION, STEP_TRICK,
    STEP_CANTE, OPEN_CANTE, STEP_SIDE, STEP,
)  # fmt: skip
