// The table editor (GET /enter): an organiser at a table enters a disputed deal — the table,
// then the cards one tap each, then the moves one tap each — and the referee judges every move
// as it is made (POST /v1/moves/validate by state_id: the service keeps nothing). Undo, redo and
// "what if" move through the deal without losing it; the deal is a log of docs/api.md at any
// moment. A log can be opened here too (#log=…&deal=2&event=14, as the ruling view links it).
//
// The editor's state is one object (editorstate.js), which asks the service and drops stale
// answers; this module draws its three steps (tableform.js, picker.js, table.js) and wires the
// taps to it.

import { bringIntoView, button, byId, el } from "./dom.js";
import {
  Drafts,
  draftSummary,
  newDraftId,
  readDraftFragment,
  restoreInto,
  sameDraft,
  snapshotOf,
  writeDraftFragment,
} from "./draft.js";
import { EditorState, StaleAnswer, headerOf } from "./editorstate.js";
import { wireKeys } from "./keys.js";
import { placeName } from "./entrytext.js";
import { fragmentText, readFragment } from "./logcodec.js";
import { MoveLine } from "./moveline.js";
import { renderPicker } from "./picker.js";
import { faultsByPlace, positionOf } from "./positionentry.js";
import { PositionRun } from "./positionrun.js";
import { renderPositionPlay } from "./positionview.js";
import { problemLines } from "./rulingtext.js";
import { Service, ServiceError } from "./service.js";
import { candidatePrompt, renderTable, unknownsReport, verdictBox } from "./table.js";
import { renderTableForm } from "./tableform.js";
import {
  DATA,
  applyStaticWords,
  counted,
  currentLang,
  onLangChange,
  t,
  wireLanguageLinks,
  words,
} from "./words.js";

/** How long the table stays quiet before the unknown cards are checked: after the last of a
 *  quick run of taps, not after each. */
const CHECK_AFTER_MS = 400;

const problemBox = (lines) =>
  el("div", { class: "problem", role: "alert" }, ...lines.map((line) => el("p", { text: line })));

/** The browser's storage, or a stand-in that keeps nothing when the browser has none (a
 *  private window may refuse it): the address still holds the draft. */
function deviceStorage() {
  try {
    return window.localStorage;
  } catch {
    return { getItem: () => null, setItem: () => {} };
  }
}

/** The one card an unknown place can hold, {code, label (in a sentence)}, when only one is left. */
function onlyCandidate(state) {
  const candidates = state.entry.candidates();
  if (candidates.length !== 1) return null;
  return { code: candidates[0], label: state.entry.deck.name(candidates[0]) };
}

/** What a change of the table did to the cards, in words (null: nothing to say): the dealer's
 *  `note` of EditorState.changeDealer, or the cards taken out, with `undo` to bring back. */
function changeNotice(state, note, undo, reopen) {
  const lines = [];
  if (note) {
    const name = state.choice.names[note.dealer];
    lines.push(t(note.deck ? "change.dealer_deck" : "change.dealer", { name }));
    if (note.trumpOut) {
      lines.push(
        words.sentence("change.trump_out", { card: state.entry.deck.name(note.trumpOut), name }),
      );
    }
    if (note.moves) lines.push(counted("change.moves_kept", note.moves));
  }
  if (undo) lines.push(t("change.done"));
  if (!lines.length) return null;
  return el(
    "div",
    { class: "notice", id: "change-notice", role: "status" },
    ...lines.map((line) => el("p", { text: line })),
    undo
      ? button({ class: "secondary", "data-action": "change-undo" }, t("change.undo"), () =>
          reopen(undo),
        )
      : null,
  );
}

/** This page's address holding `draft`. */
const addressOf = (draft) => `${location.pathname}${location.search}${writeDraftFragment(draft)}`;

