"""The tests' reference referee: the rules and the contract in plain Python, apart from the engine
(docs/rules.md, docs/api.md).

It never imports ``arbiter``. A card is a ``(rank, suit letter)`` pair, e.g. ``(12, "C")`` for
the rey de copas, kept in lists, sets and dicts (never bitmasks); codes are read and written
here too. This module holds the one definition in the tests of each table of the rules (suits,
ranks, trick order, card points, the pack and hand size of every table, the rulesets' kinds,
option defaults, the order of the illegal codes) and the functions the test modules compare the
engine with. A ruleset it has no rules for is refused loudly (:class:`UnknownRuleset`), never
judged by another's, and tests/test_rulesets.py checks it knows every table the engine has:

* a follower's correct plays and the obligation a play breaks (§3), the trick winner (§2), the
  calls in a trick (§4): :func:`correct_plays`, :func:`broken_obligation`, :func:`winner_index`,
  :func:`calls`;
* a deal replayed from its log's JSON (:class:`Deal`): hands, stock, turn, trick, tricks,
  cantes, exchanges, renuncios, why an event is illegal in the order of docs/api.md, the legal
  moves;
* deal outcomes of the three systems with the precedence of renuncio and tute (§6, §7,
  :func:`outcome`), match standings (:class:`Standing`), and the whole replay body of docs/api.md
  (:func:`replay`, messages left out, Spanish codes).

Vocabulary (Spanish game terms): *asistir* follow suit, *montar* beat the card winning the
trick, *fallar* trump when void, *pisar* overtrump; a *renuncio* breaks one of them; a *cante*
is a king and horse of one suit declared ("las veinte", "las cuarenta" in trumps); a *tute* is
four kings or four horses in one hand; the *mano* leads the first trick.
"""

from __future__ import annotations

from typing import Any

Card = tuple[int, str]  # (rank, Spanish suit letter)
Play = tuple[int, Card]  # (seat, card) in a trick
RefEvent = tuple[str, int, Any]  # (type, seat, card | suit letter | "kings"/"horses" | None)

# --- docs/rules.md §1: cards ----------------------------------------------------------------------

SUITS = "OCEB"  # oros, copas, espadas, bastos
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
TRICK_ORDER = (1, 3, 12, 11, 10, 7, 6, 5, 4, 2)  # highest first
#: A rank's place in the trick order: the higher beats the lower (only this order counts).
STRENGTH = {rank: len(TRICK_ORDER) - i for i, rank in enumerate(TRICK_ORDER)}
POINTS = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2, 7: 0, 6: 0, 5: 0, 4: 0, 2: 0}
KING, HORSE, SEVEN = 12, 11, 7
LAST_TRICK = 10  # "diez de últimas" (§5)
#: French-suited notation: rank letters (J sota, Q caballo, K rey) and suits.
FRENCH_RANKS = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "J", 11: "Q", 12: "K"}
FRENCH_SUITS = {"O": "D", "C": "H", "E": "S", "B": "C"}  # diamonds, hearts, spades, clubs
FRENCH_SYMBOLS = {"O": "\u2666", "C": "\u2665", "E": "\u2660", "B": "\u2663"}

# --- docs/rules.md §6: the rulesets ---------------------------------------------------------------

