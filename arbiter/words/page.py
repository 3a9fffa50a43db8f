"""The referee's page's words (``page.`` keys): labels, headings, buttons, es and en.

Every explanation of a ruling comes from the API's answer; these are the page's own words.
Templates use them through ``t(key)`` without the prefix, and the page's script gets both
tables (:func:`arbiter.i18n.area`) and fills ``{field}`` placeholders as text, never as markup.
The rulesets' titles are the referee's words (``ruleset.<name>``), given to the page under its
own prefix too (``page.ruleset.<name>``), not written again.
"""

from __future__ import annotations

from typing import Final

from arbiter.words import referee
from arbiter.words.lang import LANGS, Lang

_OWN: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "page.title": "Referee's view",
        "page.tagline": (
            "Open the log of a game: every trick, every renuncio, the scores and the outcome, as "
            "the referee rules them."
        ),
        "page.nav.referee": "Referee",
        "page.skip": "Skip to the content",
        "page.nav.enter": "Enter a deal",
        "page.nav.rules": "Rules",
        "page.nav.api": "API contract",
        "page.nav.docs": "Interactive API",
        "page.lang.label": "Language",
        "page.load.heading": "Open a log",
        "page.referee.to_editor": "No log? Enter the deal at the table, card by card.",
        "page.load.file": "Choose a .json file",
        "page.load.drop": "…or drop a log file anywhere on the page.",
        "page.load.paste": "Paste a log (JSON)",
        "page.load.paste_placeholder": ('{"ruleset": "tute-2p", "players": ["ana", "bea"], ...}'),
        "page.load.submit": "Adjudicate",
        "page.load.example": "Or open a bundled example",
        "page.load.example_none": "Choose an example…",
        "page.load.share": "Link to this ruling",
        "page.load.copy": "Copy link",
        "page.load.copied": "Link copied.",
        "page.load.print": "Print the ruling",
        "page.load.key": "API key",
        "page.load.key_hint": "This server asks for an API key. It is sent only to this server.",
        "page.load.key_submit": "Send with the key",
        "page.privacy": (
            "The log stays in your browser; it is sent only to this server's own /v1/replays. A "
            "shared link carries the log after the #, which browsers never send."
        ),
        "page.state.loading": "Adjudicating…",
        "page.state.loading_page": "Loading…",
        "page.state.asking": "Asking the referee…",
        "page.state.empty": "No log opened yet.",
        "page.error.heading": "The log could not be adjudicated",
        "page.error.not_json": "This is not JSON: {detail}",
        "page.error.not_object": "A log is a JSON object with ruleset, players and deals.",
        "page.error.fragment": "The link's log is not base64url of UTF-8 JSON: {detail}",
        "page.error.network": "The server could not be reached: {detail}",
        "page.error.file": "The file could not be read: {detail}",
        "page.status.complete": "Complete",
        "page.status.in_progress": "In progress",
        "page.status.invalid": "Invalid log",
        "page.ruling.players": "Players",
        "page.ruling.options": "Options",
        "page.details.heading": "The table's details (optional)",
        "page.details.event": "Event",
        "page.details.round": "Round",
        "page.details.table": "Table",
        "page.details.date": "Date",
        "page.details.referee": "Referee",
        "page.details.signature": "The referee's signature",
        "page.ruling.no_options": "defaults",
        "page.ruling.deals.one": "{count} deal",
        "page.ruling.deals.other": "{count} deals",
        "page.ruling.renuncios.one": "{count} renuncio",
        "page.ruling.renuncios.other": "{count} renuncios",
        "page.ruling.no_renuncio": "No renuncio.",
        "page.summary.heading": "The ruling",
        "page.summary.clean": (
            "No renuncio and no illegal event: every deal was played by the rules."
        ),
        "page.summary.renuncio": "Deal {deal}: {name} renounced in trick {trick} — {failed}",
        "page.summary.renuncio_more": (
            "Also in deal {deal}: {name} renounced in trick {trick} — {failed}"
        ),
        "page.summary.lose.one": "{names} loses the deal",
        "page.summary.lose.other": "{names} lose the deal",
        "page.summary.unfinished": "the deal is not finished",
        "page.summary.decided_by": "the deal was decided otherwise ({reason})",
        "page.summary.illegal": "Deal {deal}: the referee stopped at event {event}",
        "page.summary.illegal_deal": "Deal {deal}: the referee did not play it",
        "page.failed.asistir": "failed to asistir (follow suit)",
        "page.failed.montar": "failed to montar (beat the winning card)",
        "page.failed.fallar": "failed to fallar (trump when void)",
        "page.failed.pisar": "failed to pisar (overtrump)",
        "page.deal.heading": "Deal {number}",
        "page.deal.dealer": "Dealer",
        "page.deal.mano": "Mano (leads first)",
        "page.deal.trump": "Trump",
        "page.deal.trump_none": "none",
        "page.deal.turned": "turned card",
        "page.deal.dealer_card": "the dealer's card",
        "page.deal.trump_by_call": "fixed by the first call (trick {trick})",
        "page.deal.no_trump_yet": "none: no call yet",
        "page.deal.no_call": "none: no call in this deal",
        "page.deal.stock_left": "Stock left",
        "page.deal.unfinished": "The deal is unfinished.",
        "page.deal.step": "Step through this deal",
        "page.deal.step_close": "Close the steps",
        "page.deal.line": "winners: {winners} · losers: {losers} ({how})",
        "page.deal.line_winners": "winners: {winners} ({how})",
        "page.deal.line_nobody": "no winner ({how})",
        "page.deal.line_unfinished": "unfinished",
        "page.trick.heading": "Trick {number}",
        "page.trick.lead": "leads",
        "page.trick.wins": "wins",
        "page.trick.points": "{points} pts",
        "page.trick.in_play": "in play",
        "page.trick.renuncio": "renuncio",
        "page.trick.draws": "Draws",
        "page.trick.draw": "{name} draws",
        "page.trick.running": "Running score",
        "page.note.cante": "{name} sings {points} in {suit}",
        "page.note.call": "Call: {name} scores {points} in {suit}",
        "page.note.call_trump": (
            "Call: {name} scores {points} in {suit}; {suit} is trump from now on"
        ),
        "page.note.exchange": (
            "{name} exchanges the seven of trumps ({gave}) for the turned card ({took})"
        ),
        "page.of.kings": "kings",
        "page.of.horses": "horses",
        "page.violation.heading": "Renuncio ({obligation}): {meaning}",
        "page.violation.correct": "Correct plays",
        "page.violation.rule": "The rule",
        "page.obligation.asistir": "follow suit",
        "page.obligation.montar": "beat the winning card",
        "page.obligation.fallar": "trump when void",
        "page.obligation.pisar": "overtrump",
        "page.illegal.heading": "Illegal event",
        "page.illegal.where": "The replay stopped here, at event {event}:",
        "page.scores.heading": "Scores",
        "page.scores.player": "Player",
        "page.scores.side": "Side",
        "page.scores.tricks": "Tricks",
        "page.scores.card_points": "Card points",
        "page.scores.cantes": "Cantes",
        "page.scores.last_trick": "Last trick",
        "page.scores.total": "Total",
        "page.outcome.heading": "How the deal was decided",
        "page.outcome.winners": "Winners",
        "page.outcome.losers": "Losers",
        "page.reason.points": "on points",
        "page.reason.last_trick": "tie broken by the last trick",
        "page.reason.tie": "tie",
        "page.reason.tute": "tute",
        "page.reason.renuncio": "renuncio",
        "page.reason.no_tricks": "no trick won",
        "page.reason.over_100": "over 100 points",
        "page.reason.tied": "tied on points",
        "page.reason.middle": "middle score",
        "page.reason.extremes": "most and fewest points",
        "page.match.heading": "Match standing",
        "page.match.result": "Result",
        "page.match.counter.deals_won": "Deals won",
        "page.match.counter.loser_points": "Hands lost",
        "page.match.counter.tokens": "Tokens",
        "page.match.target": "{count} end the match",
        "page.match.over": "The match is over.",
        "page.match.not_over": "The match is not over.",
        "page.match.winner": "winner",
        "page.match.loser": "loser",
        "page.next.heading": "Next to act: {name}",
        "page.next.moves": "Allowed moves",
        "page.move.sing": "sing in {suit}",
        "page.move.tute": "tute of {of}",
        "page.move.exchange": "exchange the seven",
        "page.step.heading": "Step by step",
        "page.step.position": "Step {step} of {total}",
        "page.step.first": "Start",
        "page.step.prev": "Previous",
        "page.step.next": "Next",
        "page.step.last": "End",
        "page.step.keys": "Keys: ← → (Home, End).",
        "page.step.dealt": "As dealt.",
        "page.step.next_event": "Next: {text}",
        "page.step.last_event": "Last: {text}",
        "page.step.end": "End of the deal.",
        "page.step.stopped": "The replay stopped here.",
        "page.step.hands": "Hands at this point",
        "page.step.table": "On the table",
        "page.step.play": "{name} plays {card}",
        "page.step.sing": "{name} sings in {suit}",
        "page.step.exchange": "{name} exchanges the seven of trumps",
        "page.step.tute": "{name} declares a tute of {of}",
        "page.step.trick_won": "{name} wins trick {number} ({points} pts)",
        "page.step.renuncio": "a renuncio",
        "page.verdict.ok": "Allowed.",
        "page.verdict.refused": "Refused:",
        "page.action.sing": "Sing in {suit}",
        "page.action.tute": "Tute of {of}",
        "page.action.exchange": "Exchange the seven",
        "page.whatif.toggle": "What if {name} played something else?",
        "page.whatif.hint": (
            "Tap a card to see the referee's verdict on it; the deal as played stays as it is."
        ),
        "page.whatif.moves": "Moves to try",
        "page.whatif.editor": "Play on from here in the editor",
        "page.enter.title": "Enter a deal at the table",
        "page.enter.tagline": (
            "A disputed deal entered by hand — the table, the cards, then the moves, one tap "
            "each — and the referee judges every move as it is made. Nothing is stored: the deal "
            "stays in your browser and goes only to this server."
        ),
        "page.table.heading": "1. The table",
        "page.table.ruleset": "Ruleset",
        "page.table.count": "Players",
        "page.table.names": "The players, in playing order",
        "page.table.names_pairs": "The players, in playing order (seats 1 and 3 against 2 and 4)",
        "page.table.seat": "Seat {number}",
        "page.table.dealer": "Dealer",
        "page.table.dealer_hint": (
            "The seat after the dealer is the mano and leads the first trick."
        ),
        "page.table.notation": "Cards",
        "page.table.notation.spanish": "Spanish (O C E B)",
        "page.table.notation.french": "French (D H S C)",
        "page.table.options": "Options",
        "page.table.default": "default: {value}",
        "page.table.true": "yes",
        "page.table.false": "no",
        "page.table.mode": "How the cards are entered",
        "page.table.mode.hands": "each hand, and the turned or shown card",
        "page.table.mode.deck": "the whole deck, in dealing order",
        "page.table.mode.position": (
            "from the disputed trick: the hands now, the trick on the table, the tricks played"
        ),
        "page.position.heading": "From the disputed trick",
        "page.position.hint": (
            "Give the hands as they are now and the trick on the table, and what you know of "
            "the tricks already played: their cards, or only who won each and the points."
        ),
        "page.position.tricks": "Tricks already played",
        "page.position.led": "Trick {number} was led by",
        "page.position.led_now": "The trick on the table was led by",
        "page.position.stock_left": "Cards left in the stock",
        "page.position.now_done": (
            "The places needed are filled (a hand or the trick on the table may hold fewer "
            "cards): play from here, or tap a place to fill it."
        ),
        "page.position.start": "Play from here",
        "page.position.complete": "Every place the referee needs is filled.",
        "page.position.faults": (
            "The referee cannot start from this position; what to correct is said beside each "
            "place:"
        ),
        "page.position.place_form": "the table",
        "page.position.fault.other": "The referee refuses this part of the position.",
        "page.position.play_heading": "{ruleset} — from the disputed trick",
        "page.position.edit": "Correct the position",
        "page.position.ruling": "The ruling from this position",
        "page.position.no_moves": "No move yet: tap the card played.",
        "page.position.stopped": (
            "A renuncio: the referee rules it here. A ruling from a position goes no further "
            "than the renuncio; undo it to try another card."
        ),
        "page.position.stopped_short": "Play stops at the renuncio.",
        "page.position.unknown.heading": "What this ruling cannot know",
        "page.position.unknown.tricks": (
            "Only the tricks entered: the score of the deal is theirs."
        ),
        "page.position.unknown.renuncios": (
            "A renuncio made before this position: to it the deal is not decided yet."
        ),
        "page.position.unknown.cantes": (
            "The cantes or calls made before: their points, and the suits already sung."
        ),
        "page.position.unknown.exchanges": "An exchange of the seven made before.",
        "page.position.unknown.stock": (
            "The order of the stock: only its size and the card that shows trump."
        ),
        "page.position.unknown.match": "The deals before: the match is taken as not begun.",
        "page.entry.place.shown": "the card that shows trump",
        "page.entry.place.table": "the trick on the table, in the order played",
        "page.entry.place.trick": "trick {number}, in the order played",
        "page.entry.missing.shown": "{place}",
        "page.entry.missing.trick": "{place}, {count} more",
        "page.entry.missing.table": "{place}, {count} more",
        "page.entry.now_order": "Now: {place} — tap its cards in the pack.",
        "page.table.next": "Next: the cards",
        "page.table.name_missing": "Seat {number} has no name.",
        "page.table.names_twice": "Two players have the same name.",
        "page.option.match_target": "Deals that win the match",
        "page.option.tie_break": "On equal points",
        "page.option.cantes_per_trick": "Cantes per trick won",
        "page.option.trump_when_cannot_overtrump": "Trump even when unable to overtrump",
        "page.option.tute_requires_trick_won": "Tute only after winning a trick",
        "page.option.renuncio_penalty": "A renuncio loses",
        "page.option.exchange_requires_trick_won": (
            "Exchange the seven only after winning a trick"
        ),
        "page.option.partner_relief": "Free to play when the partner is winning",
        "page.option.loser_target": "Lost hands that lose the match",
        "page.option.token_target": "Tokens that win the match",
        "page.option.call_ranks": "The pair that makes a call",
        "page.value.tie_break.last_trick": "the last trick decides",
        "page.value.tie_break.none": "a tie",
        "page.value.renuncio_penalty.lose_deal": "the deal",
        "page.value.renuncio_penalty.lose_match": "the match",
        "page.entry.heading": "2. The cards",
        "page.entry.now": "Now: {place} — tap its cards in the pack.",
        "page.entry.now_trump": (
            "Now: the card {dealer} showed (it fixes trump) — tap it: it is one of {dealer}'s "
            "cards."
        ),
        "page.entry.now_deck": "Now: {place} — tap it in the pack.",
        "page.entry.now_done": "Every card is placed: play the deal.",
        "page.entry.pack": "The pack",
        "page.entry.target": "{place}: {count} of {size}",
        "page.entry.place.hand": "{name}'s hand",
        "page.entry.place.turned": "the turned card",
        "page.entry.place.trump": "the dealer's shown card",
        "page.entry.place.stock": "the stock, in the order it is drawn",
        "page.entry.place.deck": "the deck",
        "page.entry.place.deck_at": "card {number} of the deck",
        "page.entry.given_to": "in {place}",
        "page.entry.remove": "take it out",
        "page.entry.unknown": "Unknown card",
        "page.entry.unknown_remove": "unknown card — take it out",
        "page.entry.rest_unknown": "The rest of this hand is unknown",
        "page.entry.stock_unknown": "Unknown: draws entered as they happen",
        "page.entry.missing": "Still missing: {parts}.",
        "page.entry.missing.hand": "{place}, {count} more",
        "page.entry.missing.turned": "{place}",
        "page.entry.missing.trump": "{place}",
        "page.entry.missing.stock": "{place}, {count} more",
        "page.entry.missing.deck": "{place}, {count} more",
        "page.entry.complete": "Every card of the pack is placed.",
        "page.entry.refused.twice": "{card} is already in {place}: a card is given only once.",
        "page.entry.refused.twice_deck": "{card} is already {place}: a card is given only once.",
        "page.entry.refused.not_in_pack": "{card} is not in this ruleset's pack.",
        "page.entry.refused.full": "{place} holds no more cards: take one out first.",
        "page.entry.refused.not_dealers": (
            "{card} is not one of {dealer}'s cards: the shown card is the dealer's."
        ),
        "page.entry.back": "Back to the table",
        "page.entry.start": "Play the deal",
        "page.entry.move_here": "Move it to {place}",
        "page.entry.type_label": "Or type the cards (1O 3O 12O 7C …):",
        "page.entry.type_submit": "Give them",
        "page.entry.last_hand": (
            "the rest of the pack ({count} cards) is {place}: filled in by itself."
        ),
        "page.entry.only_unknown": (
            "{card} is the only card nobody placed: it is the unknown card in {place}, filled in."
        ),
        "page.play.heading": "3. The play — {ruleset}",
        "page.play.trick_no": "trick {number}",
        "page.play.last_trick": "{name} won the last trick ({points} pts)",
        "page.play.to_act": "to play",
        "page.play.turn": "{name} to play: tap one of {name}'s cards.",
        "page.play.over": "The deal is over.",
        "page.play.next_deal": "Enter the next deal of the match",
        "page.play.hand_of": "{name}'s cards",
        "page.play.play_it": "play it",
        "page.play.unknown_play": "unknown card — play it (name it first)",
        "page.play.declarations": "Declarations the referee allows now",
        "page.play.any_declaration": "Another declaration, as it was made",
        "page.play.undo": "Undo",
        "page.play.redo": "Redo",
        "page.play.edit_cards": "Change the cards",
        "page.play.whatif": (
            "What if: you are trying another line; the original one ({count} moves) is kept."
        ),
        "page.play.original": "Back to the original line",
        "page.play.history_start": "As dealt",
        "page.play.moves.one": "{count} move",
        "page.play.moves.other": "{count} moves",
        "page.play.so_far": "The ruling so far",
        "page.play.so_far_done": "The ruling of the deal",
        "page.play.open_ruling": "Open the ruling",
        "page.play.which_card": "Which card does {name} play? Tap it.",
        "page.play.which_draw": "Which card did {name} draw (card {number} of the stock)?",
        "page.play.draw_unknown": "Not known",
        "page.play.cancel": "Cancel",
        "page.play.only_draw": "{name} drew {card}: the only card left, filled in.",
        "page.play.only_play": "{name} played {card}: the only card not placed yet, filled in.",
        "page.drafts.heading": "Deals entered on this device",
        "page.drafts.line": "{ruleset}: {names} — {cards}, {moves} (saved {saved})",
        "page.drafts.cards.one": "{count} card",
        "page.drafts.cards.other": "{count} cards",
        "page.drafts.open": "Reopen",
        "page.drafts.delete": "Delete",
        "page.change.dealer": "{name} deals now. The hands stay as they were entered.",
        "page.change.dealer_deck": (
            "{name} deals now: the deck is dealt from {name}, so each hand goes to another seat."
        ),
        "page.change.trump_out": (
            "{card} was the shown card, but it is not in {name}'s hand: give the shown card again."
        ),
        "page.change.moves_kept.one": (
            "The move made is kept: redo it (who leads may have changed)."
        ),
        "page.change.moves_kept.other": (
            "The {count} moves made are kept: redo them (who leads may have changed)."
        ),
        "page.change.ask": (
            "This table has another pack, or its cards are entered another way: {cards} and "
            "{moves} already entered would be taken out. Change the table?"
        ),
        "page.change.confirm": "Change it, and enter the cards again",
        "page.change.keep": "Keep the table as it was",
        "page.change.done": "The table changed: the cards and moves of before were taken out.",
        "page.change.undo": "Undo the change",
        "page.export.heading": "The deal as a log",
        "page.export.hint": (
            "A log of docs/api.md: download it, copy it, or open the ruling, whose address "
            "carries it."
        ),
        "page.export.log": "The log (JSON)",
        "page.export.download": "Download",
        "page.export.copy": "Copy",
        "page.export.copied": "Copied.",
        "page.unknown.heading": "What depends on the unknown cards",
        "page.unknown.checking": "Asking the referee about every possible card…",
        "page.unknown.played.one": (
            "Every card played is known, so every trick stands as entered; what depends on the "
            "one card nobody placed is what its player held, and with it the renuncios."
        ),
        "page.unknown.played.other": (
            "Every card played is known, so every trick stands as entered; what depends on the "
            "{count} cards nobody placed is what the players held, and with it the renuncios."
        ),
        "page.unknown.stands.one": (
            "{name}'s renuncio in trick {trick} ({obligation}) stands: {name}'s unknown cards "
            "can only be the ones left (one case)."
        ),
        "page.unknown.stands.other": (
            "{name}'s renuncio in trick {trick} ({obligation}) stands whatever the unknown cards "
            "are (all {total} cases)."
        ),
        "page.unknown.depends": (
            "{name}'s renuncio in trick {trick} ({obligation}) depends on the unknown cards: it "
            "stands only {condition} ({cases} of {total} cases)."
        ),
        "page.unknown.would_be": (
            "{name}'s play in trick {trick} would be a renuncio ({obligation}) {condition} "
            "({cases} of {total} cases)."
        ),
        "page.unknown.depends_count": (
            "{name}'s renuncio in trick {trick} ({obligation}) stands in {cases} of the {total} "
            "hands {name} may have held."
        ),
        "page.unknown.would_be_count": (
            "{name}'s play in trick {trick} would be a renuncio ({obligation}) in {cases} of the "
            "{total} hands {name} may have held."
        ),
        "page.unknown.if_card": "if {name}'s unknown card is {cards}",
        "page.unknown.if_held": "if {name} held any of: {cards}",
        "page.unknown.of_suit": "a card of {suit}",
        "page.unknown.or": " or ",
        "page.unknown.none.one": (
            "No renuncio of {name}'s depends on the unknown cards: they can only be the ones "
            "left, and {name}'s plays stand."
        ),
        "page.unknown.none.other": (
            "No renuncio of {name}'s depends on the unknown cards: {name}'s plays stand in all "
            "{total} cases."
        ),
        "page.unknown.unchecked": (
            "{name} has {count} unknown cards ({cases} possible sets): too many to ask about "
            "here, so {name}'s plays are judged with them filled in one way only."
        ),
        "page.unknown.outcome.stands": "The outcome stands whatever the unknown cards are.",
        "page.unknown.outcome.depends": "The outcome depends on the unknown cards (see above).",
        "page.unknown.outcome.open": (
            "Whether the outcome depends on the unknown cards is not known: not every case "
            "could be asked."
        ),
        "page.unknown.verdict_note": (
            "{name} holds unknown cards: this verdict is for one way of filling them in; what "
            "depends on them is said below."
        ),
        "page.unknown.deal_note.one": (
            "One card of this deal was not known: the log fills it in one way so that the referee "
            "can judge, and what depends on it is said below."
        ),
        "page.unknown.deal_note.other": (
            "{count} cards of this deal were not known: the log fills them in one way so that "
            "the referee can judge, and what depends on them is said below."
        ),
        "page.unknown.verdict_doubt": "it depends on {name}'s unknown cards",
        "page.unknown.verdict_checking": (
            "With {name}'s unknown cards filled in one way this play is a renuncio; the referee "
            "is being asked about every card they may be…"
        ),
        "page.unknown.verdict_none": (
            "With {name}'s unknown cards filled in one way this play is a renuncio; whether it "
            "stands is said below."
        ),
        "page.unknown.tag": "({name} held unknown cards: see what depends on them)",
        "page.play.unknown_card": "unknown card",
    },
    "es": {
        "page.title": "Vista del árbitro",
        "page.tagline": (
            "Abre el registro de una partida: cada baza, cada renuncio, los tantos y el "
            "resultado, tal como los decide el árbitro."
        ),
        "page.nav.referee": "Árbitro",
        "page.skip": "Saltar al contenido",
        "page.nav.enter": "Anotar una mano",
        "page.nav.rules": "Reglas",
        "page.nav.api": "Contrato de la API",
        "page.nav.docs": "API interactiva",
        "page.lang.label": "Idioma",
        "page.load.heading": "Abrir un registro",
        "page.referee.to_editor": "¿Sin registro? Anota la mano en la mesa, carta a carta.",
        "page.load.file": "Elegir un archivo .json",
        "page.load.drop": "…o suelta un archivo de registro en cualquier parte de la página.",
        "page.load.paste": "Pegar un registro (JSON)",
        "page.load.paste_placeholder": ('{"ruleset": "tute-2p", "players": ["ana", "bea"], ...}'),
        "page.load.submit": "Arbitrar",
        "page.load.example": "O abre un ejemplo incluido",
        "page.load.example_none": "Elige un ejemplo…",
        "page.load.share": "Enlace a este arbitraje",
        "page.load.copy": "Copiar enlace",
        "page.load.copied": "Enlace copiado.",
        "page.load.print": "Imprimir el arbitraje",
        "page.load.key": "Clave de la API",
        "page.load.key_hint": "Este servidor pide una clave de API. Solo se envía a este servidor.",
        "page.load.key_submit": "Enviar con la clave",
        "page.privacy": (
            "El registro se queda en tu navegador; solo se envía al /v1/replays de este mismo "
            "servidor. Un enlace compartido lleva el registro tras el #, que los navegadores "
            "nunca envían."
        ),
        "page.state.loading": "Arbitrando…",
        "page.state.loading_page": "Cargando…",
        "page.state.asking": "Preguntando al árbitro…",
        "page.state.empty": "Aún no hay ningún registro abierto.",
        "page.error.heading": "No se pudo arbitrar el registro",
        "page.error.not_json": "Esto no es JSON: {detail}",
        "page.error.not_object": "Un registro es un objeto JSON con ruleset, players y deals.",
        "page.error.fragment": "El registro del enlace no es base64url de JSON en UTF-8: {detail}",
        "page.error.network": "No se pudo contactar con el servidor: {detail}",
        "page.error.file": "No se pudo leer el archivo: {detail}",
        "page.status.complete": "Completa",
        "page.status.in_progress": "En juego",
        "page.status.invalid": "Registro no válido",
        "page.ruling.players": "Jugadores",
        "page.ruling.options": "Opciones",
        "page.details.heading": "Datos de la mesa (opcionales)",
        "page.details.event": "Torneo",
        "page.details.round": "Ronda",
        "page.details.table": "Mesa",
        "page.details.date": "Fecha",
        "page.details.referee": "Árbitro",
        "page.details.signature": "Firma del árbitro",
        "page.ruling.no_options": "las de serie",
        "page.ruling.deals.one": "{count} mano",
        "page.ruling.deals.other": "{count} manos",
        "page.ruling.renuncios.one": "{count} renuncio",
        "page.ruling.renuncios.other": "{count} renuncios",
        "page.ruling.no_renuncio": "Ningún renuncio.",
        "page.summary.heading": "El arbitraje",
        "page.summary.clean": (
            "Ningún renuncio ni evento ilegal: todas las manos se jugaron según las reglas."
        ),
        "page.summary.renuncio": "Mano {deal}: {name} renunció en la baza {trick} — {failed}",
        "page.summary.renuncio_more": (
            "También en la mano {deal}: {name} renunció en la baza {trick} — {failed}"
        ),
        "page.summary.lose.one": "pierde la mano {names}",
        "page.summary.lose.other": "pierden la mano {names}",
        "page.summary.unfinished": "la mano no ha terminado",
        "page.summary.decided_by": "la mano se decidió de otro modo ({reason})",
        "page.summary.illegal": "Mano {deal}: el árbitro se detuvo en el evento {event}",
        "page.summary.illegal_deal": "Mano {deal}: el árbitro no la jugó",
        "page.failed.asistir": "no asistió (no sirvió al palo)",
        "page.failed.montar": "no montó (no superó la carta que ganaba)",
        "page.failed.fallar": "no falló (sin cartas del palo, no jugó triunfo)",
        "page.failed.pisar": "no pisó (no superó el triunfo)",
        "page.deal.heading": "Mano {number}",
        "page.deal.dealer": "Reparte",
        "page.deal.mano": "Mano (sale primero)",
        "page.deal.trump": "Triunfo",
        "page.deal.trump_none": "ninguno",
        "page.deal.turned": "carta vuelta",
        "page.deal.dealer_card": "la carta del que reparte",
        "page.deal.trump_by_call": "lo fija el primer cante (baza {trick})",
        "page.deal.no_trump_yet": "ninguno: aún no hay cante",
        "page.deal.no_call": "ninguno: no hubo cante en esta mano",
        "page.deal.stock_left": "Quedan en el monte",
        "page.deal.unfinished": "La mano no ha terminado.",
        "page.deal.step": "Seguir esta mano paso a paso",
        "page.deal.step_close": "Cerrar el paso a paso",
        "page.deal.line": "ganan: {winners} · pierden: {losers} ({how})",
        "page.deal.line_winners": "ganan: {winners} ({how})",
        "page.deal.line_nobody": "nadie gana ({how})",
        "page.deal.line_unfinished": "sin terminar",
        "page.trick.heading": "Baza {number}",
        "page.trick.lead": "sale",
        "page.trick.wins": "gana",
        "page.trick.points": "{points} ptos",
        "page.trick.in_play": "en juego",
        "page.trick.renuncio": "renuncio",
        "page.trick.draws": "Robos",
        "page.trick.draw": "{name} roba",
        "page.trick.running": "Tanteo",
        "page.note.cante": "{name} canta las {points} en {suit}",
        "page.note.call": "Cante: {name} suma {points} en {suit}",
        "page.note.call_trump": "Cante: {name} suma {points} en {suit}; desde ahora pinta {suit}",
        "page.note.exchange": (
            "{name} cambia el siete de triunfo ({gave}) por la carta vuelta ({took})"
        ),
        "page.of.kings": "reyes",
        "page.of.horses": "caballos",
        "page.violation.heading": "Renuncio ({obligation}): {meaning}",
        "page.violation.correct": "Jugadas correctas",
        "page.violation.rule": "La regla",
        "page.obligation.asistir": "servir al palo",
        "page.obligation.montar": "superar la carta que gana",
        "page.obligation.fallar": "triunfar sin tener el palo",
        "page.obligation.pisar": "superar el triunfo",
        "page.illegal.heading": "Evento ilegal",
        "page.illegal.where": "La reproducción se detuvo aquí, en el evento {event}:",
        "page.scores.heading": "Tantos",
        "page.scores.player": "Jugador",
        "page.scores.side": "Pareja",
        "page.scores.tricks": "Bazas",
        "page.scores.card_points": "Puntos de cartas",
        "page.scores.cantes": "Cantes",
        "page.scores.last_trick": "Últimas",
        "page.scores.total": "Total",
        "page.outcome.heading": "Cómo se decidió la mano",
        "page.outcome.winners": "Ganan",
        "page.outcome.losers": "Pierden",
        "page.reason.points": "a los puntos",
        "page.reason.last_trick": "empate que decide la última baza",
        "page.reason.tie": "empate",
        "page.reason.tute": "tute",
        "page.reason.renuncio": "renuncio",
        "page.reason.no_tricks": "sin ninguna baza",
        "page.reason.over_100": "más de 100 puntos",
        "page.reason.tied": "empatados a puntos",
        "page.reason.middle": "puntuación intermedia",
        "page.reason.extremes": "más y menos puntos",
        "page.match.heading": "Clasificación de la partida",
        "page.match.result": "Resultado",
        "page.match.counter.deals_won": "Manos ganadas",
        "page.match.counter.loser_points": "Manos perdidas",
        "page.match.counter.tokens": "Fichas",
        "page.match.target": "con {count} termina la partida",
        "page.match.over": "La partida ha terminado.",
        "page.match.not_over": "La partida no ha terminado.",
        "page.match.winner": "gana",
        "page.match.loser": "pierde",
        "page.next.heading": "Le toca a: {name}",
        "page.next.moves": "Jugadas permitidas",
        "page.move.sing": "cantar en {suit}",
        "page.move.tute": "tute de {of}",
        "page.move.exchange": "cambiar el siete",
        "page.step.heading": "Paso a paso",
        "page.step.position": "Paso {step} de {total}",
        "page.step.first": "Inicio",
        "page.step.prev": "Anterior",
        "page.step.next": "Siguiente",
        "page.step.last": "Final",
        "page.step.keys": "Teclas: ← → (Inicio, Fin).",
        "page.step.dealt": "Tal como se repartió.",
        "page.step.next_event": "Ahora: {text}",
        "page.step.last_event": "Antes: {text}",
        "page.step.end": "Fin de la mano.",
        "page.step.stopped": "La reproducción se detuvo aquí.",
        "page.step.hands": "Las cartas en la mano en este momento",
        "page.step.table": "En la mesa",
        "page.step.play": "{name} juega {card}",
        "page.step.sing": "{name} canta en {suit}",
        "page.step.exchange": "{name} cambia el siete de triunfo",
        "page.step.tute": "{name} canta tute de {of}",
        "page.step.trick_won": "{name} gana la baza {number} ({points} ptos)",
        "page.step.renuncio": "un renuncio",
        "page.verdict.ok": "Se puede.",
        "page.verdict.refused": "No se puede:",
        "page.action.sing": "Cantar en {suit}",
        "page.action.tute": "Cantar tute de {of}",
        "page.action.exchange": "Cambiar el siete",
        "page.whatif.toggle": "¿Y si {name} hubiera jugado otra cosa?",
        "page.whatif.hint": (
            "Toca una carta para ver qué dice el árbitro; la mano tal como se jugó no cambia."
        ),
        "page.whatif.moves": "Jugadas para probar",
        "page.whatif.editor": "Seguir jugando desde aquí en el editor",
        "page.enter.title": "Anotar una mano en la mesa",
        "page.enter.tagline": (
            "Una mano discutida, anotada a mano — la mesa, las cartas y luego las jugadas, un "
            "toque cada una — y el árbitro juzga cada jugada al momento. No se guarda nada: la "
            "mano se queda en tu navegador y solo va a este servidor."
        ),
        "page.table.heading": "1. La mesa",
        "page.table.ruleset": "Modalidad",
        "page.table.count": "Jugadores",
        "page.table.names": "Los jugadores, en el orden de juego",
        "page.table.names_pairs": (
            "Los jugadores, en el orden de juego (los asientos 1 y 3 contra el 2 y el 4)"
        ),
        "page.table.seat": "Asiento {number}",
        "page.table.dealer": "Reparte",
        "page.table.dealer_hint": (
            "El asiento siguiente al que reparte es la mano y sale en la primera baza."
        ),
        "page.table.notation": "Cartas",
        "page.table.notation.spanish": "españolas (O C E B)",
        "page.table.notation.french": "francesas (D H S C)",
        "page.table.options": "Opciones",
        "page.table.default": "por defecto: {value}",
        "page.table.true": "sí",
        "page.table.false": "no",
        "page.table.mode": "Cómo se dan las cartas",
        "page.table.mode.hands": "cada mano, y la carta vuelta o enseñada",
        "page.table.mode.deck": "la baraja entera, en el orden de reparto",
        "page.table.mode.position": (
            "desde la baza disputada: las manos ahora, la baza en la mesa, las bazas jugadas"
        ),
        "page.position.heading": "Empezar desde una baza",
        "page.position.hint": (
            "Da las manos como están ahora y la baza en la mesa, y lo que sepas de las bazas ya "
            "jugadas: sus cartas, o solo quién ganó cada una y los puntos."
        ),
        "page.position.tricks": "Bazas ya jugadas",
        "page.position.led": "Salió a la baza {number}",
        "page.position.led_now": "Salió a la baza en la mesa",
        "page.position.stock_left": "Cartas que quedan en el monte",
        "page.position.now_done": (
            "Los sitios necesarios están completos (una mano o la baza en la mesa pueden tener "
            "menos cartas): juega desde aquí, o toca un sitio para llenarlo."
        ),
        "page.position.start": "Jugar desde aquí",
        "page.position.complete": "Están todos los sitios que el árbitro necesita.",
        "page.position.faults": (
            "El árbitro no puede empezar desde esta posición; lo que hay que corregir se dice "
            "junto a cada sitio:"
        ),
        "page.position.place_form": "la mesa",
        "page.position.fault.other": "El árbitro no acepta esta parte de la posición.",
        "page.position.play_heading": "{ruleset} — desde la baza disputada",
        "page.position.edit": "Corregir la posición",
        "page.position.ruling": "El arbitraje desde esta posición",
        "page.position.no_moves": "Aún no hay jugadas: toca la carta jugada.",
        "page.position.stopped": (
            "Un renuncio: el árbitro lo señala aquí. Un arbitraje desde una posición no pasa "
            "del renuncio; deshazlo para probar otra carta."
        ),
        "page.position.stopped_short": "El juego se detiene en el renuncio.",
        "page.position.unknown.heading": "Lo que este arbitraje no puede saber",
        "page.position.unknown.tricks": (
            "Solo las bazas dadas: la puntuación de la mano es la de esas bazas."
        ),
        "page.position.unknown.renuncios": (
            "Un renuncio anterior a esta posición: para él la mano aún no está decidida."
        ),
        "page.position.unknown.cantes": (
            "Los cantes o llamadas anteriores: sus puntos y los palos ya cantados."
        ),
        "page.position.unknown.exchanges": "Un cambio del siete hecho antes.",
        "page.position.unknown.stock": (
            "El orden del monte: solo su tamaño y la carta que marca el triunfo."
        ),
        "page.position.unknown.match": "Las manos anteriores: la partida se toma como no empezada.",
        "page.entry.place.shown": "la carta que marca el triunfo",
        "page.entry.place.table": "la baza en la mesa, en el orden jugado",
        "page.entry.place.trick": "la baza {number}, en el orden jugado",
        "page.entry.missing.shown": "{place}",
        "page.entry.missing.trick": "{place}, {count} más",
        "page.entry.missing.table": "{place}, {count} más",
        "page.entry.now_order": "Ahora: {place} — toca sus cartas en la baraja.",
        "page.table.next": "Siguiente: las cartas",
        "page.table.name_missing": "El asiento {number} no tiene nombre.",
        "page.table.names_twice": "Dos jugadores tienen el mismo nombre.",
        "page.option.match_target": "Manos para ganar la partida",
        "page.option.tie_break": "A igualdad de puntos",
        "page.option.cantes_per_trick": "Cantes por baza ganada",
        "page.option.trump_when_cannot_overtrump": "Triunfar aunque no se pueda pisar",
        "page.option.tute_requires_trick_won": "Tute solo tras ganar una baza",
        "page.option.renuncio_penalty": "Un renuncio pierde",
        "page.option.exchange_requires_trick_won": "Cambio del siete solo tras ganar una baza",
        "page.option.partner_relief": "Libre si gana el compañero",
        "page.option.loser_target": "Manos perdidas que pierden la partida",
        "page.option.token_target": "Fichas para ganar la partida",
        "page.option.call_ranks": "La pareja que hace cante",
        "page.value.tie_break.last_trick": "decide la última baza",
        "page.value.tie_break.none": "empate",
        "page.value.renuncio_penalty.lose_deal": "la mano",
        "page.value.renuncio_penalty.lose_match": "la partida",
        "page.entry.heading": "2. Las cartas",
        "page.entry.now": "Ahora: {place} — toca sus cartas en la baraja.",
        "page.entry.now_trump": (
            "Ahora: la carta que enseñó {dealer} (marca el triunfo) — tócala: es una de las "
            "cartas de {dealer}."
        ),
        "page.entry.now_deck": "Ahora: {place} — tócala en la baraja.",
        "page.entry.now_done": "Todas las cartas están en su sitio: a jugar la mano.",
        "page.entry.pack": "La baraja",
        "page.entry.target": "{place}: {count} de {size}",
        "page.entry.place.hand": "la mano de {name}",
        "page.entry.place.turned": "la carta vuelta",
        "page.entry.place.trump": "la carta que enseña el que reparte",
        "page.entry.place.stock": "el monte, en el orden en que se roba",
        "page.entry.place.deck": "la baraja",
        "page.entry.place.deck_at": "la carta {number} de la baraja",
        "page.entry.given_to": "en {place}",
        "page.entry.remove": "quitarla",
        "page.entry.unknown": "Carta desconocida",
        "page.entry.unknown_remove": "carta desconocida — quitarla",
        "page.entry.rest_unknown": "El resto de esta mano es desconocido",
        "page.entry.stock_unknown": "Desconocido: los robos se anotan cuando ocurren",
        "page.entry.missing": "Falta: {parts}.",
        "page.entry.missing.hand": "{place}, {count} más",
        "page.entry.missing.turned": "{place}",
        "page.entry.missing.trump": "{place}",
        "page.entry.missing.stock": "{place}, {count} más",
        "page.entry.missing.deck": "{place}, {count} más",
        "page.entry.complete": "Todas las cartas de la baraja están en su sitio.",
        "page.entry.refused.twice": "{card} ya está en {place}: cada carta se da una sola vez.",
        "page.entry.refused.twice_deck": "{card} ya es {place}: cada carta se da una sola vez.",
        "page.entry.refused.not_in_pack": "{card} no está en la baraja de esta modalidad.",
        "page.entry.refused.full": "En {place} no caben más cartas: quita antes una.",
        "page.entry.refused.not_dealers": (
            "{card} no es una de las cartas de {dealer}: la carta enseñada es del que reparte."
        ),
        "page.entry.back": "Volver a la mesa",
        "page.entry.start": "Jugar la mano",
        "page.entry.move_here": "Pasarla a {place}",
        "page.entry.type_label": "O escribe las cartas (1O 3O 12O 7C …):",
        "page.entry.type_submit": "Darlas",
        "page.entry.last_hand": (
            "el resto de la baraja ({count} cartas) es {place}: se ha anotado solo."
        ),
        "page.entry.only_unknown": (
            "{card} es la única carta que nadie colocó: es la carta desconocida de {place}; ya "
            "está anotada."
        ),
        "page.play.heading": "3. El juego — {ruleset}",
        "page.play.trick_no": "baza {number}",
        "page.play.last_trick": "{name} ganó la última baza ({points} ptos)",
        "page.play.to_act": "le toca",
        "page.play.turn": "Le toca a {name}: toca una de sus cartas.",
        "page.play.over": "La mano ha terminado.",
        "page.play.next_deal": "Anotar la mano siguiente de la partida",
        "page.play.hand_of": "Las cartas de {name}",
        "page.play.play_it": "jugarla",
        "page.play.unknown_play": "carta desconocida — jugarla (antes hay que nombrarla)",
        "page.play.declarations": "Declaraciones que el árbitro permite ahora",
        "page.play.any_declaration": "Otra declaración, tal como se hizo",
        "page.play.undo": "Deshacer",
        "page.play.redo": "Rehacer",
        "page.play.edit_cards": "Cambiar las cartas",
        "page.play.whatif": (
            "¿Y si…?: estás probando otra línea de juego; la original ({count} movimientos) se "
            "conserva."
        ),
        "page.play.original": "Volver a la línea original",
        "page.play.history_start": "Tal como se repartió",
        "page.play.moves.one": "{count} movimiento",
        "page.play.moves.other": "{count} movimientos",
        "page.play.so_far": "El arbitraje hasta ahora",
        "page.play.so_far_done": "El arbitraje de la mano",
        "page.play.open_ruling": "Abrir el arbitraje",
        "page.play.which_card": "¿Qué carta juega {name}? Tócala.",
        "page.play.which_draw": "¿Qué carta robó {name} (la carta {number} del monte)?",
        "page.play.draw_unknown": "No se sabe",
        "page.play.cancel": "Cancelar",
        "page.play.only_draw": "{name} robó {card}: es la única carta que queda; ya está anotada.",
        "page.play.only_play": (
            "{name} jugó {card}: es la única carta sin sitio; ya está anotada."
        ),
        "page.drafts.heading": "Manos anotadas en este dispositivo",
        "page.drafts.line": "{ruleset}: {names} — {cards}, {moves} (guardada el {saved})",
        "page.drafts.cards.one": "{count} carta",
        "page.drafts.cards.other": "{count} cartas",
        "page.drafts.open": "Reabrir",
        "page.drafts.delete": "Borrar",
        "page.change.dealer": "Ahora reparte {name}. Las manos siguen como se anotaron.",
        "page.change.dealer_deck": (
            "Ahora reparte {name}: la baraja se reparte desde {name}, así que cada mano pasa a "
            "otro asiento."
        ),
        "page.change.trump_out": (
            "{card} era la carta enseñada, pero no está en la mano de {name}: vuelve a dar la "
            "carta enseñada."
        ),
        "page.change.moves_kept.one": (
            "El movimiento hecho se conserva: rehazlo (puede que ya no salga el mismo jugador)."
        ),
        "page.change.moves_kept.other": (
            "Los {count} movimientos hechos se conservan: rehazlos (puede que ya no salga el "
            "mismo jugador)."
        ),
        "page.change.ask": (
            "Esta mesa tiene otra baraja, o sus cartas se dan de otra manera: se quitarían "
            "{cards} y {moves} ya anotados. ¿Cambiar la mesa?"
        ),
        "page.change.confirm": "Cambiarla y dar las cartas de nuevo",
        "page.change.keep": "Dejar la mesa como estaba",
        "page.change.done": (
            "La mesa ha cambiado: se quitaron las cartas y los movimientos de antes."
        ),
        "page.change.undo": "Deshacer el cambio",
        "page.export.heading": "La mano como registro",
        "page.export.hint": (
            "Un registro de docs/api.md: descárgalo, cópialo o abre el arbitraje, cuya dirección "
            "lo lleva."
        ),
        "page.export.log": "El registro (JSON)",
        "page.export.download": "Descargar",
        "page.export.copy": "Copiar",
        "page.export.copied": "Copiado.",
        "page.unknown.heading": "Qué depende de las cartas desconocidas",
        "page.unknown.checking": "Preguntando al árbitro por cada carta posible…",
        "page.unknown.played.one": (
            "Todas las cartas jugadas se conocen, así que cada baza vale tal como se anotó; de "
            "la única carta que nadie colocó depende lo que tenía su jugador, y con ello los "
            "renuncios."
        ),
        "page.unknown.played.other": (
            "Todas las cartas jugadas se conocen, así que cada baza vale tal como se anotó; de "
            "las {count} cartas que nadie colocó depende lo que tenía cada jugador, y con ello "
            "los renuncios."
        ),
        "page.unknown.stands.one": (
            "El renuncio de {name} en la baza {trick} ({obligation}) se mantiene: las cartas "
            "desconocidas de {name} solo pueden ser las que quedan (un único caso)."
        ),
        "page.unknown.stands.other": (
            "El renuncio de {name} en la baza {trick} ({obligation}) se mantiene sean cuales "
            "sean las cartas desconocidas (en los {total} casos)."
        ),
        "page.unknown.depends": (
            "El renuncio de {name} en la baza {trick} ({obligation}) depende de las cartas "
            "desconocidas: solo se mantiene {condition} ({cases} de {total} casos)."
        ),
        "page.unknown.would_be": (
            "La jugada de {name} en la baza {trick} sería un renuncio ({obligation}) "
            "{condition} ({cases} de {total} casos)."
        ),
        "page.unknown.depends_count": (
            "El renuncio de {name} en la baza {trick} ({obligation}) se mantiene en {cases} de "
            "las {total} manos que {name} pudo tener."
        ),
        "page.unknown.would_be_count": (
            "La jugada de {name} en la baza {trick} sería un renuncio ({obligation}) en {cases} "
            "de las {total} manos que {name} pudo tener."
        ),
        "page.unknown.if_card": "si la carta desconocida de {name} es {cards}",
        "page.unknown.if_held": "si {name} tenía alguna de estas: {cards}",
        "page.unknown.of_suit": "una carta de {suit}",
        "page.unknown.or": " o ",
        "page.unknown.none.one": (
            "Ningún renuncio de {name} depende de las cartas desconocidas: solo pueden ser las "
            "que quedan, y las jugadas de {name} valen."
        ),
        "page.unknown.none.other": (
            "Ningún renuncio de {name} depende de las cartas desconocidas: las jugadas de {name} "
            "valen en los {total} casos."
        ),
        "page.unknown.unchecked": (
            "{name} tiene {count} cartas desconocidas ({cases} combinaciones posibles): "
            "demasiadas para preguntarlas aquí, así que las jugadas de {name} se juzgan con una "
            "sola manera de completarlas."
        ),
        "page.unknown.outcome.stands": (
            "El resultado se mantiene sean cuales sean las cartas desconocidas."
        ),
        "page.unknown.outcome.depends": (
            "El resultado depende de las cartas desconocidas (véase arriba)."
        ),
        "page.unknown.outcome.open": (
            "No se sabe si el resultado depende de las cartas desconocidas: no se pudo preguntar "
            "por todos los casos."
        ),
        "page.unknown.verdict_note": (
            "{name} tiene cartas desconocidas: este veredicto es para una manera de completarlas; "
            "lo que depende de ellas se dice más abajo."
        ),
        "page.unknown.deal_note.one": (
            "Una carta de esta mano no se conocía: el registro la completa de una manera para "
            "que el árbitro pueda juzgar, y lo que depende de ella se dice más abajo."
        ),
        "page.unknown.deal_note.other": (
            "{count} cartas de esta mano no se conocían: el registro las completa de una manera "
            "para que el árbitro pueda juzgar, y lo que depende de ellas se dice más abajo."
        ),
        "page.unknown.verdict_doubt": "depende de las cartas desconocidas de {name}",
        "page.unknown.verdict_checking": (
            "Con las cartas desconocidas de {name} completadas de una manera, esta jugada es un "
            "renuncio; se está preguntando al árbitro por cada carta que pueden ser…"
        ),
        "page.unknown.verdict_none": (
            "Con las cartas desconocidas de {name} completadas de una manera, esta jugada es un "
            "renuncio; si se mantiene se dice más abajo."
        ),
        "page.unknown.tag": "({name} tenía cartas desconocidas: véase qué depende de ellas)",
        "page.play.unknown_card": "carta desconocida",
    },
}


