// The table editor's state, in one object: the table chosen, the cards entered (entry.js), the
// moves (moveline.js), the referee's last answer and verdict, the unknown card being named, and
// what the check of the unknown cards found. Nothing is judged here: every question goes to the
// service through one function, `ask`, which drops an answer older than the latest question, so
// that a slow answer never overwrites a newer one. The position shown is the last step of
// /v1/replays for the log so far; a proposed move goes to /v1/moves/validate by that position's
// state_id (the service keeps nothing). No DOM: enter.js draws the state and table.js the play.

import { DealEntry, UNKNOWN, tableOf } from "./entry.js";
import { MoveLine } from "./moveline.js";
import { makeEntry, positionSettings } from "./positionentry.js";
import { problemLines, tableDetails } from "./rulingtext.js";
import { ServiceError } from "./service.js";
import { checkUnknowns, unknownSlotSeats } from "./unknowns.js";

/** What `ask` throws for an answer a newer question has made stale: drop it, do nothing. */
export class StaleAnswer extends Error {
  constructor() {
    super("a newer question was asked");
  }
}

/** The options that differ from the ruleset's defaults (a log needs only those). */
export function changedOptions(ruleset, options) {
  const same = (name, value) =>
    JSON.stringify(value) === JSON.stringify(ruleset.options[name].default);
  return Object.fromEntries(Object.entries(options).filter(([name, value]) => !same(name, value)));
}

/** The log's header (docs/api.md) for the table chosen in the form. */
export function headerOf(data, choice) {
  const header = { ruleset: choice.ruleset, players: choice.names };
  const options = changedOptions(data.rulesets[choice.ruleset], choice.options);
  if (Object.keys(options).length) header.options = options;
  if (choice.notation === "french") header.notation = "french";
  const details = Object.entries(choice.details ?? {}).filter(([, text]) => text);
  if (details.length) header.details = Object.fromEntries(details);
  return header;
}

/** The table form's first choice: four players in pairs, the last seat deals, hand by hand. */
const FIRST_CHOICE = {
  ruleset: "tute-4p",
  count: 4,
  names: [],
  notation: "spanish",
  options: {},
  dealer: 3,
  mode: "hands",
};

/** What makes a table another pack, or the cards entered another way: a change of one of them
 *  cannot keep the cards entered. */
export const PACK_KEYS = ["ruleset", "count", "notation", "mode"];

/** Whether the cards entered for the table `before` can stay for the table `after`. */
export function samePack(before, after) {
  // a position start's places are its tricks: another count of tricks is another entry
  const tricks = (choice) => (choice.mode === "position" ? choice.position?.tricks : null);
  return PACK_KEYS.every((key) => before[key] === after[key]) && tricks(before) === tricks(after);
}

export class EditorState {
  /** `data`: the page data; `words`: the page's Words; `service`: a Service (service.js). */
  constructor(data, words, service) {
    this.data = data;
    this.words = words;
    this.service = service;
    this.phase = "table"; // "table", "cards" or "play": the step shown
    this.choice = { ...FIRST_CHOICE };
    this.header = null; // the log's header, from the choice, once play starts
    this.entry = null; // the cards (a DealEntry)
    this.before = []; // the deals before this one (from a loaded log, kept as they were)
    this.line = new MoveLine();
    this.answer = null; // the last answer of /v1/replays
    this.current = false; // whether it answers the cards and moves as they are now
    this.stateId = null; // its state_id
    this.verdict = null; // the referee's verdict on the last move proposed
    this.verdictDoubt = null; // its seat, when that seat's hand holds cards nobody knows
    this.naming = null; // {seat, slot}: the unknown card a seat plays, being named
    this.check = null; // the unknown cards: null (none), "pending", checkUnknowns' or {error}
    this.asked = 0; // questions asked so far: the latest is the one whose answer counts
    this.waiting = 0; // the question the page waits for (0: none)
    this.draftId = null; // the id this entry is kept under (draft.js), once something is entered
    this.form = null; // the table form as typed so far, before it is done
  }

  // --- asking -----------------------------------------------------------------------------------

  /**
   * The answer of `request(service)`, while no newer question was asked; else StaleAnswer is
   * thrown (for an answer or a failure alike). `background`: a question the page does not wait
   * for (the check of the unknown cards), never asked while it waits for another.
   */
  async ask(request, { background = false } = {}) {
    if (background && this.waiting) throw new StaleAnswer();
    const number = ++this.asked;
    if (!background) this.waiting = number;
    try {
      const answer = await request(this.service);
      if (number !== this.asked) throw new StaleAnswer();
      return answer;
    } catch (error) {
      if (number !== this.asked) throw new StaleAnswer();
      throw error;
    } finally {
      if (this.waiting === number) this.waiting = 0;
    }
  }

  /** Whether the page waits for an answer. */
  get busy() {
    return this.waiting !== 0;
  }