#: (ruleset, players) -> cards per hand, for every table the rulesets allow.
HAND_SIZE = {
    ("tute-2p", 2): 8,
    ("tute-3p", 3): 12,
    ("tute-4p", 4): 10,
    ("tute-cabron", 3): 12,
    ("tute-gana-pierde", 3): 12,
    ("tute-gana-pierde", 4): 10,
    ("tute-gana-pierde", 5): 8,
}
TABLES = tuple(HAND_SIZE)
#: The rank taken out of the 40-card pack: the 2s with three players, the aces in
#: three-handed gana-pierde (as seed 000 says).
REMOVED = {("tute-3p", 3): 2, ("tute-cabron", 3): 2, ("tute-gana-pierde", 3): 1}
DECLARED = ("tute-2p", "tute-3p", "tute-4p")  # cantes declared by players, tute
CALLS = ("tute-cabron", "tute-gana-pierde")  # calls in the trick; no trump until the first
DEALER_TRUMP = ("tute-3p", "tute-4p")  # the dealer's last card fixes trump
STOCK = "tute-2p"  # a stock: draws, free play while it lasts, the exchange of the seven
PAIRS = "tute-4p"  # seats 0+2 against 1+3
#: The match systems: the standings column that decides each ruleset's match, and the option
#: giving its target (deals won and tokens count winners, loser points count losers).
MATCH = {
    "tute-2p": ("deals_won", "match_target"),
    "tute-3p": ("deals_won", "match_target"),
    "tute-4p": ("deals_won", "match_target"),
    "tute-cabron": ("loser_points", "loser_target"),
    "tute-gana-pierde": ("tokens", "token_target"),
}
DEFAULT_OPTIONS: dict[str, Any] = {
    "match_target": 3,
    "tie_break": "last_trick",
    "cantes_per_trick": 1,
    "trump_when_cannot_overtrump": True,
    "partner_relief": False,
    "tute_requires_trick_won": False,
    "exchange_requires_trick_won": False,
    "renuncio_penalty": "lose_deal",
    "loser_target": 4,
    "token_target": 3,
    "call_ranks": (11, 12),
}
#: docs/api.md: when several illegal codes apply the first of these is reported (``match_over``
#: and ``deal_over`` come before all of them).
#: Every ruleset the reference knows (the tables above give each its rules).
KNOWN = tuple(dict.fromkeys(name for name, _ in HAND_SIZE))


class UnknownRuleset(KeyError):
    """A ruleset the reference has no rules for: cross-checking it against the engine would
    compare the engine with nothing."""


def known(name: str) -> str:
    """``name``, if the reference knows its rules; else :class:`UnknownRuleset`, loudly — a
    ruleset added to the engine must be written here too (docs/rules.md §6: its hand sizes,
    pack, kind of cantes, trump and match), or every cross-check would leave it out."""
    if name not in KNOWN:
        raise UnknownRuleset(
            f"tests/reference.py does not know the ruleset {name!r}: write its rules "
            f"(docs/rules.md §6) in the reference's tables; it knows {', '.join(KNOWN)}"
        )
    return name


def _check_tables() -> None:
    """Each known ruleset has one kind of cantes and a match system, and every table names
    known rulesets only (a ruleset half-written here fails at import, not in a test)."""
    for name in KNOWN:
        if (name in DECLARED) == (name in CALLS) or name not in MATCH:
            raise UnknownRuleset(f"tests/reference.py: {name} lacks its cantes or its match")
    named = {*DECLARED, *CALLS, *DEALER_TRUMP, STOCK, PAIRS, *MATCH, *(r for r, _ in REMOVED)}
    for name in named:
        known(name)


_check_tables()

ILLEGAL_ORDER = {
    "play": ("out_of_turn", "card_not_in_hand"),
    "sing": ("not_in_ruleset", "not_on_lead", "no_trick_won", "cante_already_declared",
             "suit_already_sung", "pair_not_held"),
    "tute": ("not_in_ruleset", "not_on_lead", "no_trick_won", "tute_not_held"),
    "exchange": ("not_in_ruleset", "not_on_lead", "no_stock", "no_trick_won", "seven_not_held"),
}  # fmt: skip


# --- cards and codes -----------------------------------------------------------------------------


def card(text: str, notation: str = "spanish") -> Card:
    """A card code of either notation, any case -> reference card."""
    rank_part, suit_part = text[:-1].upper(), text[-1]
    if notation == "french":
        ranks = {letter: r for r, letter in FRENCH_RANKS.items()}
        return ranks[rank_part], suit_letter(suit_part, "french")
    return int(rank_part), suit_part.upper()


def suit_letter(text: str, notation: str = "spanish") -> str:
    """A suit code of either notation (French letters or symbols) -> Spanish suit letter."""
    if notation == "french":
        return next(s for s in SUITS if text.upper() in (FRENCH_SUITS[s], FRENCH_SYMBOLS[s]))
    return text.upper()