class Editor {
  constructor(root, state, drafts) {
    this.root = root;
    this.state = state;
    this.drafts = drafts;
    this.renders = 0; // a test hook: how many times a step was drawn
    this.checkTimer = null;
    this.kept = null; // the draft the address holds now
    this.note = null; // what the page filled in by itself, said once on the next table drawn
    this.filledDraw = null; // the draw filled in so (never twice)
    this.run = null; // the play from a position (a deal started from the disputed trick)
    this.faults = null; // the referee's faults in the position entered, by place
  }

  mark(phase) {
    this.state.phase = phase;
    this.renders += 1;
    this.root.dataset.phase = phase;
    this.root.dataset.render = String(this.renders);
    this.keep();
  }

  /**
   * Keep the work: the draft of the state in the address — a new history entry for each step,
   * so Back and Forward move between the editor's steps (`replace`: the same entry, for the
   * table form being typed) — and in the device's list of drafts.
   */
  keep({ replace = false } = {}) {
    const { state } = this;
    if (!state.entry && !state.form) return; // nothing entered yet
    state.draftId ??= newDraftId();
    const draft = snapshotOf(state);
    if (sameDraft(draft, this.kept)) return;
    const same = replace || this.kept?.id !== draft.id; // a new deal takes the blank form's place
    history[same ? "replaceState" : "pushState"]({ draft }, "", addressOf(draft));
    this.kept = draft;
    this.drafts.save(draft);
  }

  /** Show the draft `draft` as it was kept (Back, Forward, a reload, a draft reopened). */
  restore(draft) {
    restoreInto(this.state, draft, headerOf);
    this.kept = draft;
    this.drafts.save({ ...draft, saved: Date.now() }); // the deal as shown is the deal kept
    const { phase } = this.state;
    if (phase === "play" && this.fromPosition()) return this.startPosition(this.state.line.moves);
    if (phase === "play") return this.play(() => this.state.changed());
    if (phase === "cards") this.showCards();
    else this.showTable();
    return Promise.resolve();
  }

  /** A new deal: the table form, as the page first shows it. */
  fresh() {
    this.state = new EditorState(this.state.data, this.state.words, this.state.service);
    this.kept = null;
    this.showTable();
  }

  /**
   * Run `action` (it asks the service through the state); false, after `onProblem` showed why,
   * if it failed — or, silently, when a newer action's question made its answer stale (that
   * action draws what it gets).
   */
  async act(action, onProblem = (lines) => this.showPlayProblem(lines)) {
    clearTimeout(this.checkTimer); // no check starts while the page waits for an answer
    this.root.dataset.busy = "true";
    try {
      await action();
      return true;
    } catch (error) {
      if (error instanceof StaleAnswer) return false;
      byId("key-form").hidden = !(error instanceof ServiceError && error.status === 401);
      onProblem(problemLines(words, error));
      return false;
    } finally {
      if (!this.state.busy) delete this.root.dataset.busy;
    }
  }

  /** Run `action`, then draw the table. */
  async play(action) {
    if (await this.act(action)) this.showPlay();
  }

  // --- 1. the table -----------------------------------------------------------------------------

  showTable({ focus = false } = {}) {
    const form = renderTableForm(
      this.state.form ?? this.state.choice,
      (choice) => {
        const lost = this.state.lostBy(choice);
        if (lost) this.askFirst(choice, lost);
        else this.chosen(choice);
      },
      (typed) => {
        this.state.form = typed;
        this.keep({ replace: true });
      },
      this.faults?.places ?? new Map(),
    );
    this.root.replaceChildren(form, this.draftList());
    this.mark("table");
    if (focus) bringIntoView(form, form.querySelector("#ruleset"), form.querySelector("#ruleset"));
  }

  /** The table `choice` taken: on to the cards, with what moved said. `undo`: the draft of
   *  before, when the change took cards out (a button brings it back). */
  chosen(choice, undo = null) {
    this.state.form = null;
    const note = this.state.chooseTable(choice);
    this.showCards(
      null,
      changeNotice(this.state, note, undo, (draft) => this.reopenDraft(draft)),
    );
  }

