// The ruling of a log, drawn from the service's answer (POST /v1/replays with "steps": true):
// the verdict first — one sentence per deal that has one, each a link to its trick — then the
// match standing and every deal, trick by trick. The words are rulingtext.js's (everything judged
// is read from the answer and its steps); this module puts them on the page.

import { cardElement, unknownCard } from "./cards.js";
import { el } from "./dom.js";
import {
  canteNote,
  dealLine,
  describeEvent,
  eventTricks,
  groups,
  illegalSentence,
  incidents,
  logEvents,
  matchGoal,
  moveText,
  optionsText,
  renuncioHeading,
  rulingContext,
  runningTotals,
  seatName,
  seatNames,
  seatsHoldingUnknown,
  tableDetails,
  totalsAfterTrick,
  totalsText,
  trumpText,
  verdictSentence,
} from "./rulingtext.js";
import { DATA, counted, currentLang, t, words } from "./words.js";

/** The context of one answer (rulingtext.js's rulingContext) with the page's data and words. */
export const contextOf = (log, answer) => rulingContext(DATA, words, log, answer);

const card = (ctx, code) => cardElement(code, ctx.deck);

/** Points per seat added up by side (in pairs) or seat: "ana + carlos 35 · bea + dani 12". */
export function scoreLine(ctx, deal, perSeat, className) {
  const totals = runningTotals(ctx, deal, perSeat);
  return el(
    "p",
    { class: className, "data-running": totals.map((g) => g.total).join(",") },
    el("span", { class: "label", text: `${t("trick.running")}: ` }),
    totalsText(ctx, totals),
  );
}

// --- the verdict first ------------------------------------------------------------------------

/** The top of the ruling: one sentence per deal that has a verdict, each a link to it. */
function renderSummary(ctx, placeHref, onOpen) {
  const lines = [];
  ctx.answer.deals.forEach((deal, index) => {
    const { violations, illegal } = incidents(ctx, index);
    if (!violations.length && !illegal) return;
    const links = violations.map((v) => {
      const link = summaryLink(
        ctx,
        index,
        v.trick,
        verdictSentence(ctx, index, v),
        placeHref,
        onOpen,
      );
      const doubt = doubtTag(ctx, index, v.seat);
      return doubt ? el("span", {}, link, " ", doubt) : link;
    });
    if (illegal) {
      links.push(summaryLink(ctx, index, null, illegalSentence(ctx, illegal), placeHref, onOpen));
    }
    lines.push(
      el(
        "li",
        { class: "verdict-line" },
        ...links.flatMap((link, i) => (i ? [" ", link] : [link])),
      ),
    );
  });
  const late = ctx.answer.illegal;
  if (late && late.deal >= ctx.answer.deals.length) {
    lines.push(
      el(
        "li",
        { class: "verdict-line" },
        summaryLink(ctx, late.deal, null, illegalSentence(ctx, late), placeHref, onOpen),
      ),
    );
  }
  const renuncios = ctx.answer.deals.reduce((sum, deal) => sum + deal.violations.length, 0);
  const count = el(
    "p",
    { class: "count" },
    counted("ruling.deals", ctx.answer.deals.length),
    " · ",
    renuncios ? counted("ruling.renuncios", renuncios) : t("ruling.no_renuncio"),
  );
  return el(
    "section",
    { class: "summary", "aria-labelledby": "summary-heading" },
    el("h3", { id: "summary-heading", text: t("summary.heading") }),
    count,
    lines.length
      ? el("ul", { class: "verdicts" }, ...lines)
      : el("p", { class: "clean", text: t("summary.clean") }),
  );
}

/** "(it depends on ana's unknown cards)", when the seat held a card the log marks as unknown:
 *  the ruling never states as fact what rests on a card nobody knew. */
function doubtTag(ctx, index, seat) {
  if (!ctx.unknownSeats?.[index]?.has(seat)) return null;
  return el("em", {
    class: "doubt",
    "data-doubt": seat,
    text: `(${t("unknown.verdict_doubt", { name: seatName(ctx, seat) })})`,
  });
}