def code(c: Card, notation: str = "spanish") -> str:
    """The canonical code of a card (French letters for ``notation="french"``)."""
    rank, suit = c
    if notation == "french":
        return FRENCH_RANKS[rank] + FRENCH_SUITS[suit]
    return f"{rank}{suit}"


def codes(cards: Any) -> list[str]:
    return [code(c) for c in cards]


def rank(text: str) -> int:
    """The rank of a Spanish card code."""
    return int(text[:-1])


def suit(text: str) -> str:
    """The suit letter of a Spanish card code."""
    return text[-1].upper()


def display(cards: Any) -> list[Card]:
    """Cards as a player reads them: by suit (O C E B), then by rank number."""
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), c[0]))


def pack(removed: int | None = None) -> list[Card]:
    """The 40-card pack without rank ``removed``, by suit then rank."""
    return [(r, s) for s in SUITS for r in RANKS if r != removed]


def pack_of(name: str, n: int) -> list[Card]:
    """The pack of ruleset ``name`` with ``n`` players."""
    return pack(REMOVED.get((known(name), n)))


def pack_points(name: str, n: int) -> int:
    return sum(POINTS[r] for r, _ in pack_of(name, n))


def tricks_per_deal(name: str, n: int) -> int:
    return len(pack_of(name, n)) // n


def partner(seat: int) -> int:
    return (seat + 2) % 4


def side_of(name: str, seat: int) -> tuple[int, ...]:
    """The seats that share points and outcomes with ``seat``."""
    return (seat % 2, seat % 2 + 2) if name == PAIRS else (seat,)


def options(log: dict[str, Any]) -> dict[str, Any]:
    """The log's options with the defaults filled in (``call_ranks`` as a sorted pair)."""
    opts = {**DEFAULT_OPTIONS, **(log.get("options") or {})}
    opts["call_ranks"] = tuple(sorted(opts["call_ranks"]))
    return opts


# --- docs/rules.md §2-§4: tricks, obligations, calls ----------------------------------------------


def beats(c: Card, winning: Card, trump: str | None) -> bool:
    """Whether ``c`` takes the trick from ``winning``: higher in its suit, or a first trump."""
    if c[1] == winning[1]:
        return STRENGTH[c[0]] > STRENGTH[winning[0]]
    return c[1] == trump


def winner_index(plays: list[Play], trump: str | None) -> int:
    """Index in ``plays`` of the card winning them: highest trump, else highest of the led suit."""
    led = plays[0][1][1]

    def key(i: int) -> tuple[int, int]:
        r, s = plays[i][1]
        return (2 if s == trump else 1 if s == led else 0, STRENGTH[r])

    return max(range(len(plays)), key=key)


def winning(plays: list[Play], trump: str | None) -> Play:
    """The (seat, card) winning the trick so far."""
    return plays[winner_index(plays, trump)]


def trick_points(plays: list[Play]) -> int:
    return sum(POINTS[c[0]] for _, c in plays)


def correct_plays(
    hand: set[Card],
    trick: list[Play],
    trump: str | None,
    relieved: bool = False,
    must_trump: bool = True,
) -> set[Card]:
    """The plays of a follower that are not a renuncio (strict play, non-empty ``trick``).

    ``relieved``: the partner is winning and ``partner_relief`` is on (only asistir is due);
    ``must_trump``: the option ``trump_when_cannot_overtrump``.
    """
    led = trick[0][1][1]
    win = winning(trick, trump)[1]
    follow = {c for c in hand if c[1] == led}
    if follow:
        if relieved or win[1] != led:  # a trump wins a non-trump lead: any card of the suit
            return follow
        return {c for c in follow if beats(c, win, trump)} or follow
    if trump is None or relieved:
        return set(hand)
    trumps = {c for c in hand if c[1] == trump}
    if not trumps:
        return set(hand)
    in_trick = [STRENGTH[c[0]] for _, c in trick if c[1] == trump]
    if not in_trick:
        return trumps
    over = {c for c in trumps if STRENGTH[c[0]] > max(in_trick)}
    return over or (trumps if must_trump else set(hand))