  /** A table that cannot keep the cards entered: asked first, never done silently. */
  askFirst(choice, lost) {
    byId("change-ask")?.remove();
    // undone, the change gives back the cards as they were, ready to check and play
    const before = { ...snapshotOf(this.state), phase: "cards", form: null };
    const box = el(
      "div",
      { class: "notice ask", id: "change-ask", role: "alertdialog", "aria-labelledby": "ask-q" },
      el("p", {
        id: "ask-q",
        text: t("change.ask", {
          cards: counted("drafts.cards", lost.cards),
          moves: counted("play.moves", lost.moves),
        }),
      }),
      el(
        "p",
        { class: "form-buttons" },
        button({ class: "secondary", "data-action": "change-keep" }, t("change.keep"), () => {
          box.remove();
          byId("to-cards")?.focus();
        }),
        button({ "data-action": "change-confirm" }, t("change.confirm"), () =>
          this.chosen(choice, before),
        ),
      ),
    );
    byId("table-form").after(box);
    box.querySelector("[data-action=change-confirm]").focus();
  }

  /** The deals entered on this device (newest first), to reopen or delete. */
  draftList() {
    const list = this.drafts.all().map(draftSummary);
    if (!list.length) return "";
    const when = (saved) =>
      new Date(saved).toLocaleString(currentLang(), { dateStyle: "short", timeStyle: "short" });
    const item = (draft) =>
      el(
        "li",
        { "data-draft": draft.id },
        el("span", {
          text: t("drafts.line", {
            ruleset: t(`ruleset.${draft.ruleset}`),
            names: draft.names.filter(Boolean).join(", ") || "—",
            cards: counted("drafts.cards", draft.cards),
            moves: counted("play.moves", draft.moves),
            saved: when(draft.saved),
          }),
        }),
        " ",
        button({ class: "secondary", "data-draft-open": draft.id }, t("drafts.open"), () =>
          this.reopen(draft.id),
        ),
        " ",
        button({ class: "secondary", "data-draft-delete": draft.id }, t("drafts.delete"), () => {
          this.drafts.remove(draft.id);
          byId("drafts")?.replaceWith(this.draftList());
        }),
      );
    return el(
      "section",
      { class: "drafts", id: "drafts", "aria-labelledby": "drafts-heading" },
      el("h2", { id: "drafts-heading", text: t("drafts.heading") }),
      el("ul", {}, ...list.map(item)),
    );
  }

  reopen(id) {
    const draft = this.drafts.get(id);
    if (draft) this.reopenDraft(draft);
  }

  reopenDraft(draft) {
    history.pushState({ draft }, "", addressOf(draft)); // a step of its own in the history
    return this.restore(draft);
  }

  /** The table's form with `lines` (a problem) above it. */
  showTableProblem(lines) {
    this.showTable();
    this.root.prepend(problemBox(lines));
  }

  // --- 2. the cards -----------------------------------------------------------------------------

  showCards(problem = null, notice = null) {
    const picker = renderPicker(this.state.entry, this.state.choice.names, {
      onStart: () => this.startPlay(),
      onBack: () => this.showTable({ focus: true }),
      onDraw: () => {
        this.mark("cards");
        // every card placed: the next thing is to play
        const start = byId("start-play"); // none yet while the step is first drawn
        if (start && this.state.entry.complete()) bringIntoView(start, start, start);
      },
    });
    if (notice) picker.prepend(notice);
    if (problem) picker.prepend(problemBox(problem));
    if (this.faults) this.showFaults(picker);
    this.root.replaceChildren(picker);
    // the step begins: what to fill now, the pack below it, and a card of it focused
    const next = picker.querySelector(".picker .card:not(.given)") ?? byId("start-play");
    bringIntoView(picker.firstElementChild, byId("entry-now"), next);
    const start = byId("start-play");
    if (this.state.entry.complete()) bringIntoView(start, start, start);
  }