# The position start's questions on the tricks already played, what its ruling cannot know of
# them, and the referee's faults in a position, one sentence per fault code of the API
# (``errors[].code``, docs/api.md) with its ``params`` as fields: the page words a fault from its
# code, never from the English message. Kept apart from the page's other words.
_POSITION: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "page.position.known": "What is known of the tricks already played",
        "page.position.known.cards": "their cards, in the order played",
        "page.position.known.points": "only who won each, and the points so far",
        "page.position.won": "Trick {number} was won by",
        "page.position.points": "Card points so far",
        "page.position.points_hint": (
            "The points of the cards in the tricks each player has won (cantes not counted): "
            "0 for a player who won none."
        ),
        "page.position.points_hint_pairs": (
            "In pairs the points are counted by side. If you know only a side's total, enter it "
            "on one player of that side who won a trick, and 0 on the partner: the referee adds "
            "them up by side, and a split is never needed."
        ),
        "page.position.points_of": "Points of {name}",
        "page.position.unknown.cards.one": (
            "The cards of trick 1: only who won it and the card points were given. These "
            "{cards} cards are not seen here: who played which, and in which trick, is not known."
        ),
        "page.position.unknown.cards.other": (
            "The cards of tricks 1 to {tricks}: only who won each and the card points were "
            "given. These {cards} cards are not seen here: who played which, and in which "
            "trick, is not known."
        ),
        "page.position.unknown.cards_stock.one": (
            "The cards of trick 1: only who won it and the card points were given. These "
            "{cards} cards are not seen here: each was played in it or is still in the stock."
        ),
        "page.position.unknown.cards_stock.other": (
            "The cards of tricks 1 to {tricks}: only who won each and the card points were "
            "given. These {cards} cards are not seen here: each was played in one of them or is "
            "still in the stock."
        ),
        "page.position.unknown.points": "The card points given: {points}.",
        "page.position.unknown.points_given": (
            "The score of the deal: the card points given, and those of the tricks played from "
            "here."
        ),
        "page.position.after_renuncio": (
            "A renuncio: the referee rules it here, and play goes on to the end of the deal."
        ),
        "page.position.tricks_played": "The tricks played from here",
        "page.position.trick_line": "Trick {number} — won by {name}",
        "page.position.outcome": "How the deal ended: {line}.",
        "page.position.decided": "{name} renounced in trick {trick} — {failed}; {consequence}.",
        "page.position.fault.missing": "Something the referee needs is missing here.",
        "page.position.fault.list_size": "It must hold from {least} to {most} entries.",
        "page.position.fault.list_size_exact": "It must hold {most} entries.",
        "page.position.fault.int_range": "It must be a whole number from {low} to {high}.",
        "page.position.fault.card_code": "“{code}” is not the name of a card of this pack.",
        "page.position.fault.boolean": "It must be yes or no.",
        "page.position.fault.must_be": "It must be {value}: the cards make it so.",
        "page.position.fault.does_not_follow": "It does not follow from the rest of the position.",
        "page.position.fault.play_seat": "{name} plays here: the cards go round the table.",
        "page.position.fault.draw_seat": (
            "{name} draws here: the winner of the trick draws first, then round the table."
        ),
        "page.position.fault.draw_count": "{count} cards are drawn after this trick.",
        "page.position.fault.trick_leader": (
            "{name} leads this trick: the winner of the trick before (the mano before any)."
        ),
        "page.position.fault.table_leader": (
            "The trick on the table is led by the winner of the last trick (the mano before any)."
        ),
        "page.position.fault.no_stock": "{ruleset} has no stock: its size is not asked.",
        "page.position.fault.no_exchange": "{ruleset} has no exchange of the seven.",
        "page.position.fault.no_turned_card": "In {ruleset} no card shows trump: take it out.",
        "page.position.fault.trump_by_call": "The first call makes trump: there is none before it.",
        "page.position.fault.turned_missing": "The card that shows trump is missing.",
        "page.position.fault.trump_of_turned": "Trump is the suit of the card that shows it.",
        "page.position.fault.exchange_before_trick": (
            "No exchange of the seven before a trick is won."
        ),
        "page.position.fault.exchange_not_leader": (
            "{name} leads there, not {given}: only the player who leads may exchange."
        ),
        "page.position.fault.exchange_no_stock": (
            "No stock was left after that trick: no exchange then."
        ),
        "page.position.fault.renuncio_not_played": "That card was not played in that trick.",
        "page.position.fault.renuncio_in_unknown_trick": (
            "A renuncio needs the cards of its trick: give them, or leave the renuncio out."
        ),
        "page.position.fault.decided_by_renuncio": "The deal's first renuncio decided it.",
        "page.position.fault.renuncio_decides": "The deal's first renuncio decides it.",
        "page.position.fault.card_not_in_pack": "{card} is not in this ruleset's pack.",
        "page.position.fault.repeated": (
            "{card} is already in {place}: a card is given only once."
        ),
        "page.position.fault.hand_size": "{name} must hold {count} cards at this point.",
        "page.position.fault.stock_size": "{count} cards are left in the stock after the draws.",
        "page.position.fault.points_below_known": (
            "{name} has at least {points} points: those of the tricks known."
        ),
        "page.position.fault.points_not_known_tricks": (
            "{name} won none of the tricks before: {points} points, no more."
        ),
        "page.position.fault.unknown_points_too_many": (
            "The tricks before hold at most {most} points: the cards not seen here are worth no "
            "more."
        ),
        "page.position.fault.unknown_points_not_all": (
            "The tricks before hold {points} points: with the stock used up, every card not seen "
            "here was won in them."
        ),
    },
    "es": {
        "page.position.known": "Lo que se sabe de las bazas ya jugadas",
        "page.position.known.cards": "sus cartas, en el orden en que se jugaron",
        "page.position.known.points": "solo quién ganó cada una, y los puntos hasta ahora",
        "page.position.won": "Ganó la baza {number}",
        "page.position.points": "Puntos de las bazas ganadas hasta ahora",
        "page.position.points_hint": (
            "Los puntos de las cartas de las bazas que ha ganado cada jugador (sin los cantes): "
            "0 a quien no ganó ninguna."
        ),
        "page.position.points_hint_pairs": (
            "En parejas los puntos se cuentan por pareja. Si solo sabes el total de una pareja, "
            "ponlo en un jugador de esa pareja que haya ganado alguna baza, y 0 a su compañero: "
            "el árbitro los suma por pareja, y no hace falta repartirlos."
        ),
        "page.position.points_of": "Puntos de {name}",
        "page.position.unknown.cards.one": (
            "Las cartas de la baza 1: solo se dio quién la ganó y los puntos. Estas {cards} "
            "cartas no se ven aquí: no se sabe quién jugó cada una ni en qué baza."
        ),
        "page.position.unknown.cards.other": (
            "Las cartas de las bazas 1 a {tricks}: solo se dio quién ganó cada una y los puntos. "
            "Estas {cards} cartas no se ven aquí: no se sabe quién jugó cada una ni en qué baza."
        ),
        "page.position.unknown.cards_stock.one": (
            "Las cartas de la baza 1: solo se dio quién la ganó y los puntos. Estas {cards} "
            "cartas no se ven aquí: cada una se jugó en ella o sigue en el monte."
        ),
        "page.position.unknown.cards_stock.other": (
            "Las cartas de las bazas 1 a {tricks}: solo se dio quién ganó cada una y los puntos. "
            "Estas {cards} cartas no se ven aquí: cada una se jugó en alguna de ellas o sigue en "
            "el monte."
        ),
        "page.position.unknown.points": "Los puntos de cartas dados: {points}.",
        "page.position.unknown.points_given": (
            "La puntuación de la mano: los puntos de cartas dados, y los de las bazas jugadas "
            "desde aquí."
        ),
        "page.position.after_renuncio": (
            "Un renuncio: el árbitro lo señala aquí, y el juego sigue hasta el final de la mano."
        ),
        "page.position.tricks_played": "Las bazas jugadas desde aquí",
        "page.position.trick_line": "Baza {number} — la gana {name}",
        "page.position.outcome": "Cómo acabó la mano: {line}.",
        "page.position.decided": "{name} renunció en la baza {trick} — {failed}; {consequence}.",
        "page.position.fault.missing": "Aquí falta algo que el árbitro necesita.",
        "page.position.fault.list_size": "Debe tener de {least} a {most} elementos.",
        "page.position.fault.list_size_exact": "Debe tener {most} elementos.",
        "page.position.fault.int_range": "Debe ser un número entero de {low} a {high}.",
        "page.position.fault.card_code": "«{code}» no es el nombre de una carta de esta baraja.",
        "page.position.fault.boolean": "Debe ser sí o no.",
        "page.position.fault.must_be": "Debe ser {value}: así lo dan las cartas.",
        "page.position.fault.does_not_follow": "No se sigue del resto de la posición.",
        "page.position.fault.play_seat": "Aquí juega {name}: las cartas van por turno.",
        "page.position.fault.draw_seat": (
            "Aquí roba {name}: roba primero quien ganó la baza, y luego por turno."
        ),
        "page.position.fault.draw_count": "Tras esta baza se roban {count} cartas.",
        "page.position.fault.trick_leader": (
            "Sale {name} a esta baza: quien ganó la anterior (la mano, antes de ninguna)."
        ),
        "page.position.fault.table_leader": (
            "Sale a la baza en la mesa quien ganó la última (la mano, antes de ninguna)."
        ),
        "page.position.fault.no_stock": "{ruleset} no tiene monte: no se pregunta su tamaño.",
        "page.position.fault.no_exchange": "{ruleset} no tiene cambio del siete.",
        "page.position.fault.no_turned_card": (
            "En {ruleset} ninguna carta marca el triunfo: quítala."
        ),
        "page.position.fault.trump_by_call": (
            "El primer cante hace el triunfo: antes de él no hay ninguno."
        ),
        "page.position.fault.turned_missing": "Falta la carta que marca el triunfo.",
        "page.position.fault.trump_of_turned": "El triunfo es el palo de la carta que lo marca.",
        "page.position.fault.exchange_before_trick": (
            "No se cambia el siete antes de ganar una baza."
        ),
        "page.position.fault.exchange_not_leader": (
            "Ahí sale {name}, no {given}: solo puede cambiar quien sale."
        ),
        "page.position.fault.exchange_no_stock": (
            "Tras esa baza ya no quedaba monte: entonces no se cambia."
        ),
        "page.position.fault.renuncio_not_played": "Esa carta no se jugó en esa baza.",
        "page.position.fault.renuncio_in_unknown_trick": (
            "Un renuncio necesita las cartas de su baza: dalas, o quita el renuncio."
        ),
        "page.position.fault.decided_by_renuncio": "El primer renuncio de la mano ya la decidió.",
        "page.position.fault.renuncio_decides": "El primer renuncio de la mano la decide.",
        "page.position.fault.card_not_in_pack": "{card} no es de la baraja de esta modalidad.",
        "page.position.fault.repeated": (
            "{card} ya está en {place}: cada carta se da una sola vez."
        ),
        "page.position.fault.hand_size": "{name} debe tener {count} cartas en este momento.",
        "page.position.fault.stock_size": "Quedan {count} cartas en el monte tras los robos.",
        "page.position.fault.points_below_known": (
            "{name} tiene al menos {points} puntos: los de las bazas conocidas."
        ),
        "page.position.fault.points_not_known_tricks": (
            "{name} no ganó ninguna de las bazas anteriores: {points} puntos, ni uno más."
        ),
        "page.position.fault.unknown_points_too_many": (
            "Las bazas anteriores suman como mucho {most} puntos: las cartas que no se ven aquí "
            "no valen más."
        ),
        "page.position.fault.unknown_points_not_all": (
            "Las bazas anteriores suman {points} puntos: acabado el monte, todas las cartas que "
            "no se ven aquí se ganaron en ellas."
        ),
    },
}


def _with_titles(lang: Lang) -> dict[str, str]:
    """The page's own words and the rulesets' titles, which its script reads as
    ``ruleset.<name>``."""
    titles = {k: v for k, v in referee.WORDS[lang].items() if k.startswith("ruleset.")}
    return {
        **_OWN[lang],
        **_POSITION[lang],
        **{f"page.{key}": title for key, title in titles.items()},
    }


WORDS: Final[dict[Lang, dict[str, str]]] = {lang: _with_titles(lang) for lang in LANGS}