def broken_obligation(
    hand: set[Card], trick: list[Play], trump: str | None, played: Card
) -> str | None:
    """The first obligation whose definition (docs/rules.md §3) playing ``played`` breaks."""
    led = trick[0][1][1]
    win = winning(trick, trump)[1]

    def beats_winning(c: Card) -> bool:
        return c[1] == led == win[1] and STRENGTH[c[0]] > STRENGTH[win[0]]

    held_led = any(c[1] == led for c in hand)
    if held_led and played[1] != led:
        return "asistir"
    if played[1] == led and not beats_winning(played) and any(beats_winning(c) for c in hand):
        return "montar"
    held_trump = trump is not None and any(c[1] == trump for c in hand)
    if not held_led and held_trump and played[1] != trump:
        return "fallar"
    trick_trumps = [STRENGTH[c[0]] for _, c in trick if c[1] == trump]
    if played[1] == trump and trick_trumps:
        top = max(trick_trumps)
        over = any(c[1] == trump and STRENGTH[c[0]] > top for c in hand)
        if STRENGTH[played[0]] <= top and over:
            return "pisar"
    return None


def calls(plays: list[Play], call_ranks: tuple[int, ...] = (HORSE, KING)) -> list[str]:
    """The suits called in a trick (its pairs of ``call_ranks``), in the order in which the
    second card of each pair was played (docs/rules.md §4)."""
    found = []
    for s in SUITS:
        pair = {(r, s) for r in call_ranks}
        at = [i for i, (_, c) in enumerate(plays) if c in pair]
        if len(at) == 2:
            found.append((max(at), s))
    return [s for _, s in sorted(found)]


# --- a position and a deal -----------------------------------------------------------------------


class Position:
    """What the reference needs to know about a deal in progress; a subclass fills it in."""

    name: str
    n: int
    opts: dict[str, Any]
    mano: int
    hands: list[set[Card]]
    trick: list[Play]
    tricks: list[tuple[int, list[Play], int]]  # leader, plays, winner
    cantes: list[tuple[int, str, int, int]]  # seat, suit, points, trick
    trump: str | None
    stock_left: int
    over: bool

    @property
    def strict(self) -> bool:
        # tute-2p is free while the stock lasts; the stock only changes between tricks.
        return self.name != STOCK or self.stock_left == 0

    def turn(self) -> int:
        if self.trick:
            return (self.trick[-1][0] + 1) % self.n
        return self.tricks[-1][2] if self.tricks else self.mano

    def relieved(self, seat: int) -> bool:
        if self.name != PAIRS or not self.opts["partner_relief"] or not self.trick:
            return False
        return winning(self.trick, self.trump)[0] == partner(seat)

    def correct(self, seat: int) -> set[Card]:
        """The plays of ``seat`` that are not a renuncio now (the whole hand on lead)."""
        hand = self.hands[seat]
        if not self.trick or not self.strict:
            return set(hand)
        must = self.opts["trump_when_cannot_overtrump"]
        return correct_plays(hand, self.trick, self.trump, self.relieved(seat), must)

    def illegal(self, kind: str, seat: int, arg: Any) -> str | None:
        """Why an event cannot happen (docs/rules.md §8): the first code that applies in the order
        of docs/api.md, or None."""
        if self.over:
            return "deal_over"
        hand = self.hands[seat]
        turn = self.turn()
        on_lead = seat == turn and not self.trick
        won_last = bool(self.tricks) and self.tricks[-1][2] == seat
        opts = self.opts
        if kind == "play":
            applies = {"out_of_turn": seat != turn, "card_not_in_hand": arg not in hand}
        elif kind == "sing":
            just = len(self.tricks) - 1
            declared = sum(1 for c in self.cantes if c[3] == just)
            applies = {
                "not_in_ruleset": self.name not in DECLARED,
                "not_on_lead": not on_lead,
                "no_trick_won": not won_last,
                "cante_already_declared": declared >= opts["cantes_per_trick"],
                "suit_already_sung": any(c[1] == arg for c in self.cantes),
                "pair_not_held": not {(KING, arg), (HORSE, arg)} <= hand,
            }
        elif kind == "tute":
            four = {(KING if arg == "kings" else HORSE, s) for s in SUITS}
            applies = {
                "not_in_ruleset": self.name not in DECLARED,
                "not_on_lead": not on_lead,
                "no_trick_won": opts["tute_requires_trick_won"] and not won_last,
                "tute_not_held": not four <= hand,
            }
        else:
            applies = {
                "not_in_ruleset": self.name != STOCK,
                "not_on_lead": not on_lead,
                "no_stock": self.stock_left == 0,
                "no_trick_won": opts["exchange_requires_trick_won"] and not won_last,
                "seven_not_held": (SEVEN, self.trump) not in hand,
            }
        return next((c for c in ILLEGAL_ORDER[kind] if applies[c]), None)

    def declarations(self, seat: int) -> list[RefEvent]:
        """The declarations open to ``seat`` now."""
        every: list[RefEvent] = [("sing", seat, s) for s in SUITS]
        every += [("tute", seat, "kings"), ("tute", seat, "horses"), ("exchange", seat, None)]
        return [d for d in every if self.illegal(*d) is None]