  async startPlay() {
    if (this.fromPosition()) {
      await this.startPosition();
      return;
    }
    const filled = this.state.entry.fillTheOnlyUnknown();
    if (filled) {
      const target = this.state.entry.target(filled.id);
      this.note = words.sentence("entry.only_unknown", {
        card: this.state.entry.deck.name(filled.code),
        place: placeName(words, target, this.state.choice.names, filled.index),
      });
    }
    if (
      await this.act(
        () => this.state.startPlay(),
        (lines) => this.showCards(lines),
      )
    ) {
      this.showPlay();
    }
  }

  // --- a deal from the disputed trick: the position entered, judged move by move -------------

  fromPosition() {
    return this.state.choice.mode === "position" && this.state.entry?.mode === "position";
  }

  /** The referee's faults in the position entered, each beside the place it is about (a hand,
   *  the trick, a trick played), the rest above the pack; the first one in view. */
  showFaults(picker) {
    const { places, general } = this.faults;
    const aside = [...general];
    for (const [place, lines] of places) {
      const section = picker.querySelector(`[data-target="${place}"]`);
      const fault = el("p", { class: "field-fault", "data-fault": place, text: lines.join(" ") });
      if (section) section.querySelector("h3").after(fault);
      else aside.push(...lines);
    }
    const box = el(
      "div",
      { class: "problem", id: "position-faults", role: "alert" },
      el("p", { text: t("position.faults") }),
      ...aside.map((line) => el("p", { class: "field-fault", text: line })),
    );
    picker.prepend(box);
  }

  /** The words for a place of the entry (or a field of the table form), for a fault. */
  placeWords(place) {
    const { entry, choice } = this.state;
    const target = entry.target(place);
    if (target) return placeName(words, target, choice.names);
    return t("position.place_form");
  }

  /** Play from the position entered: the referee checks it (its faults go back beside the
   *  places), then `moves` (a draft reopened) are judged again, one by one. */
  async startPosition(moves = []) {
    const { state } = this;
    state.header = headerOf(state.data, state.choice);
    const position = positionOf(state.header, state.entry);
    const run = new PositionRun(state.service);
    this.root.dataset.busy = "true";
    try {
      await run.begin(position, state.entry.pack()[0]);
      await run.replay(moves);
    } catch (error) {
      this.refused(error, position);
      return;
    } finally {
      delete this.root.dataset.busy;
    }
    this.faults = null;
    this.run = run;
    this.showPositionPlay();
  }

  /** A position the referee refused: its faults in words beside the places, on the cards. */
  refused(error, position) {
    byId("key-form").hidden = !(error instanceof ServiceError && error.status === 401);
    if (!(error instanceof ServiceError && error.status === 422)) {
      this.showCards(problemLines(words, error));
      return;
    }
    const { names } = this.state.choice;
    this.faults = faultsByPlace(words, error.body, position, names, this.state.entry, (place) =>
      this.placeWords(place),
    );
    this.showCards();
    const first = this.root.querySelector("#position-faults");
    bringIntoView(first, first, first.querySelector("p"));
  }

  positionHandlers() {
    const { run } = this;
    return {
      onMove: async (move) => {
        this.root.dataset.busy = "true";
        try {
          await run.propose(move);
        } catch (error) {
          run.verdict = null;
          this.showPositionPlay();
          byId("verdict")?.replaceChildren(problemBox(problemLines(words, error)));
          return;
        } finally {
          delete this.root.dataset.busy;
        }
        this.showPositionPlay();
      },
      onUndo: () => {
        run.undo();
        this.showPositionPlay();
      },
      onEditCards: () => {
        this.run = null;
        this.showCards();
      },
    };
  }

  showPositionPlay() {
    const { state } = this;
    const ctx = {
      words,
      deck: state.entry.deck,
      pack: state.entry.pack(),
      ruleset: state.entry.ruleset,
      names: state.choice.names,
    };
    state.line = new MoveLine(this.run.moves); // kept in the draft: a reload plays them again
    this.root.replaceChildren(renderPositionPlay(ctx, this.run, this.positionHandlers()));
    this.mark("play");
    const seat = this.root.querySelector(".seat.acting");
    const verdict = byId("verdict");
    const ruling = byId("position-ruling");
    if (!seat) {
      bringIntoView(verdict, ruling, ruling);
      return;
    }
    const above = verdict.childElementCount ? verdict : seat;
    bringIntoView(above, seat, seat.querySelector("button"));
  }

