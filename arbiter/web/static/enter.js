// The table editor (GET /enter): an organiser at a table enters a disputed deal — the table,
// then the cards one tap each, then the moves one tap each — and the referee judges every move
// as it is made (POST /v1/moves/validate by state_id: the service keeps nothing). Undo, redo and
// "what if" move through the deal without losing it; the deal is a log of docs/api.md at any
// moment. A log can be opened here too (#log=…&deal=2&event=14, as the ruling view links it).
//
// This module only sequences the three steps (tableform.js, picker.js, table.js); the entered
// cards are entry.js, the moves and the referee's answers session.js, the unknown cards
// unknowns.js.

import { byId, el } from "./dom.js";
import { DealEntry, UNKNOWN } from "./entry.js";
import { decodeLog, readFragment } from "./logcodec.js";
import { renderPicker } from "./picker.js";
import { ServiceError, replay, setApiKey } from "./service.js";
import { PlaySession } from "./session.js";
import { candidatePrompt, renderTable, unknownsReport } from "./table.js";
import { changedOptions, renderTableForm } from "./tableform.js";
import { checkUnknowns } from "./unknowns.js";
import { problemLines } from "./verdict.js";
import { applyStaticWords, onLangChange, t, wireLanguageLinks } from "./words.js";

function headerOf(choice) {
  const header = { ruleset: choice.ruleset, players: choice.names };
  const options = changedOptions(choice.ruleset, choice.options);
  if (Object.keys(options).length) header.options = options;
  if (choice.notation === "french") header.notation = "french";
  return header;
}

class Editor {
  constructor(root) {
    this.root = root;
    this.choice = { ruleset: "tute-4p", count: 4, names: [], notation: "spanish", options: {}, dealer: 3, mode: "hands" };
    this.entry = null;
    this.session = null;
    this.state = { verdict: null, verdictNote: null, check: null, naming: null };
    this.renders = 0;
    this.version = 0; // the session's changes: an answer about an older one is dropped
    this.checking = null; // {timer} or {running: true, again}: one check of the unknowns at a time
  }

  mark(phase) {
    this.renders += 1;
    this.root.dataset.phase = phase;
    this.root.dataset.render = String(this.renders);
  }

  busy(on) {
    if (on) this.root.dataset.busy = "true";
    else delete this.root.dataset.busy;
  }

  // --- 1. the table -----------------------------------------------------------------------------

  showTable() {
    this.root.replaceChildren(renderTableForm(this.choice, (choice) => this.toCards(choice)));
    this.mark("table");
  }

  toCards(choice) {
    const same = this.entry && this.choice.ruleset === choice.ruleset && this.choice.count === choice.count
      && this.choice.notation === choice.notation && this.choice.mode === choice.mode && this.entry.dealer === choice.dealer;
    this.choice = choice;
    if (!same) {
      this.entry = new DealEntry(headerOf(choice), choice.dealer, choice.mode);
      this.session = null;
    }
    this.showCards();
  }

  // --- 2. the cards -----------------------------------------------------------------------------

  showCards(problem = null) {
    const picker = renderPicker(this.entry, this.choice.names, {
      onStart: () => this.startPlay(), onBack: () => this.showTable(), onDraw: () => this.mark("cards"),
    });
    if (problem) picker.prepend(el("div", { class: "problem", role: "alert" }, ...problem.map((line) => el("p", { text: line }))));
    this.root.replaceChildren(picker);
  }

  async startPlay() {
    const header = headerOf(this.choice);
    if (!this.session) this.session = new PlaySession(header, this.entry);
    this.session.header = header;
    this.state = { verdict: null, verdictNote: null, check: null, naming: null };
    if (await this.run(() => this.session.refresh(), (lines) => this.showCards(lines))) this.showPlay();
  }

  // --- 3. play ------------------------------------------------------------------------------------