def event_of(raw: dict[str, Any], notation: str = "spanish") -> RefEvent:
    """A log event (docs/api.md) -> (type, seat, card | suit letter | "kings"/"horses" | None)."""
    kind, seat = raw["type"], raw["seat"]
    if kind == "play":
        return kind, seat, card(raw["card"], notation)
    if kind == "sing":
        return kind, seat, suit_letter(raw["suit"], notation)
    if kind == "tute":
        return kind, seat, raw["of"]
    return kind, seat, None


class Deal(Position):
    """A deal replayed from the log's JSON (``hands`` or ``deck``, docs/api.md)."""

    def __init__(
        self,
        name: str,
        n: int,
        opts: dict[str, Any],
        raw: dict[str, Any],
        dealer: int,
        notation: str = "spanish",
    ) -> None:
        self.name, self.n, self.opts, self.dealer = known(name), n, opts, dealer
        self.mano = (dealer + 1) % n
        size = HAND_SIZE[name, n]
        stock: list[Card] = []
        trump_card: Card | None = None
        if "deck" in raw:
            deck = [card(c, notation) for c in raw["deck"]]
            hands: list[list[Card]] = [[] for _ in range(n)]
            for i, c in enumerate(deck[: size * n]):  # one at a time from the mano
                hands[(self.mano + i) % n].append(c)
            if name == STOCK:
                stock = deck[size * n :]
            if name in DECLARED:
                trump_card = deck[-1]
        else:
            hands = [[card(c, notation) for c in hand] for hand in raw["hands"]]
            if name == STOCK:
                stock = [card(c, notation) for c in raw["stock"]]
                trump_card = stock[-1]
            elif name in DEALER_TRUMP:
                trump_card = card(raw["trump_card"], notation)
        self.hands = [set(h) for h in hands]
        self.stock = stock
        self.trump = None if trump_card is None else trump_card[1]
        self.trick = []
        self.tricks = []
        self.full_tricks: list[dict[str, Any]] = []
        self.cantes = []
        self.exchanges: list[dict[str, Any]] = []
        self.violations: list[dict[str, Any]] = []
        self.decisive: tuple[str, int] | None = None  # the first renuncio or tute (§7)
        self.over = False
        self.last_trick: int | None = None
        self.outcome: dict[str, Any] | None = None

    @property
    def stock_left(self) -> int:
        return len(self.stock)

    @property
    def last_winner(self) -> int | None:
        return self.tricks[-1][2] if self.tricks else None

    def apply(self, kind: str, seat: int, arg: Any, index: int) -> None:
        """Apply the ``index``-th event (known to be legal)."""
        if kind == "play":
            if self.trick and self.strict:
                correct = self.correct(seat)
                if arg not in correct:
                    obligation = broken_obligation(self.hands[seat], self.trick, self.trump, arg)
                    self.violations.append(
                        {
                            "event": index,
                            "seat": seat,
                            "card": code(arg),
                            "kind": "renuncio",
                            "obligation": obligation,
                            "correct": codes(display(correct)),
                            "trick": len(self.tricks),
                        }
                    )
                    if self.decisive is None:
                        self.decisive = ("renuncio", seat)
            self.hands[seat].remove(arg)
            self.trick.append((seat, arg))
            if len(self.trick) == self.n:
                self._finish_trick()
        elif kind == "sing":
            points = 40 if arg == self.trump else 20
            self.cantes.append((seat, arg, points, len(self.tricks) - 1))
        elif kind == "tute":
            if self.decisive is None:
                self.decisive = ("tute", seat)
            self.over = True
        else:
            assert self.trump is not None  # the exchange is a tute-2p move
            seven, turned = (SEVEN, self.trump), self.stock[-1]
            self.hands[seat].remove(seven)
            self.hands[seat].add(turned)
            self.stock[-1] = seven
            self.exchanges.append(
                {"seat": seat, "gave": code(seven), "took": code(turned),
                 "trick": len(self.tricks) - 1}
            )  # fmt: skip

    def _finish_trick(self) -> None:
        plays = self.trick
        leader = plays[0][0]
        winner = winning(plays, self.trump)[0]
        if self.name in CALLS:
            for s in calls(plays, self.opts["call_ranks"]):
                first = not self.cantes
                if first:
                    self.trump = s  # from the next trick on
                self.cantes.append((winner, s, 40 if first else 20, len(self.tricks)))
        draws = []
        if self.stock:
            for k in range(self.n):  # the winner draws first
                seat = (winner + k) % self.n
                c = self.stock.pop(0)
                self.hands[seat].add(c)
                draws.append({"seat": seat, "card": code(c)})
        self.tricks.append((leader, plays, winner))
        self.full_tricks.append(
            {
                "leader": leader,
                "plays": [{"seat": s, "card": code(c)} for s, c in plays],
                "winner": winner,
                "points": trick_points(plays),
                "draws": draws,
            }
        )
        self.trick = []
        if not any(self.hands):
            self.over = True
            self.last_trick = winner

    # --- accounting (§5) ---------------------------------------------------------------------

    def card_points(self, seat: int) -> int:
        return sum(t["points"] for t in self.full_tricks if t["winner"] == seat)

    def tricks_won(self, seat: int) -> int:
        return sum(1 for t in self.full_tricks if t["winner"] == seat)

    def cante_points(self, seat: int) -> int:
        return sum(c[2] for c in self.cantes if c[0] == seat)

    def totals(self) -> list[int]:
        return [
            self.card_points(s) + self.cante_points(s) + (LAST_TRICK if self.last_trick == s else 0)
            for s in range(self.n)
        ]

    def decide(self) -> dict[str, Any]:
        won = [self.tricks_won(s) for s in range(self.n)]
        return outcome(
            self.name, self.n, self.opts, self.totals(), won, self.last_trick, self.decisive
        )

    def body(self) -> dict[str, Any]:
        """The deal as docs/api.md's replay body shows it (messages left out)."""
        totals = self.totals()
        tricks = list(self.full_tricks)
        if self.trick:
            tricks.append(
                {
                    "leader": self.trick[0][0],
                    "plays": [{"seat": s, "card": code(c)} for s, c in self.trick],
                    "winner": None,
                    "points": None,
                    "draws": [],
                }
            )
        out: dict[str, Any] = {
            "dealer": self.dealer,
            "mano": self.mano,
            "trump": self.trump,
            "finished": self.over,
            "tricks": tricks,
            "cantes": [
                {"seat": s, "suit": suit, "points": p, "trick": t} for s, suit, p, t in self.cantes
            ],
            "exchanges": self.exchanges,
            "violations": self.violations,
            "scores": [
                {
                    "seat": s,
                    "tricks": self.tricks_won(s),
                    "card_points": self.card_points(s),
                    "cantes": self.cante_points(s),
                    "last_trick": LAST_TRICK if self.last_trick == s else 0,
                    "total": totals[s],
                }
                for s in range(self.n)
            ],
            "outcome": self.outcome,
        }
        if self.name == STOCK:
            out["stock_left"] = len(self.stock)
        if self.name == PAIRS:
            out["sides"] = [
                {"seats": [a, b], "total": totals[a] + totals[b]} for a, b in ((0, 2), (1, 3))
            ]
        return out