function summaryLink(ctx, deal, trick, text, placeHref, onOpen) {
  const place = { deal: deal + 1, trick: trick === null ? null : trick + 1 };
  const link = el("a", {
    href: placeHref(place),
    class: trick === null ? "illegal-link" : "renuncio-link",
    "data-summary-deal": deal,
    "data-summary-trick": trick === null ? null : trick,
    text,
  });
  link.addEventListener("click", (event) => {
    event.preventDefault();
    onOpen(place);
  });
  return link;
}

// --- the match and what comes next -------------------------------------------------------------

function renderHead(ctx) {
  const { log, answer } = ctx;
  const options = optionsText(ctx);
  return el(
    "header",
    { class: "ruling-head" },
    el("h2", {}, `${t(`ruleset.${log.ruleset}`)} `, el("code", { text: log.ruleset })),
    el("p", {
      class: `status status-${answer.status}`,
      "data-status": answer.status,
      text: t(`status.${answer.status}`),
    }),
    el(
      "p",
      { class: "players" },
      el("strong", { text: `${t("ruling.players")}: ` }),
      ctx.names.join(", "),
    ),
    el("p", { class: "options" }, el("strong", { text: `${t("ruling.options")}: ` }), options),
    renderDetails(ctx),
    // on paper the ruling is signed: a line for it (printed only)
    el("p", { class: "signature", text: `${t("details.signature")}: ` }),
  );
}

/** The table's details the log gives (event, round, table, date, referee), or nothing. */
function renderDetails(ctx) {
  const details = tableDetails(ctx.log);
  if (!details.length) return null;
  return el(
    "dl",
    { class: "details" },
    ...details.flatMap(([name, text]) => [
      el("dt", { text: t(`details.${name}`) }),
      el("dd", { "data-detail": name, text }),
    ]),
  );
}

function renderMatch(ctx) {
  const { match } = ctx.answer;
  const { counter } = ctx.ruleset.match;
  const goal = matchGoal(ctx);
  const bySeat = new Map(match.standings.map((s) => [s.seat, s]));
  const rows = groups(ctx, null).map((seats) => {
    const standing = bySeat.get(seats[0]);
    let result = "";
    if (match.over && seats.every((s) => match.winners.includes(s))) result = "winner";
    if (match.over && seats.every((s) => match.losers.includes(s))) result = "loser";
    return el(
      "tr",
      { "data-seats": seats.join(",") },
      el("th", { scope: "row", text: seatNames(ctx, seats) }),
      el("td", { class: "num", "data-counter": counter, text: standing ? standing[counter] : "" }),
      el("td", { class: `result ${result}`, text: result ? t(`match.${result}`) : "" }),
    );
  });
  return el(
    "section",
    { class: "match", "aria-labelledby": "match-heading" },
    el("h3", { id: "match-heading", text: t("match.heading") }),
    el(
      "table",
      { class: "standing" },
      el("caption", { text: goal === undefined ? "" : t("match.target", { count: goal }) }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {
            scope: "col",
            text: ctx.ruleset.pairs ? t("scores.side") : t("scores.player"),
          }),
          el("th", { scope: "col", text: t(`match.counter.${counter}`) }),
          el("th", { scope: "col", text: t("match.result") }),
        ),
      ),
      el("tbody", {}, ...rows),
    ),
    el("p", {
      class: "match-state",
      "data-over": match.over ? "true" : "false",
      text: match.over ? t("match.over") : t("match.not_over"),
    }),
  );
}

function moveElement(ctx, move) {
  if (move.type === "play") return card(ctx, move.card);
  return el("span", { class: "move", text: moveText(ctx, move) });
}

function renderNext(ctx) {
  const { next } = ctx.answer;
  return el(
    "section",
    { class: "next" },
    el("h3", { text: t("next.heading", { name: next.player }) }),
    el(
      "p",
      { class: "moves" },
      el("span", { class: "label", text: `${t("next.moves")}: ` }),
      ...next.legal_moves.map((move) => moveElement(ctx, move)),
    ),
  );
}

// --- a deal -----------------------------------------------------------------------------------