  /** Ask for the position after the moves so far (throws a ServiceError the caller shows). */
  async refresh() {
    const answer = await this.ask((service) => service.replay(this.log()));
    this.answer = answer;
    this.stateId = answer.state_id;
    this.current = true;
    // what was said of the unknown cards before may not hold now (nor at all, once none is)
    this.check = this.entry.unknownSlots().length ? "pending" : null;
    return answer;
  }

  /** The cards or the moves changed: the position shown is no longer theirs; ask for it. */
  changed() {
    this.current = false;
    return this.refresh();
  }

  // --- the log and the position ----------------------------------------------------------------

  /** The log so far (docs/api.md), the unknown slots filled by `fill` (the representative
   *  filling by default), with the moves up to `count`. */
  log(fill = this.entry.representative(), count = this.line.cursor) {
    const deal = { ...this.entry.setup(fill), events: this.line.moves.slice(0, count) };
    return { ...this.header, deals: [...this.before, deal] };
  }

  /** The cards the representative filling puts where nobody knows the card. */
  fillers() {
    return new Set(this.entry.representative().values());
  }

  /** This deal, as the last answer has it. */
  get deal() {
    return this.answer.deals.at(-1);
  }

  /** The position now: the last step of this deal. */
  get view() {
    return this.deal.steps.at(-1);
  }

  /** The cards each seat holds now, the unknown ones (the fillers of the log) apart. */
  handsNow() {
    const fillers = this.fillers();
    return this.view.hands.map((hand) => ({
      known: hand.filter((code) => !fillers.has(code)),
      unknown: hand.filter((code) => fillers.has(code)),
    }));
  }

  /** The declarations the referee lets the seat to act make, of those the cards known show:
   *  with unknown cards in the hand, an offer may rest on a card the log only fills in. */
  declarations(hand) {
    const known = (code) => hand.known.includes(code);
    const shown = ({ cards }) => !hand.unknown.length || cards.every(known);
    return this.view.declarations.filter(shown).map(({ cards: _cards, ...move }) => move);
  }

  /** The seats that were dealt, or drew, a card nobody knows. */
  seatsDealtUnknown() {
    return new Set(unknownSlotSeats(this).map((slot) => slot.seat));
  }

  /** The seats whose hands hold an unknown card now. */
  seatsHoldingUnknown() {
    const seats = this.handsNow().map((hand, seat) => (hand.unknown.length ? [seat] : []));
    return new Set(seats.flat());
  }

  /** tute-2p with the stock entered "as it happens": the first draw whose card is not named,
   *  {index, seat}, or null. */
  pendingDraw() {
    const { stock } = this.entry.slots;
    if (!stock) return null;
    const draws = this.deal.tricks.flatMap((trick) => trick.draws);
    const open = (_, i) => stock[i] === UNKNOWN && !this.entry.unknownDraws.has(i);
    const k = draws.findIndex(open);
    return k < 0 ? null : { index: k, seat: draws[k].seat };
  }

  // --- the table and the cards ---------------------------------------------------------------

  /** What the table `choice` would take out of the entry — {cards, moves}, how many — or null
   *  when it keeps them (the same pack, entered the same way: names, options and the dealer
   *  change without a card lost). */
  lostBy(choice) {
    if (!this.entry || samePack(this.choice, choice)) return null;
    const cards = Object.values(this.entry.slots).reduce((sum, list) => sum + list.length, 0);
    const moves = this.line.moves.length;
    return cards || moves ? { cards, moves } : null;
  }

  /** The table chosen in the form. The cards entered (and the moves) stay when they fit it
   *  (see lostBy); a new dealer keeps the hands, and what moved is said: changeDealer's note
   *  (null when nothing moved). */
  chooseTable(choice) {
    const before = this.choice;
    this.choice = choice;
    if (this.entry && samePack(before, choice)) {
      if (choice.mode === "position") this.entry.retarget(positionSettings(choice));
      return before.dealer === choice.dealer ? null : this.changeDealer(choice.dealer);
    }
    const table = tableOf(this.data, headerOf(this.data, choice), this.words);
    this.entry = makeEntry(table, choice);
    this.before = [];
    this.line = new MoveLine();
    this.answer = null;
    this.current = false;
    return null;
  }

  /**
   * Another dealer for the cards entered: each hand stays with its seat (a deck in dealing
   * order is dealt from the new dealer, so its hands move); a shown card that is not the new
   * dealer's is taken out, to be given again; the moves stay, to redo, since who leads changed.
   * {dealer, deck, trumpOut (the card taken out, or null), moves (how many were made)}.
   */
  changeDealer(dealer) {
    const { entry } = this;
    entry.dealer = dealer;
    const note = { dealer, deck: entry.mode === "deck", trumpOut: null, moves: this.line.cursor };
    const shown = entry.slots.trump?.[0];
    if (shown && !entry.slots[`hand-${dealer}`].includes(shown)) {
      note.trumpOut = shown;
      entry.slots.trump = [];
      entry.choose("trump");
    }
    this.line.goTo(0);
    this.answer = null;
    this.current = false;
    return note;
  }

  /** Play begins (or goes on, after the cards were edited): the position of the cards. */
  startPlay() {
    this.header = headerOf(this.data, this.choice);
    this.verdict = null;
    this.naming = null;
    this.check = null;
    return this.changed();
  }