def dealers(log: dict[str, Any]) -> list[int]:
    """Each deal's dealer: as given, else the seat after the previous deal's dealer (the first
    deal's default dealer is the last seat, so seat 0 is mano)."""
    n = len(log["players"])
    out, dealer = [], n - 1
    for raw in log["deals"]:
        dealer = raw.get("dealer", dealer)
        out.append(dealer)
        dealer = (dealer + 1) % n
    return out


def deal_of(log: dict[str, Any], d: int = 0) -> Deal:
    """Deal ``d`` of ``log`` as dealt, before its events."""
    name, n = log["ruleset"], len(log["players"])
    notation = log.get("notation", "spanish")
    return Deal(name, n, options(log), log["deals"][d], dealers(log)[d], notation)


def played(log: dict[str, Any], d: int = 0) -> Deal:
    """Deal ``d`` of ``log`` after all its events, each of which must be legal."""
    deal = deal_of(log, d)
    notation = log.get("notation", "spanish")
    for j, raw in enumerate(log["deals"][d]["events"]):
        event = event_of(raw, notation)
        why = deal.illegal(*event)
        assert why is None, (d, j, raw, why)
        deal.apply(*event, j)
    return deal


# --- docs/rules.md §6, §7: outcomes and matches ---------------------------------------------------