  // --- 3. play ----------------------------------------------------------------------------------

  showPlayProblem(lines) {
    if (!this.state.answer) {
      this.showTableProblem(lines); // no position to show yet: a log refused as it was opened
      return;
    }
    this.state.verdict = null;
    this.showPlay();
    byId("verdict")?.replaceChildren(
      el(
        "div",
        { class: "verdict verdict-error", "data-verdict": "error" },
        ...lines.map((line) => el("p", { text: line })),
      ),
    );
  }

  handlers() {
    const { state } = this;
    return {
      onMove: (move) => this.play(() => state.propose(move)),
      onNameUnknown: (seat, filler) => {
        state.startNaming(seat, filler);
        const only = onlyCandidate(state);
        if (!only) this.showPlay();
        else {
          this.note = t("play.only_play", { name: state.choice.names[seat], card: only.label });
          this.play(() => state.nameAndPlay(only.code));
        }
      },
      onUndo: () => this.play(() => state.step((line) => line.undo())),
      onRedo: () => this.play(() => state.step((line) => line.redo())),
      onGoTo: (count) => this.play(() => state.step((line) => line.goTo(count))),
      onOriginal: () => this.play(() => state.step((line) => line.backToOriginal())),
      onEditCards: () => this.showCards(),
      onNextDeal: () => {
        state.nextDeal();
        this.showCards();
      },
    };
  }

  /** The prompt shown instead of the hand: the unknown card being played, or a draw to name. */
  prompt() {
    const { state } = this;
    const { names } = state.choice;
    const secondary = (action, text, onClick) =>
      el(
        "p",
        {},
        el("button", {
          type: "button",
          class: "secondary",
          "data-action": action,
          text,
          on: { click: onClick },
        }),
      );
    if (state.naming) {
      const cancel = secondary("cancel", t("play.cancel"), () => {
        state.cancelNaming();
        this.showPlay();
      });
      const question = t("play.which_card", { name: names[state.naming.seat] });
      return candidatePrompt(
        state.entry,
        question,
        (code) => this.play(() => state.nameAndPlay(code)),
        cancel,
      );
    }
    const draw = state.pendingDraw();
    if (!draw) return null;
    const unknown = secondary("draw-unknown", t("play.draw_unknown"), () =>
      this.play(() => state.nameDraw(null)),
    );
    const question = t("play.which_draw", { name: names[draw.seat], number: draw.index + 1 });
    return candidatePrompt(
      state.entry,
      question,
      (code) => this.play(() => state.nameDraw(code)),
      unknown,
    );
  }

  showPlay() {
    this.root.replaceChildren(renderTable(this.state, this.prompt(), this.handlers()));
    if (this.note) {
      byId("verdict").after(el("p", { class: "notice", id: "auto-note", text: this.note }));
      this.note = null;
    }
    this.mark("play");
    if (this.fillOnlyDraw()) return;
    this.showWork();
    if (this.state.check === "pending") this.scheduleCheck();
  }

  /** Undo or redo from the keyboard, when the button would do it: whether it did. */
  keyStep(action) {
    const control = this.root.querySelector(`[data-action="${action}"]`);
    if (!control || control.disabled || this.state.busy) return false;
    control.click();
    return true;
  }

