// Step by step through one deal: each step is a position of the answer's `steps` (the engine's
// view of the table as dealt and after each event: hands, the trick on the table, the turned
// card, the stock, the totals). The page draws them; it works nothing out. At any step, "what
// if" tries another move of the seat to act and shows the referee's verdict on it, and the
// editor can play on from there; the deal as played stays as it is.

import { cardButton, cardElement } from "./cards.js";
import { button, el } from "./dom.js";
import { shareFragment } from "./logcodec.js";
import { scoreLine } from "./ruling.js";
import { actionLabel, describeEvent, logEvents, seatName } from "./rulingtext.js";
import { verdictElement, verdictError } from "./verdict.js";
import { DATA, currentLang, t } from "./words.js";

/** The log up to event `count` of deal `index`: what the table knew at that step. */
export function logUpTo(log, index, count) {
  const deals = log.deals.slice(0, index);
  deals.push({ ...log.deals[index], events: (log.deals[index].events ?? []).slice(0, count) });
  return { ...log, deals };
}

export class Stepper {
  /** Deal `index` of the ruling `ctx`, in `root`, opened by `toggle`; "what if" asks `service`. */
  constructor(ctx, index, root, toggle, service) {
    this.ctx = ctx;
    this.service = service;
    this.index = index;
    this.deal = ctx.answer.deals[index];
    this.steps = this.deal.steps;
    this.events = logEvents(ctx, index);
    this.root = root;
    this.toggle = toggle;
    this.position = 0;
    this.whatIf = false;
    this.asked = 0; // what-if questions asked: only the latest one's answer is shown
  }

  get last() {
    return this.steps.length - 1;
  }

  open() {
    this.toggle.setAttribute("aria-expanded", "true");
    this.toggle.textContent = t("deal.step_close");
    this.root.hidden = false;
    this.draw();
    this.root.scrollIntoView({ block: "nearest" });
  }

  close() {
    this.root.hidden = true;
    this.root.replaceChildren();
    delete this.root.dataset.step;
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.textContent = t("deal.step");
  }

  move(where) {
    const target = { first: 0, prev: this.position - 1, next: this.position + 1, last: this.last }[
      where
    ];
    this.position = Math.max(0, Math.min(this.last, target));
    this.draw();
  }

  /** The violation at the next event, and the illegal event where the replay stopped. */
  incidents() {
    const offence = this.deal.violations.find((v) => v.event === this.position) ?? null;
    const { illegal } = this.ctx.answer;
    const stopped =
      illegal && illegal.deal === this.index && illegal.event === this.position ? illegal : null;
    return { offence, stopped };
  }

  draw() {
    const step = this.steps[this.position];
    this.root.dataset.step = String(this.position);
    this.root.replaceChildren(
      el("h4", { text: t("step.heading") }),
      this.buttons(),
      this.text(),
      el("div", { class: "step-board" }, this.table(step), this.hands(step)),
      this.facts(step),
      this.whatIfPanel(step),
    );
  }

  buttons() {
    const box = el("div", { class: "step-buttons" });
    for (const where of ["first", "prev", "next", "last"]) {
      const control = button({ "data-step-move": where }, t(`step.${where}`), () =>
        this.move(where),
      );
      control.disabled =
        where === "first" || where === "prev" ? this.position === 0 : this.position === this.last;
      box.append(control);
    }
    box.append(
      el("span", {
        class: "position",
        text: t("step.position", { step: this.position, total: this.last }),
      }),
      el("span", { class: "hint", text: t("step.keys") }),
    );
    return box;
  }

  text() {
    const { ctx, position } = this;
    const lines = el("div", { class: "step-text" });
    if (position === 0) lines.append(el("p", { text: t("step.dealt") }));
    else {
      let text = describeEvent(ctx, this.events[position - 1]);
      const done = this.completed();
      if (done) {
        const { winner, points } = done.trick;
        const won = t("step.trick_won", {
          name: seatName(ctx, winner),
          number: done.number,
          points,
        });
        text += ` · ${won}`;
      }
      lines.append(el("p", { class: "last-event", text: t("step.last_event", { text }) }));
    }
    const { offence, stopped } = this.incidents();
    const next = position < this.last ? this.events[position] : null;
    if (next) {
      const what = describeEvent(ctx, next) + (offence ? ` — ${t("step.renuncio")}` : "");
      lines.append(
        el("p", {
          class: `next-event${offence ? " renuncio" : ""}`,
          text: t("step.next_event", { text: what }),
        }),
      );
      if (offence) lines.append(el("p", { class: "message", text: offence.message }));
    } else if (stopped) {
      lines.append(
        el("p", {
          class: "next-event illegal-step",
          text: t("step.next_event", { text: describeEvent(ctx, this.events[position]) }),
        }),
        el("p", { class: "message", text: `${t("step.stopped")} ${stopped.message}` }),
      );
    } else {
      lines.append(el("p", { class: "end", text: t("step.end") }));
    }
    return lines;
  }

  /** The trick the last event completed, as the answer has it (null if it completed none). */
  completed() {
    if (this.position === 0) return null;
    const number = this.steps[this.position].trick.number;
    if (number === this.steps[this.position - 1].trick.number) return null;
    return { number, trick: this.deal.tricks[number - 1] };
  }