def outcome(
    name: str,
    n: int,
    opts: dict[str, Any],
    totals: list[int],
    tricks_won: list[int],
    last_trick: int | None,
    decisive: tuple[str, int] | None,
) -> dict[str, Any]:
    """The outcome of a finished deal: ``{"winners", "losers", "reason"}``. ``decisive`` is
    the first renuncio or tute of the deal as ``(kind, seat)``, which decides it whatever the
    score; ``last_trick`` the seat that took the last trick (None after a tute)."""
    known(name)
    everyone = set(range(n))

    def split(winners: set[int], reason: str) -> dict[str, Any]:
        losers = [s for s in range(n) if s not in winners]
        return {"winners": sorted(winners), "losers": losers, "reason": reason}

    def most_points(groups: list[tuple[int, ...]]) -> tuple[set[int], str]:
        sums = [sum(totals[s] for s in g) for g in groups]
        leaders = [g for g, t in zip(groups, sums, strict=True) if t == max(sums)]
        if len(leaders) == 1:
            return set(leaders[0]), "points"
        if opts["tie_break"] == "last_trick":
            for g in leaders:
                if last_trick in g:
                    return set(g), "last_trick"
        return {s for g in leaders for s in g}, "tie"

    if decisive is not None:
        kind, seat = decisive
        offender = set(side_of(name, seat))
        if kind == "tute":
            return split(offender, "tute")
        if name == "tute-3p":  # the offender loses, the best of the others wins
            best, _ = most_points([(s,) for s in range(n) if s != seat])
            return split(best, "renuncio")
        return split(everyone - offender, "renuncio")
    if name in DECLARED:
        groups = [(0, 2), (1, 3)] if name == PAIRS else [(s,) for s in range(n)]
        best, reason = most_points(groups)
        if reason == "tie" and name != "tute-3p":
            return {"winners": [], "losers": [], "reason": "tie"}  # a drawn deal
        return split(best, reason)
    no_trick = {s for s in range(n) if tricks_won[s] == 0}
    tied = {s for s in range(n) if totals.count(totals[s]) > 1}
    if no_trick:  # takes precedence in both systems
        return split(everyone - no_trick, "no_tricks")
    if name == "tute-cabron":  # who loses the hand
        over = {s for s in range(n) if totals[s] > 100}
        if over:
            return split(everyone - over, "over_100")
        if tied:
            return split(everyone - tied, "tied")
        middle = sorted(range(n), key=totals.__getitem__)[1]
        return split(everyone - {middle}, "middle")
    if name != "tute-gana-pierde":
        raise UnknownRuleset(f"tests/reference.py: no outcome of {name}'s deals")
    # gana-pierde: the most and the fewest points win, a player tied with anyone loses
    extremes = {s for s in range(n) if totals[s] in (max(totals), min(totals))} - tied
    return split(extremes, "tied" if tied else "extremes")


