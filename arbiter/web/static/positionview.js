// The play of a deal started from the disputed trick (positionrun.js), drawn: the trick on the
// table, every hand round it (the seat to act marked, its declarations as buttons), the verdict
// on the last move, the ruling move by move and, always beside it, what a ruling from a position
// cannot know (docs/api.md): the history it was not given. The same classes as the deal's table
// (table.js), so the same layouts apply: one column on a phone, the hands round the trick on a
// wide screen.

import { cardButton, cardElement } from "./cards.js";
import { button, el } from "./dom.js";
import { actionLabel, describeEvent, renuncioHeading, seatName } from "./rulingtext.js";
import { seatPlace } from "./seatplaces.js";
import { verdictElement } from "./verdict.js";
import { t, words } from "./words.js";

/** What a ruling from a position cannot know, one sentence each (docs/api.md lists them). */
export const CANNOT_KNOW = [
  "position.unknown.tricks",
  "position.unknown.renuncios",
  "position.unknown.cantes",
  "position.unknown.exchanges",
  "position.unknown.stock",
  "position.unknown.match",
];

function factsLine(ctx, view) {
  const parts = [
    el(
      "span",
      {},
      `${t("deal.trump")}: `,
      view.trump ? ctx.deck.suitName(view.trump) : t("deal.trump_none"),
    ),
  ];
  if (view.turned) {
    const label = t(ctx.ruleset.trump_from === "stock" ? "deal.turned" : "deal.dealer_card");
    parts.push(el("span", { class: "turned" }, `${label} `, cardElement(view.turned, ctx.deck)));
  }
  if (ctx.ruleset.stock) {
    parts.push(el("span", { text: `${t("deal.stock_left")}: ${view.stock_left}` }));
  }
  const number = (view.trick.number ?? view.tricks.length) + 1;
  parts.push(el("span", { text: t("play.trick_no", { number }) }));
  return el(
    "p",
    { class: "play-facts" },
    ...parts.flatMap((part, i) => (i ? [" · ", part] : [part])),
  );
}

/** The trick on the table; the card of a renuncio that stopped play is shown on it, marked
 *  (the referee gives no position after it: the table is drawn as it was, plus that card). */
function trickNow(ctx, view, renuncio) {
  const plays = renuncio ? [...view.trick.plays, renuncio.move] : view.trick.plays;
  return el(
    "section",
    { class: "table-now", "aria-label": t("step.table") },
    el("h3", { text: t("step.table") }),
    el(
      "div",
      { class: "plays" },
      ...plays.map((play) =>
        el(
          "figure",
          {
            class: `play${renuncio?.move === play ? " offending" : ""}`,
            "data-seat": play.seat,
          },
          cardElement(play.card, ctx.deck),
          el("figcaption", { text: seatName(ctx, play.seat) }),
        ),
      ),
    ),
  );
}

function seatPanel(ctx, run, seat, onMove, open) {
  const { view } = run;
  const acting = open && view.turn === seat;
  const name = seatName(ctx, seat);
  const cards = el("div", {
    class: "hand-now",
    role: "group",
    "aria-label": t("play.hand_of", { name }),
  });
  // every seat's cards can be tapped: a card played out of turn is refused with the reason
  const played = run.stopped && run.renuncio.move.seat === seat ? run.renuncio.move.card : null;
  for (const code of view.hands[seat].filter((card) => card !== played)) {
    const control = cardButton(
      code,
      ctx.deck,
      () => onMove({ type: "play", seat, card: code }),
      t("play.play_it"),
    );
    control.disabled = !open;
    cards.append(control);
  }
  const panel = el(
    "section",
    {
      class: `seat${acting ? " acting" : ""}`,
      "data-seat": seat,
      "data-place": seatPlace(seat, view.hands.length),
      "aria-label": name,
    },
    el(
      "h3",
      {},
      name,
      acting ? el("span", { class: "to-act", text: ` — ${t("play.to_act")}` }) : null,
    ),
    cards,
  );
  const declarations = acting ? view.declarations.map(({ cards: _c, ...move }) => move) : [];
  if (declarations.length) {
    panel.append(
      el(
        "div",
        { class: "declarations", role: "group", "aria-label": t("play.declarations") },
        ...declarations.map((move) =>
          button(
            {
              "data-action": move.type,
              "data-suit": move.suit ?? null,
              "data-of": move.of ?? null,
            },
            actionLabel(ctx, move),
            () => onMove(move),
          ),
        ),
      ),
    );
  }
  return panel;
}