  hands(step) {
    const { ctx } = this;
    const { offence } = this.incidents();
    const next = this.position < this.last ? this.events[this.position] : null;
    const nextCard = next && next.type === "play" ? ctx.deck.canon(next.card) : null;
    const correct = new Set(offence ? offence.correct : []);
    return el(
      "div",
      { class: "hands" },
      el("h5", { text: t("step.hands") }),
      ...step.hands.map((hand, seat) =>
        el(
          "div",
          { class: "hand", "data-hand": seat },
          el("span", { class: "who", text: seatName(ctx, seat) }),
          el(
            "span",
            { class: "cards" },
            ...hand.map((code) => {
              const shown = cardElement(code, ctx.deck);
              if (code === nextCard && next.seat === seat) shown.classList.add("next-play");
              if (offence && offence.seat === seat && correct.has(code)) {
                shown.classList.add("correct");
              }
              return shown;
            }),
          ),
        ),
      ),
    );
  }

  table(step) {
    const { ctx } = this;
    const done = this.completed();
    const plays = done ? done.trick.plays : step.trick.plays;
    return el(
      "div",
      { class: "table" },
      el("h5", { text: t("step.table") }),
      el(
        "div",
        { class: "plays" },
        ...plays.map((play) => {
          const figure = el(
            "figure",
            { class: "play", "data-seat": play.seat },
            cardElement(play.card, ctx.deck),
            el("figcaption", { text: seatName(ctx, play.seat) }),
          );
          if (done && done.trick.winner === play.seat) figure.classList.add("win");
          return figure;
        }),
      ),
    );
  }

  facts(step) {
    const { ctx } = this;
    const extras = el("div", { class: "step-facts" });
    if (step.turned) {
      const label = ctx.ruleset.trump_from === "stock" ? "deal.turned" : "deal.dealer_card";
      extras.append(el("p", {}, `${t(label)} `, cardElement(step.turned, ctx.deck)));
    }
    if (ctx.ruleset.stock) {
      extras.append(el("p", { text: `${t("deal.stock_left")}: ${step.stock_left}` }));
    }
    extras.append(scoreLine(ctx, this.deal, step.totals, "step-score"));
    return extras;
  }

  // --- what if ---------------------------------------------------------------------------------

  whatIfPanel(step) {
    if (step.turn === null) return null;
    const panel = el("div", { class: "what-if" });
    const toggle = button(
      {
        class: "secondary",
        "data-action": "whatif",
        "aria-expanded": this.whatIf ? "true" : "false",
      },
      t("whatif.toggle", { name: seatName(this.ctx, step.turn) }),
      () => {
        this.whatIf = !this.whatIf;
        this.draw();
      },
    );
    panel.append(toggle);
    if (!this.whatIf) return panel;
    const verdict = el("div", { class: "verdict-box", role: "status", "aria-live": "polite" });
    const moves = el(
      "div",
      { class: "whatif-moves", role: "group", "aria-label": t("whatif.moves") },
      ...step.hands[step.turn].map((code) =>
        cardButton(code, this.ctx.deck, () =>
          this.tryMove({ type: "play", seat: step.turn, card: code }, verdict),
        ),
      ),
      ...step.legal_moves
        .filter((m) => m.type !== "play")
        .map((m) =>
          button({ class: "secondary", "data-action": m.type }, actionLabel(this.ctx, m), () =>
            this.tryMove(m, verdict),
          ),
        ),
    );
    for (const control of moves.querySelectorAll("button.card")) {
      control.dataset.whatifCard = control.dataset.card;
    }
    const place = { deal: this.index + 1, event: this.position };
    const href = `enter?lang=${currentLang()}${shareFragment(this.ctx.log, DATA.cards, place)}`;
    panel.append(
      el("p", { class: "hint", text: t("whatif.hint") }),
      moves,
      verdict,
      el("p", {}, el("a", { href, class: "play-on", text: t("whatif.editor") })),
    );
    return panel;
  }

  async tryMove(move, box) {
    const asked = ++this.asked;
    box.replaceChildren(el("p", { class: "loading", text: t("state.asking") }));
    let shown;
    try {
      const answer = await this.service.validate({
        ...logUpTo(this.ctx.log, this.index, this.position),
        move,
      });
      shown = verdictElement(answer, this.ctx.deck);
    } catch (error) {
      shown = verdictError(error);
    }
    if (asked === this.asked) box.replaceChildren(shown); // a newer question's answer wins
  }
}

/** At most one stepper is open on a page: the arrows and Home/End move it. */
let openStepper = null;

export function toggleStepper(ctx, index, root, toggle, service) {
  const wasOpen = openStepper && openStepper.root === root;
  closeStepper();
  if (wasOpen) return;
  openStepper = new Stepper(ctx, index, root, toggle, service);
  openStepper.open();
}

export function closeStepper() {
  if (openStepper) openStepper.close();
  openStepper = null;
}

document.addEventListener("keydown", (event) => {
  if (!openStepper || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target instanceof HTMLElement && event.target.closest("input, textarea, select")) {
    return;
  }
  const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  if (!where) return;
  event.preventDefault();
  openStepper.move(where);
});