function renderDeal(ctx, deal, index, stepToggle) {
  const { violations, illegal } = incidents(ctx, index);
  const quiet = !violations.length && !illegal;
  const bodyId = `deal-${index + 1}-body`;
  const article = el("article", {
    class: `deal${quiet ? " folded" : ""}`,
    "data-deal": index,
    id: `deal-${index + 1}`,
    tabindex: "-1",
  });
  const fold = el(
    "button",
    {
      type: "button",
      class: "fold",
      "aria-expanded": quiet ? "false" : "true",
      "aria-controls": bodyId,
    },
    el("span", { class: "fold-mark", "aria-hidden": "true" }),
    el("span", { class: "fold-title", text: t("deal.heading", { number: index + 1 }) }),
    el("span", { class: "fold-line", text: dealLine(ctx, deal) }),
  );
  fold.addEventListener("click", () =>
    setFolded(article, article.classList.contains("folded") ? false : true),
  );
  const unknown = ctx.log.deals[index]?.unknown;
  const body = el(
    "div",
    { class: "deal-body", id: bodyId },
    el("div", { class: "deal-head" }, renderDealFacts(ctx, deal), stepToggle(deal, index)),
    Array.isArray(unknown) && unknown.length
      ? el("p", {
          class: "doubt unknown-note",
          "data-unknown-note": index,
          text: counted("unknown.deal_note", unknown.length),
        })
      : null,
    el("section", { class: "stepper", hidden: true, "aria-label": t("step.heading") }),
    renderTricks(ctx, deal, index),
  );
  if (illegal) body.append(renderIllegal(ctx, illegal));
  body.append(renderScores(ctx, deal), renderOutcome(ctx, deal));
  article.append(el("h3", { class: "deal-title" }, fold), body);
  return article;
}

export function setFolded(article, folded) {
  article.classList.toggle("folded", folded);
  article.querySelector(".fold").setAttribute("aria-expanded", folded ? "false" : "true");
}

function renderDealFacts(ctx, deal) {
  const facts = el("dl", { class: "facts" });
  const fact = (label, ...value) =>
    facts.append(el("div", {}, el("dt", { text: label }), el("dd", {}, ...value)));
  fact(t("deal.dealer"), seatName(ctx, deal.dealer));
  fact(t("deal.mano"), seatName(ctx, deal.mano));
  const turned = ctx.ruleset.trump_from === "call" ? null : deal.steps[0].turned;
  const label = ctx.ruleset.trump_from === "stock" ? t("deal.turned") : t("deal.dealer_card");
  fact(
    t("deal.trump"),
    el("span", { class: "trump-suit", text: trumpText(ctx, deal) }),
    turned ? el("span", { class: "turned" }, ` — ${label} `, card(ctx, turned)) : null,
  );
  if (ctx.ruleset.stock && deal.stock_left !== undefined) {
    fact(t("deal.stock_left"), String(deal.stock_left));
  }
  return facts;
}

function renderTricks(ctx, deal, index) {
  const list = el("ol", { class: "tricks" });
  const events = logEvents(ctx, index);
  const where = eventTricks(deal);
  const before = deal.tricks.map(() => []);
  const after = deal.tricks.map(() => []);
  const trailing = [];
  let exchange = 0;
  where.forEach((trick, k) => {
    const event = events[k];
    if (event.type === "exchange" && deal.exchanges[exchange]) {
      const x = deal.exchanges[exchange++];
      const note = el(
        "p",
        { class: "note exchange" },
        t("note.exchange", {
          name: seatName(ctx, x.seat),
          gave: ctx.deck.name(x.gave),
          took: ctx.deck.name(x.took),
        }),
        " ",
        card(ctx, x.gave),
        " ⇄ ",
        card(ctx, x.took),
      );
      (before[trick] ?? trailing).push(note);
    } else if (event.type === "tute") {
      (after[trick - 1] ?? trailing).push(
        el("p", { class: "note tute", text: describeEvent(ctx, event) }),
      );
    }
  });
  for (const cante of deal.cantes) {
    (after[cante.trick] ?? trailing).push(
      el("p", { class: "note cante", text: canteNote(ctx, deal, cante) }),
    );
  }
  deal.tricks.forEach((trick, j) => {
    list.append(renderTrick(ctx, deal, index, trick, j, before[j], after[j]));
  });
  if (trailing.length) list.append(el("li", { class: "trailing" }, ...trailing));
  return list;
}