/** The ruling from the position: each move made with the referee's verdict, then what the
 *  ruling cannot know. */
function rulingFromPosition(ctx, run) {
  const made = run.ruling();
  const list = el("ol", { class: "moves position-moves" });
  for (const { move, verdict } of made) {
    const renuncio = verdict.verdict === "renuncio";
    list.append(
      el(
        "li",
        { class: renuncio ? "renuncio-found" : "done", "data-verdict": verdict.verdict },
        renuncio ? el("strong", { text: `${renuncioHeading(words, verdict.obligation)}: ` }) : null,
        renuncio ? verdict.message : describeEvent(ctx, move),
      ),
    );
  }
  return el(
    "section",
    { class: "so-far", id: "position-ruling", "aria-labelledby": "position-ruling-heading" },
    el("h3", { id: "position-ruling-heading", text: t("position.ruling") }),
    made.length ? list : el("p", { text: t("position.no_moves") }),
    run.stopped
      ? el("p", { class: "notice", id: "position-stopped", text: t("position.stopped") })
      : null,
    el("h3", { id: "position-unknown-heading", text: t("position.unknown.heading") }),
    el(
      "ul",
      { class: "cannot-know", id: "position-unknown" },
      ...CANNOT_KNOW.map((key) => el("li", { text: t(key) })),
    ),
  );
}

/**
 * The play step of a deal started from a position. `ctx`: {words, deck, ruleset, names};
 * `run`: the PositionRun; `handlers`: onMove(move), onUndo(), onEditCards().
 */
export function renderPositionPlay(ctx, run, handlers) {
  const { view } = run;
  const open = !run.stopped && view.turn !== null;
  const verdict = el("div", {
    class: "verdict-box",
    id: "verdict",
    role: "status",
    "aria-live": "polite",
    "aria-atomic": "true",
  });
  if (run.verdict) verdict.append(verdictElement(run.verdict, ctx.deck));
  const undo = button(
    { class: "secondary", "data-action": "undo" },
    t("play.undo"),
    handlers.onUndo,
  );
  undo.disabled = !run.canUndo();
  const seats = view.hands.map((_, seat) => seat);
  const acting = open ? view.turn : null;
  return el(
    "section",
    {
      class: "at-table from-position",
      "aria-labelledby": "play-heading",
      "data-turn": acting ?? "",
      "data-seats": seats.length,
    },
    el("h2", {
      id: "play-heading",
      text: t("position.play_heading", { ruleset: t(`ruleset.${ctx.ruleset.name}`) }),
    }),
    factsLine(ctx, view),
    trickNow(ctx, view, run.stopped ? run.renuncio : null),
    verdict,
    acting === null
      ? el("p", {
          class: "deal-over",
          text: t(run.stopped ? "position.stopped_short" : "play.over"),
        })
      : el("p", { class: "turn-line", text: t("play.turn", { name: seatName(ctx, acting) }) }),
    acting === null ? null : seatPanel(ctx, run, acting, handlers.onMove, open),
    el(
      "div",
      { class: "play-controls" },
      undo,
      button(
        { class: "secondary", "data-action": "cards" },
        t("position.edit"),
        handlers.onEditCards,
      ),
    ),
    el(
      "div",
      { class: "seats" },
      ...seats
        .filter((seat) => seat !== acting)
        .map((seat) => seatPanel(ctx, run, seat, handlers.onMove, open)),
    ),
    rulingFromPosition(ctx, run),
  );
}