  /** A match entered deal after deal: the deal at the table, finished, joins the deals before
   *  (as its log has it), and the next deal's cards are entered, dealt by the next seat round
   *  the table (rules.md §2). */
  nextDeal() {
    this.before = [...this.before, this.log().deals.at(-1)];
    const dealer = (this.entry.dealer + 1) % this.entry.players;
    this.choice = { ...this.choice, dealer };
    const table = tableOf(this.data, headerOf(this.data, this.choice), this.words);
    this.entry = new DealEntry(table, dealer, this.choice.mode);
    this.line = new MoveLine();
    this.answer = null;
    this.current = false;
    this.verdict = null;
    this.check = null;
  }

  /** Whether a next deal can be entered: this one is over, and the match is not. */
  canDealAgain() {
    const { answer } = this;
    return Boolean(answer && this.view.over && answer.status !== "invalid" && !answer.match?.over);
  }

  // --- play ----------------------------------------------------------------------------------

  /** Judge `move` on the position now; play it when the referee lets it be played (a
   *  renuncio is played: the table plays on). */
  async propose(move) {
    this.naming = null;
    const verdict = await this.judge(move);
    if (verdict.verdict !== "illegal") this.line.play(move);
    if (verdict.verdict !== "illegal" || !this.current) await this.changed();
    this.verdict = verdict;
    this.verdictDoubt = this.seatsHoldingUnknown().has(move.seat) ? move.seat : null;
    return verdict;
  }

  /** The referee's verdict on `move`: by the position's state_id, and by the whole log when
   *  there is none for the position now or the server cannot open it (409: its secret
   *  rotated, say), as docs/api.md says. */
  async judge(move) {
    if (this.current && this.stateId) {
      try {
        return await this.ask((service) => service.validate({ state_id: this.stateId, move }));
      } catch (error) {
        if (!(error instanceof ServiceError && error.status === 409)) throw error;
        this.stateId = null;
      }
    }
    return this.ask((service) => service.validate({ ...this.log(), move }));
  }

  /** Move along the line (`change` of moveline.js: undo, redo, goTo, backToOriginal). */
  step(change) {
    this.verdict = null;
    change(this.line);
    return this.changed();
  }

  /** Ask again about the position now (another language, an API key given): the verdict on
   *  the last move, said in the words of before, goes. */
  again() {
    this.verdict = null;
    return this.changed();
  }

  /** The seat plays one of its unknown cards (`filler`, the card the log fills in): which? */
  startNaming(seat, filler) {
    const [key] = [...this.entry.representative()].find(([, code]) => code === filler);
    const [id, index] = key.split("/");
    this.naming = { seat, slot: { id, index: Number(index) } };
  }

  cancelNaming() {
    this.naming = null;
  }

  /** The unknown card being named is `code`, and the seat plays it. */
  nameAndPlay(code) {
    const { seat, slot } = this.naming;
    this.entry.name(slot, code);
    this.current = false; // the card is known now: a new log to judge the play on
    return this.propose({ type: "play", seat, card: code });
  }

  /** The pending draw (pendingDraw) was `code`; null: nobody saw it. */
  nameDraw(code) {
    const draw = this.pendingDraw();
    if (code === null) this.entry.unknownDraws.add(draw.index);
    else this.entry.name({ id: "stock", index: draw.index }, code);
    return this.changed();
  }

  /** Ask, case by case, what depends on the unknown cards (one batch, in the background). */
  async checkUnknowns() {
    const ask = (logs) => this.ask((service) => service.scoreMany(logs), { background: true });
    try {
      this.check = await checkUnknowns(this, ask);
    } catch (error) {
      if (error instanceof StaleAnswer) throw error;
      this.check = { error: problemLines(this.words, error).join(" — ") };
    }
  }

  // --- a log opened here ---------------------------------------------------------------------

  /** A log from a link: its deal `place.deal` (from 1; the last by default) becomes the deal at
   *  the table, the moves up to `place.event` made and the rest of its line kept to redo. */
  async open(log, place) {
    const answer = await this.ask((service) => service.replay(log));
    const index = Math.min(Math.max((place.deal ?? log.deals.length) - 1, 0), log.deals.length - 1);
    const given = log.deals[index];
    const dealer = answer.deals[index] ? answer.deals[index].dealer : given.dealer;
    this.choice = {
      ruleset: log.ruleset,
      count: log.players.length,
      names: log.players,
      notation: log.notation === "french" ? "french" : "spanish",
      options: log.options ?? {},
      dealer,
      mode: Array.isArray(given.deck) ? "deck" : "hands",
      details: Object.fromEntries(tableDetails(log)),
    };
    this.header = headerOf(this.data, this.choice); // the header startPlay gives the same table
    this.entry = DealEntry.fromDeal(tableOf(this.data, this.header, this.words), given, dealer);
    this.before = log.deals.slice(0, index);
    const events = given.events ?? [];
    this.line = new MoveLine(events, place.event ?? events.length);
    this.answer = null;
    return this.changed();
  }
}