function renderTrick(ctx, deal, index, trick, j, before, after) {
  const violations = deal.violations.filter((v) => v.trick === j);
  const item = el("li", {
    class: "trick",
    "data-trick": j,
    id: `deal-${index + 1}-trick-${j + 1}`,
    tabindex: "-1",
  });
  if (violations.length) item.classList.add("has-renuncio");
  if (trick.winner === null) item.classList.add("in-play");
  item.append(
    el("h4", { class: "trick-no", text: t("trick.heading", { number: j + 1 }) }),
    ...before,
  );
  const plays = el("div", { class: "plays" });
  for (const play of trick.plays) {
    const offence = violations.find((v) => v.seat === play.seat && v.card === play.card);
    const figure = el("figure", { class: "play", "data-seat": play.seat });
    const badges = el("span", { class: "badges" });
    if (play.seat === trick.leader) {
      figure.classList.add("lead");
      badges.append(el("span", { class: "badge lead", text: t("trick.lead") }));
    }
    if (play.seat === trick.winner) {
      figure.classList.add("win");
      badges.append(el("span", { class: "badge win", text: t("trick.wins") }));
    }
    if (offence) {
      figure.classList.add("offending");
      badges.append(el("span", { class: "badge renuncio", text: t("trick.renuncio") }));
    }
    figure.append(
      card(ctx, play.card),
      el("figcaption", {}, el("span", { class: "who", text: seatName(ctx, play.seat) }), badges),
    );
    plays.append(figure);
  }
  const points =
    trick.points === null ? t("trick.in_play") : t("trick.points", { points: trick.points });
  item.append(plays, el("p", { class: "points", text: points }));
  if (trick.draws.length) {
    item.append(
      el(
        "p",
        { class: "draws" },
        el("span", { class: "label", text: `${t("trick.draws")}: ` }),
        ...trick.draws.map((draw) =>
          el(
            "span",
            { class: "draw" },
            t("trick.draw", { name: seatName(ctx, draw.seat) }),
            " ",
            card(ctx, draw.card),
          ),
        ),
      ),
    );
  }
  item.append(...after);
  for (const violation of violations) {
    item.append(renderViolation(ctx, violation, doubtTag(ctx, index, violation.seat)));
  }
  item.append(scoreLine(ctx, deal, totalsAfterTrick(deal, j), "running"));
  return item;
}

/** A renuncio as the referee explains it — `found` is a violation of a deal or the verdict on
 *  a move (both have obligation, message, correct) — with the cards that were correct; a card
 *  in `hidden` (one the editor only filled in) is shown face down. */
export function renuncioParts(found, deck, headClass, hidden = new Set()) {
  return [
    el(
      "p",
      { class: headClass },
      el("strong", { text: renuncioHeading(deck.words, found.obligation) }),
    ),
    el("p", { class: "message", text: found.message }),
    el(
      "p",
      { class: "correct" },
      el("span", { class: "label", text: `${t("violation.correct")}: ` }),
      ...found.correct.map((code) => {
        const shown = hidden.has(code)
          ? unknownCard(t("play.unknown_card"))
          : cardElement(code, deck);
        shown.classList.add("correct");
        return shown;
      }),
    ),
  ];
}

function renderViolation(ctx, violation, doubt = null) {
  const parts = renuncioParts(violation, ctx.deck, "violation-head");
  if (doubt) parts[0].append(" ", doubt);
  parts[2].append(
    " ",
    el("a", {
      href: DATA.rules[currentLang()].obligations,
      class: "rule-link",
      // on paper a link leads nowhere: the print writes out where the rule is
      "data-url": new URL(DATA.rules[currentLang()].obligations, location.href).href,
      text: t("violation.rule"),
    }),
  );
  return el(
    "div",
    { class: "violation", "data-violation": violation.obligation, role: "note" },
    ...parts,
  );
}