class Standing:
    """A match's standing: deals won, loser points or tokens, and whether it is decided."""

    def __init__(self, name: str, n: int, opts: dict[str, Any]) -> None:
        self.name, self.n, self.opts = known(name), n, opts
        self.counts = {"deals_won": [0] * n, "loser_points": [0] * n, "tokens": [0] * n}
        self.over = False
        self.winners: list[int] = []
        self.losers: list[int] = []

    def record(self, out: dict[str, Any], decisive: tuple[str, int] | None) -> None:
        """Count a finished deal's outcome; ``decisive`` as in :func:`outcome`."""
        column, target_option = MATCH[self.name]
        counted = out["losers"] if column == "loser_points" else out["winners"]
        for s in counted:
            self.counts[column][s] += 1
        target = self.opts[target_option]
        reached = [s for s in range(self.n) if self.counts[column][s] >= target]
        rest = [s for s in range(self.n) if s not in reached]
        if reached:  # who reaches the loser target loses; the other targets win
            self.over = True
            self.winners, self.losers = (rest, reached) if column == "loser_points" else (
                reached, rest
            )  # fmt: skip
        if (
            decisive is not None
            and decisive[0] == "renuncio"
            and self.opts["renuncio_penalty"] == "lose_match"
        ):
            self.over = True
            self.losers = list(side_of(self.name, decisive[1]))
            self.winners = [s for s in range(self.n) if s not in self.losers]

    def standings(self, players: list[str]) -> list[dict[str, Any]]:
        return [
            {"seat": s, "player": players[s], **{k: v[s] for k, v in self.counts.items()}}
            for s in range(self.n)
        ]


def replay(log: dict[str, Any]) -> dict[str, Any]:
    """The whole replay body of docs/api.md for a Spanish-notation log (messages left out)."""
    name, players = log["ruleset"], log["players"]
    n, opts = len(players), options(log)
    standing = Standing(name, n, opts)
    deals: list[Deal] = []
    illegal = None
    for di, (raw, dealer) in enumerate(zip(log["deals"], dealers(log), strict=True)):
        if standing.over:
            illegal = {"deal": di, "event": 0 if raw["events"] else None, "code": "match_over"}
            break
        deal = Deal(name, n, opts, raw, dealer)
        deals.append(deal)
        for j, raw_event in enumerate(raw["events"]):
            event = event_of(raw_event)
            why = "match_over" if standing.over else deal.illegal(*event)
            if why is not None:
                illegal = {"deal": di, "event": j, "code": why}
                break
            deal.apply(*event, j)
            if deal.over and deal.outcome is None:
                deal.outcome = deal.decide()
                standing.record(deal.outcome, deal.decisive)
        if illegal is not None:
            break
    current = deals[-1] if deals and deals[-1].outcome is None else None
    if illegal is not None:
        status = "invalid"
    elif current is not None and not standing.over:
        status = "in_progress"
    else:
        status = "complete"
    nxt = None
    if status == "in_progress":
        assert current is not None
        seat = current.turn()
        moves: list[dict[str, Any]] = [
            {"type": "play", "seat": seat, "card": code(c)} for c in display(current.correct(seat))
        ]
        for kind, _, arg in current.declarations(seat):
            move: dict[str, Any] = {"type": kind, "seat": seat}
            if kind == "sing":
                move["suit"] = arg
            elif kind == "tute":
                move["of"] = arg
            moves.append(move)
        nxt = {"seat": seat, "player": players[seat], "legal_moves": moves}
    return {
        "state_id": None,
        "status": status,
        "illegal": illegal,
        "deals": [d.body() for d in deals],
        "match": {
            "standings": standing.standings(players),
            "over": standing.over,
            "winners": sorted(standing.winners),
            "losers": sorted(standing.losers),
        },
        "next": nxt,
    }