  /** Run `action` (it asks the service); false, after `onProblem` showed why, if it failed. */
  async run(action = () => this.session.refresh(), onProblem = (lines) => this.showPlayProblem(lines)) {
    this.busy(true);
    this.version += 1;
    try {
      await action();
      return true;
    } catch (error) {
      byId("key-form").hidden = !(error instanceof ServiceError && error.status === 401);
      onProblem(problemLines(error));
      return false;
    } finally {
      this.busy(false);
    }
  }

  showPlayProblem(lines) {
    if (!this.session?.answer) {
      this.showTableProblem(lines); // no position to show yet: a log refused as it was opened
      return;
    }
    this.state.verdict = null;
    this.showPlay();
    byId("verdict")?.replaceChildren(el("div", { class: "verdict verdict-error", "data-verdict": "error" }, ...lines.map((line) => el("p", { text: line }))));
  }

  handlers() {
    return {
      onMove: (move) => this.move(move),
      onNameUnknown: (seat, filler) => this.askToName(seat, filler),
      onUndo: () => this.step(() => this.session.undo()),
      onRedo: () => this.step(() => this.session.redo()),
      onGoTo: (count) => this.step(() => this.session.goTo(count)),
      onOriginal: () => this.step(() => this.session.backToOriginal()),
      onEditCards: () => this.showCards(),
    };
  }

  async step(change) {
    this.state.verdict = null;
    if (await this.run(change)) this.showPlay();
  }

  async move(move) {
    this.state.naming = null;
    let verdict = null;
    const ok = await this.run(async () => {
      verdict = await this.session.propose(move);
    });
    if (!ok) return;
    this.state.verdict = verdict;
    const holds = this.entry.unknownSlots().length && this.unknownSeats().has(move.seat);
    this.state.verdictNote = holds ? t("unknown.verdict_note", { name: this.choice.names[move.seat] }) : null;
    this.showPlay();
  }

  /** The seats whose hands hold an unknown card now. */
  unknownSeats() {
    const fillers = this.session.fillers();
    return new Set(this.session.view.hands.flatMap((hand, seat) => (hand.some((code) => fillers.has(code)) ? [seat] : [])));
  }

  askToName(seat, filler) {
    const key = [...this.entry.representative().entries()].find(([, code]) => code === filler)[0];
    const [id, index] = key.split("/");
    this.state.naming = { seat, slot: { id, index: Number(index) } };
    this.showPlay();
  }

  async nameAndPlay(code) {
    const { seat, slot } = this.state.naming;
    this.state.naming = null;
    this.entry.name(slot, code);
    // the card is known now: a new log, a new position (and state_id) to judge the play on
    if (await this.run()) await this.move({ type: "play", seat, card: code });
  }

  /** tute-2p with the stock entered "as it happens": the first draw whose card is not named. */
  pendingDraw() {
    if (!this.entry.slots.stock) return null;
    const draws = this.session.deal.tricks.flatMap((trick) => trick.draws);
    const k = draws.findIndex((_, i) => this.entry.slots.stock[i] === UNKNOWN && !this.entry.unknownDraws.has(i));
    return k < 0 ? null : { index: k, seat: draws[k].seat };
  }

  prompt() {
    const names = this.choice.names;
    if (this.state.naming) {
      const { seat } = this.state.naming;
      return candidatePrompt(this.entry, t("play.which_card", { name: names[seat] }), (code) => this.nameAndPlay(code),
        el("p", {}, el("button", { type: "button", class: "secondary", "data-action": "cancel", text: t("play.cancel"), on: { click: () => { this.state.naming = null; this.showPlay(); } } })));
    }
    const draw = this.pendingDraw();
    if (!draw) return null;
    const unknown = el("button", {
      type: "button", class: "secondary", "data-action": "draw-unknown", text: t("play.draw_unknown"),
      on: { click: () => { this.entry.unknownDraws.add(draw.index); this.afterCards(); } },
    });
    return candidatePrompt(this.entry, t("play.which_draw", { name: names[draw.seat], number: draw.index + 1 }), (code) => {
      this.entry.name({ id: "stock", index: draw.index }, code);
      this.afterCards();
    }, el("p", {}, unknown));
  }

  async afterCards() {
    if (await this.run()) this.showPlay();
  }