function renderIllegal(ctx, illegal) {
  const events = logEvents(ctx, illegal.deal);
  const event = illegal.event === null ? null : events[illegal.event];
  const shown = event && event.type === "play" ? card(ctx, ctx.deck.canon(event.card)) : null;
  return el(
    "div",
    { class: "illegal", "data-illegal": illegal.code, role: "alert" },
    el("p", {}, el("strong", { text: t("illegal.heading") })),
    illegal.event === null
      ? null
      : el(
          "p",
          { class: "where" },
          t("illegal.where", { event: illegal.event + 1 }),
          " ",
          el("span", { class: "event", text: describeEvent(ctx, event) }),
          " ",
          shown,
        ),
    el("p", { class: "message", text: illegal.message }),
  );
}

function renderScores(ctx, deal) {
  const columns = ["tricks", "card_points", "cantes", "last_trick", "total"];
  const table = el(
    "table",
    { class: "scores" },
    el("caption", { text: t("scores.heading") }),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: t("scores.player") }),
        ...columns.map((c) => el("th", { scope: "col", class: "num", text: t(`scores.${c}`) })),
      ),
    ),
    el(
      "tbody",
      {},
      ...deal.scores.map((score) =>
        el(
          "tr",
          { "data-seat": score.seat },
          el("th", { scope: "row", text: seatName(ctx, score.seat) }),
          ...columns.map((c) => el("td", { class: "num", "data-column": c, text: score[c] })),
        ),
      ),
    ),
  );
  if (Array.isArray(deal.sides)) {
    table.append(
      el(
        "tfoot",
        {},
        ...deal.sides.map((side) =>
          el(
            "tr",
            { "data-side": side.seats.join(",") },
            el("th", { scope: "row", text: `${t("scores.side")}: ${seatNames(ctx, side.seats)}` }),
            el("td", { colspan: columns.length - 1 }),
            el("td", { class: "num", "data-column": "total", text: side.total }),
          ),
        ),
      ),
    );
  }
  return table;
}

/** How the deal was decided: the reason in words, marked as a renuncio when it was one. */
export function renderOutcome(ctx, deal) {
  const { outcome } = deal;
  if (!outcome) return el("p", { class: "unfinished", text: t("deal.unfinished") });
  const list = (label, seats) =>
    seats.length
      ? el(
          "p",
          { class: "seats" },
          el("span", { class: "label", text: `${label}: ` }),
          seats.map((s) => seatName(ctx, s)).join(", "),
        )
      : null;
  const byRenuncio = outcome.reason === "renuncio";
  return el(
    "div",
    { class: `outcome${byRenuncio ? " by-renuncio" : ""}`, "data-outcome": outcome.reason },
    el(
      "p",
      {},
      el("strong", { text: `${t("outcome.heading")}: ` }),
      el("span", {
        class: `reason${byRenuncio ? " badge renuncio" : ""}`,
        text: t(`reason.${outcome.reason}`),
      }),
    ),
    el("p", { class: "message", text: outcome.message }),
    list(t("outcome.winners"), outcome.winners),
    list(t("outcome.losers"), outcome.losers),
  );
}

// --- the whole ruling ---------------------------------------------------------------------------

/**
 * The ruling of `ctx` as a list of elements. `placeHref({deal, trick})` is the link of a place;
 * `onOpen(place)` opens it; `stepToggle(deal, index)` is the button that opens a deal's steps.
 */
export function renderRuling(ctx, { placeHref, onOpen, stepToggle }) {
  ctx.unknownSeats = ctx.answer.deals.map((_, index) => seatsHoldingUnknown(ctx, index));
  const parts = [renderHead(ctx), renderSummary(ctx, placeHref, onOpen), renderMatch(ctx)];
  if (ctx.answer.next) parts.push(renderNext(ctx));
  ctx.answer.deals.forEach((deal, index) => parts.push(renderDeal(ctx, deal, index, stepToggle)));
  const late = ctx.answer.illegal;
  if (late && late.deal >= ctx.answer.deals.length) parts.push(renderIllegal(ctx, late));
  return parts;
}