  /** The next thing to do in view and focused: the prompt, else the hand to play (with the
   *  verdict and whose turn it is above it, when they fit), else, the deal over, the ruling. */
  showWork() {
    const prompt = this.root.querySelector(".prompt");
    if (prompt) {
      bringIntoView(prompt, prompt, prompt.querySelector("button"));
      return;
    }
    const seat = this.root.querySelector(".seat.acting");
    if (seat) {
      const verdict = byId("verdict");
      const above = verdict.childElementCount ? verdict : this.root.querySelector(".turn-line");
      bringIntoView(above, seat, seat.querySelector(".hand-now button"));
      return;
    }
    const over = this.root.querySelector(".deal-over");
    const next = this.root.querySelector('[data-action="next-deal"]') ?? byId("open-ruling");
    if (over) bringIntoView(over, next, next); // the match's next deal, else the ruling
  }

  /** A draw to name with one card left that it can be: filled in, and said (once a draw). */
  fillOnlyDraw() {
    const { state } = this;
    const draw = state.pendingDraw();
    const only = draw && onlyCandidate(state);
    if (!only || this.filledDraw === draw.index) return false;
    this.filledDraw = draw.index;
    this.note = t("play.only_draw", { name: state.choice.names[draw.seat], card: only.label });
    this.play(() => state.nameDraw(only.code));
    return true;
  }

  /** Check the unknown cards once the table is quiet. */
  scheduleCheck() {
    clearTimeout(this.checkTimer);
    this.checkTimer = setTimeout(() => this.check(), CHECK_AFTER_MS);
  }

  /** Ask, case by case, what depends on the unknown cards (one batch); then say it. A newer
   *  question (a tap) makes the answer stale: the table drawn after it checks again. */
  async check() {
    try {
      await this.state.checkUnknowns();
    } catch (error) {
      if (error instanceof StaleAnswer) return;
      throw error;
    }
    if (this.state.check) byId("unknowns")?.replaceWith(unknownsReport(this.state));
    else byId("unknowns")?.remove();
    byId("verdict")?.replaceWith(verdictBox(this.state)); // a renuncio in doubt: now what it is
  }

  // --- a log opened here ------------------------------------------------------------------------

  open(log, place) {
    return this.play(() => this.state.open(log, place));
  }

  redraw() {
    const { phase } = this.state;
    if (phase === "cards") this.showCards();
    else if (phase === "play" && this.fromPosition()) this.startPosition(this.run?.moves ?? []);
    else if (phase === "play") this.play(() => this.state.again());
    else this.showTable();
  }
}

/** The draft the address holds (history's copy first: the newest), or null. */
function draftInAddress() {
  if (history.state?.draft) return history.state.draft;
  try {
    return readDraftFragment(location.hash);
  } catch {
    return null;
  }
}

function openFromLink(editor) {
  const draft = draftInAddress();
  if (draft) {
    editor.restore(draft).catch((error) => editor.showPlayProblem(problemLines(words, error)));
    return true;
  }
  try {
    const found = readFragment(location.hash);
    if (!found) return false;
    const log = JSON.parse(fragmentText(found, DATA.cards));
    editor.open(log, found).catch((error) => editor.showPlayProblem(problemLines(words, error)));
  } catch (error) {
    editor.showTableProblem([t("error.fragment", { detail: error.message })]);
  }
  return true;
}

const service = new Service({ base: document.baseURI, lang: currentLang });
const editor = new Editor(
  byId("editor"),
  new EditorState(DATA, words, service),
  new Drafts(deviceStorage()),
);
window.addEventListener("popstate", () => {
  const draft = draftInAddress();
  if (draft) editor.restore(draft);
  else if (!openFromLink(editor) && !location.hash) editor.fresh();
});
byId("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  service.setApiKey(byId("api-key").value.trim());
  byId("key-form").hidden = true;
  editor.redraw();
});
wireKeys(byId("editor"), {
  phase: () => editor.state.phase,
  canon: (text) => {
    const { entry } = editor.state;
    const code = entry?.deck.canon(text);
    return entry?.pack().includes(code) ? code : null;
  },
  undo: () => editor.keyStep("undo"),
  redo: () => editor.keyStep("redo"),
});
wireLanguageLinks();
onLangChange(() => editor.redraw());
applyStaticWords();
if (!openFromLink(editor)) editor.showTable();
document.documentElement.dataset.ready = "true";