  showPlay() {
    const prompt = this.prompt();
    const unknown = this.entry.unknownSlots().length > 0;
    // what was said of the unknown cards before may not hold now (nor at all, once none is)
    this.state.check = unknown ? "pending" : null;
    this.root.replaceChildren(renderTable(this.session, { ...this.state, prompt }, this.handlers()));
    this.mark("play");
    const focus = this.root.querySelector(".prompt button, .seat.acting .hand-now button");
    if (focus) focus.focus({ preventScroll: true });
    if (unknown) this.scheduleCheck();
  }

  /** Check the unknown cards once the table is quiet (a batch request per check, never two at
   *  once): after the last of a quick run of taps, not after each. */
  scheduleCheck() {
    if (this.checking && this.checking.running) {
      this.checking.again = true;
      return;
    }
    if (this.checking) clearTimeout(this.checking.timer);
    this.checking = { timer: setTimeout(() => this.check(), 400) };
  }

  /** Ask, case by case, what depends on the unknown cards (one batch); then say it. */
  async check() {
    const version = this.version;
    this.checking = { running: true, again: false };
    let result;
    try {
      result = await checkUnknowns(this.session);
    } catch (error) {
      result = { error: problemLines(error).join(" — ") };
    }
    const again = this.checking.again || version !== this.version;
    this.checking = null;
    if (again) {
      this.scheduleCheck(); // the deal changed meanwhile: ask about it as it is now
      return;
    }
    this.state.check = result;
    if (result) byId("unknowns")?.replaceWith(unknownsReport(result, this.session));
    else byId("unknowns")?.remove();
  }

  // --- a log opened here --------------------------------------------------------------------------

  /** A log from a link: its deal `deal` (from 1; the last by default) becomes the deal at the
   *  table, the moves up to `event` made and the rest of its line kept to redo. */
  async open(log, place) {
    let answer = null;
    if (!(await this.run(async () => { answer = await replay(log); }, (lines) => this.showTableProblem(lines)))) return;
    const index = Math.min(Math.max((place.deal ?? log.deals.length) - 1, 0), log.deals.length - 1);
    const given = log.deals[index];
    const dealer = answer.deals[index] ? answer.deals[index].dealer : given.dealer;
    const ruleset = log.ruleset;
    this.choice = {
      ruleset, count: log.players.length, names: log.players, notation: log.notation === "french" ? "french" : "spanish",
      options: log.options ?? {}, dealer, mode: Array.isArray(given.deck) ? "deck" : "hands",
    };
    const header = headerOf(this.choice); // the header startPlay gives the same table
    this.entry = DealEntry.fromDeal(header, given, dealer);
    this.session = new PlaySession(header, this.entry, log.deals.slice(0, index));
    this.session.line = (given.events ?? []).slice();
    this.session.cursor = Math.min(place.event ?? this.session.line.length, this.session.line.length);
    if (await this.run()) this.showPlay();
  }

  /** The table's form with `lines` (a problem) above it. */
  showTableProblem(lines) {
    this.showTable();
    this.root.prepend(el("div", { class: "problem", role: "alert" }, ...lines.map((line) => el("p", { text: line }))));
  }

  redraw() {
    const phase = this.root.dataset.phase;
    if (phase === "cards") this.showCards();
    else if (phase === "play") this.step(() => this.session.refresh());
    else this.showTable();
  }
}

function openFromLink(editor) {
  let found;
  try {
    found = readFragment(location.hash);
    if (!found) return false;
    const log = JSON.parse(decodeLog(found.log));
    editor.open(log, found).catch((error) => editor.showPlayProblem(problemLines(error)));
    return true;
  } catch (error) {
    editor.showTableProblem([t("error.fragment", { detail: error.message })]);
    return true;
  }
}

const editor = new Editor(byId("editor"));
byId("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  setApiKey(byId("api-key").value.trim());
  byId("key-form").hidden = true;
  editor.redraw();
});
wireLanguageLinks();
onLangChange(() => editor.redraw());
applyStaticWords();
if (!openFromLink(editor)) editor.showTable();
document.documentElement.dataset.ready = "true";
