// The play of a deal started from the disputed trick (positionrun.js), drawn: the trick on the
// table, every hand round it (the seat to act marked, its declarations as buttons), the verdict
// on the last move, the ruling move by move — the tricks played from the position, a renuncio
// red on its trick, how the deal ended — and, always beside it, what a ruling from a position
// cannot know (docs/api.md): the history it was not given, the cards of the tricks given by
// their points alone among it. The same classes as the deal's table (table.js), so the same
// layouts apply: one column on a phone, the hands round the trick on a wide screen.

import { cardButton, cardElement } from "./cards.js";
import { button, el } from "./dom.js";
import { unseenCards } from "./positionentry.js";
import {
  actionLabel,
  dealLine,
  describeEvent,
  renuncioHeading,
  seatName,
  seatNames,
} from "./rulingtext.js";
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

/** The tricks of `position` given without their cards (who won each and the points only). */
const unknownTricks = (position) => (position?.tricks ?? []).filter((t) => !t.plays.length);

/** What the ruling from `position` (as given) cannot know, as list items: with tricks given by
 *  their points, which they were and the cards not seen (each drawn), and the points given. */
function cannotKnow(ctx, position) {
  const unknown = unknownTricks(position);
  if (!unknown.length) return CANNOT_KNOW.map((key) => el("li", { text: t(key) }));
  const unseen = unseenCards(ctx.pack, position);
  const fields = { tricks: unknown.length, cards: unseen.length };

  const points = (position.card_points ?? [])
    .map((value, seat) => `${seatName(ctx, seat)} ${value}`)
    .join(" · ");
  return [
    el(
      "li",
      { "data-unknown": "cards" },
      position.stock_left
        ? words.counted("position.unknown.cards_stock", unknown.length, fields)
        : words.counted("position.unknown.cards", unknown.length, fields),
      el(
        "span",
        { class: "unseen", "data-unseen": unseen.length },
        ...unseen.map((code) => cardElement(code, ctx.deck)),
      ),
    ),
    el("li", { "data-unknown": "points" }, t("position.unknown.points_given")),
    points
      ? el("li", { "data-unknown": "points-given" }, t("position.unknown.points", { points }))
      : null,
    ...CANNOT_KNOW.slice(1).map((name) => el("li", { text: t(name) })),
  ];
}

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
  if (view.turn !== null) parts.push(el("span", { text: t("play.trick_no", { number }) }));
  return el(
    "p",
    { class: "play-facts" },
    ...parts.flatMap((part, i) => (i ? [" · ", part] : [part])),
  );
}

/** Whether `play` of trick `number` is one of `renuncios` (the referee's records). */
const isRenuncio = (renuncios, number, play) =>
  renuncios.some((r) => r.trick === number && r.seat === play.seat && r.card === play.card);

/** A play, its card and who played it; a renuncio marked (red, and said in its caption). */
function playFigure(ctx, play, offending) {
  return el(
    "figure",
    { class: `play${offending ? " offending" : ""}`, "data-seat": play.seat },
    cardElement(play.card, ctx.deck),
    el(
      "figcaption",
      {},
      seatName(ctx, play.seat),
      offending ? el("span", { class: "badge renuncio", text: ` ${t("reason.renuncio")}` }) : null,
    ),
  );
}

/** The trick on the table; a renuncio played to it is marked. A renuncio after which the
 *  referee gave no position is drawn on it too (the table as it was, plus that card). */
function trickNow(ctx, run) {
  const { view } = run;
  const stopped = run.stopped ? run.renuncio : null;
  const plays = stopped ? [...view.trick.plays, stopped.move] : view.trick.plays;
  const renuncios = run.renuncios();
  const number = view.trick.number ?? view.tricks.length;
  return el(
    "section",
    { class: "table-now", "aria-label": t("step.table") },
    el("h3", { text: t("step.table") }),
    el(
      "div",
      { class: "plays" },
      ...plays.map((play) =>
        playFigure(ctx, play, stopped?.move === play || isRenuncio(renuncios, number, play)),
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

/** The tricks completed from the position given, each with its cards and winner, a renuncio
 *  red on its trick. */
function tricksFromHere(ctx, run) {
  const from = run.start?.tricks?.length ?? 0;
  const done = (run.view.tricks ?? []).slice(from);
  if (!done.length) return null;
  const renuncios = run.renuncios();
  const list = el(
    "ul",
    { class: "tricks-from-here", id: "position-tricks-played" },
    ...done.map((trick, i) => {
      const number = from + i;
      const red = trick.plays.some((play) => isRenuncio(renuncios, number, play));
      return el(
        "li",
        { class: `trick-row${red ? " renuncio-trick" : ""}`, "data-trick": number },
        el("span", {
          class: "trick-line",
          text: t("position.trick_line", {
            number: number + 1,
            name: seatName(ctx, trick.winner),
          }),
        }),
        el(
          "div",
          { class: "plays" },
          ...trick.plays.map((play) => playFigure(ctx, play, isRenuncio(renuncios, number, play))),
        ),
      );
    }),
  );
  return [el("h3", { id: "position-tricks-heading", text: t("position.tricks_played") }), list];
}

/** How the deal ended (the position's outcome), and the renuncio that decided it, named. */
function endOfDeal(ctx, run) {
  const { view } = run;
  if (!view.outcome) return null;
  const lines = [el("p", { text: t("position.outcome", { line: dealLine(ctx, view) }) })];
  const { decided } = view;
  if (decided?.kind === "renuncio") {
    const renuncios = view.renuncios ?? [];
    const first = renuncios.find((r) => r.event === decided.event) ?? renuncios[0];
    const { losers, reason } = view.outcome;
    const consequence =
      reason === "renuncio"
        ? words.counted("summary.lose", losers.length, { names: seatNames(ctx, losers) })
        : t("summary.decided_by", { reason: t(`reason.${reason}`) });
    if (first) {
      lines.push(
        el(
          "p",
          { class: "decided-by-renuncio", "data-outcome": "renuncio" },
          el("strong", { text: `${renuncioHeading(words, first.obligation)}: ` }),
          t("position.decided", {
            name: seatName(ctx, first.seat),
            trick: first.trick + 1,
            failed: t(`failed.${first.obligation}`),
            consequence,
          }),
        ),
      );
    }
  }
  const byRenuncio = view.outcome.reason === "renuncio";
  return el(
    "div",
    { class: `outcome${byRenuncio ? " by-renuncio" : ""}`, id: "position-outcome" },
    ...lines,
  );
}

/** The ruling from the position: each move made with the referee's verdict, the tricks played
 *  from it, how the deal ended, then what the ruling cannot know. */
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
    run.renuncios().length && run.view.turn !== null
      ? el("p", { class: "notice", id: "position-goes-on", text: t("position.after_renuncio") })
      : null,
    ...(tricksFromHere(ctx, run) ?? []),
    endOfDeal(ctx, run),
    el("h3", { id: "position-unknown-heading", text: t("position.unknown.heading") }),
    el("ul", { class: "cannot-know", id: "position-unknown" }, ...cannotKnow(ctx, run.start)),
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
    trickNow(ctx, run),
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
