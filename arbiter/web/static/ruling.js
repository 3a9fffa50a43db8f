// The ruling of a log, drawn from the service's answer (POST /v1/replays with "steps": true):
// the verdict first — one sentence per deal that has one, each a link to its trick — then the
// match standing and every deal, trick by trick. Everything judged here (tricks, winners,
// points, renuncios, outcomes, the running score, the match) is read from the answer and its
// steps; the log itself only gives the events' order and kinds, to say what happened when.

import { cardElement, Deck, unknownCard } from "./cards.js";
import { el } from "./dom.js";
import { DATA, counted, currentLang, t } from "./words.js";

// --- the context of one answer ----------------------------------------------------------------

/** What every part of the ruling reads: the log, the answer, its ruleset and its cards. */
export function rulingContext(log, answer) {
  return {
    log,
    answer,
    ruleset: DATA.rulesets[log.ruleset],
    deck: new Deck(log.notation),
    names: answer.match.standings.map((s) => s.player),
  };
}

export const seatName = (ctx, seat) => ctx.names[seat] ?? `#${seat}`;
export const seatNames = (ctx, seats) => seats.map((s) => seatName(ctx, s)).join(" + ");
const card = (ctx, code) => cardElement(code, ctx.deck);

/** Seats grouped as the answer scores them: the sides in pairs, else one seat each. */
export function groups(ctx, deal) {
  if (deal && Array.isArray(deal.sides)) return deal.sides.map((side) => side.seats);
  const first = ctx.answer.deals[0];
  if (ctx.ruleset.pairs && first && first.sides) return first.sides.map((side) => side.seats);
  return ctx.names.map((_, seat) => [seat]);
}

export function logEvents(ctx, index) {
  const deal = ctx.log.deals[index];
  return deal && typeof deal === "object" && Array.isArray(deal.events) ? deal.events : [];
}

export function describeEvent(ctx, event) {
  if (!event || typeof event !== "object") return String(event);
  const name = seatName(ctx, event.seat);
  switch (event.type) {
    case "play": return t("step.play", { name, card: ctx.deck.name(ctx.deck.canon(event.card)) });
    case "sing": return t("step.sing", { name, suit: ctx.deck.suitName(event.suit) });
    case "exchange": return t("step.exchange", { name });
    case "tute": return t("step.tute", { name, of: t(`of.${event.of}`) });
    default: return JSON.stringify(event);
  }
}

/** Points per seat added up by side (in pairs) or seat: "ana + carlos 35 · bea + dani 12". */
export function scoreLine(ctx, deal, perSeat, className) {
  const totals = groups(ctx, deal).map((seats) => ({ seats, total: seats.reduce((sum, s) => sum + perSeat[s], 0) }));
  return el("p", { class: className, "data-running": totals.map((g) => g.total).join(",") },
    el("span", { class: "label", text: `${t("trick.running")}: ` }),
    totals.map((g) => `${seatNames(ctx, g.seats)} ${g.total}`).join(" · "));
}

/** The trick each applied event of a deal belongs to: its step's count of completed tricks. */
function eventTricks(deal) {
  return deal.steps.slice(0, -1).map((step) => step.trick.number);
}

/** The totals the table shows once trick `j` is over, with any cante sung right after it
 *  (the last step before the next trick's first card); for the trick in play, the last step. */
function totalsAfterTrick(deal, j) {
  let totals = deal.steps[0].totals;
  for (const step of deal.steps) {
    const { number, plays } = step.trick;
    if (number > j + 1 || (number === j + 1 && plays.length)) break;
    totals = step.totals;
  }
  return totals;
}

// --- the verdict first ------------------------------------------------------------------------

/** Where a deal's incidents are: its renuncios and its illegal event. */
function incidents(ctx, index) {
  const deal = ctx.answer.deals[index];
  const illegal = ctx.answer.illegal && ctx.answer.illegal.deal === index ? ctx.answer.illegal : null;
  return { violations: deal ? deal.violations : [], illegal };
}

function verdictSentence(ctx, index, violation) {
  const deal = ctx.answer.deals[index];
  const fields = {
    deal: index + 1,
    name: seatName(ctx, violation.seat),
    trick: violation.trick + 1,
    failed: t(`failed.${violation.obligation}`),
  };
  const first = deal.violations[0] === violation;
  let consequence = "";
  if (!first) consequence = "";
  else if (!deal.outcome) consequence = t("summary.unfinished");
  else if (deal.outcome.reason === "renuncio") {
    consequence = counted("summary.lose", deal.outcome.losers.length, { names: seatNames(ctx, deal.outcome.losers) });
  } else consequence = t("summary.decided_by", { reason: t(`reason.${deal.outcome.reason}`) });
  const text = t(first ? "summary.renuncio" : "summary.renuncio_more", fields);
  return consequence ? `${text}; ${consequence}` : text;
}

/** The top of the ruling: one sentence per deal that has a verdict, each a link to it. */
function renderSummary(ctx, placeHref, onOpen) {
  const lines = [];
  ctx.answer.deals.forEach((deal, index) => {
    const { violations, illegal } = incidents(ctx, index);
    if (!violations.length && !illegal) return;
    const links = violations.map((v) => summaryLink(ctx, index, v.trick, verdictSentence(ctx, index, v), placeHref, onOpen));
    if (illegal) links.push(summaryLink(ctx, index, null, illegalSentence(ctx, illegal), placeHref, onOpen));
    lines.push(el("li", { class: "verdict-line" }, ...links.flatMap((link, i) => (i ? [" ", link] : [link]))));
  });
  const late = ctx.answer.illegal;
  if (late && late.deal >= ctx.answer.deals.length) {
    lines.push(el("li", { class: "verdict-line" }, summaryLink(ctx, late.deal, null, illegalSentence(ctx, late), placeHref, onOpen)));
  }
  const renuncios = ctx.answer.deals.reduce((sum, deal) => sum + deal.violations.length, 0);
  const count = el("p", { class: "count" }, counted("ruling.deals", ctx.answer.deals.length), " · ",
    renuncios ? counted("ruling.renuncios", renuncios) : t("ruling.no_renuncio"));
  return el("section", { class: "summary", "aria-labelledby": "summary-heading" },
    el("h3", { id: "summary-heading", text: t("summary.heading") }),
    count,
    lines.length ? el("ul", { class: "verdicts" }, ...lines) : el("p", { class: "clean", text: t("summary.clean") }));
}

function illegalSentence(ctx, illegal) {
  const where = illegal.event === null ? t("summary.illegal_deal", { deal: illegal.deal + 1 })
    : t("summary.illegal", { deal: illegal.deal + 1, event: illegal.event + 1 });
  return `${where} — ${illegal.message}`;
}

function summaryLink(ctx, deal, trick, text, placeHref, onOpen) {
  const place = { deal: deal + 1, trick: trick === null ? null : trick + 1 };
  const link = el("a", {
    href: placeHref(place), class: trick === null ? "illegal-link" : "renuncio-link",
    "data-summary-deal": deal, "data-summary-trick": trick === null ? null : trick, text,
  });
  link.addEventListener("click", (event) => {
    event.preventDefault();
    onOpen(place);
  });
  return link;
}

// --- the match and what comes next -------------------------------------------------------------

function renderHead(ctx) {
  const { log, answer, ruleset } = ctx;
  const options = log.options && typeof log.options === "object" && Object.keys(log.options).length
    ? Object.entries(log.options).map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(", ")
    : t("ruling.no_options");
  return el("header", { class: "ruling-head" },
    el("h2", {}, `${ruleset.title} `, el("code", { text: log.ruleset })),
    el("p", { class: `status status-${answer.status}`, "data-status": answer.status, text: t(`status.${answer.status}`) }),
    el("p", { class: "players" }, el("strong", { text: `${t("ruling.players")}: ` }), ctx.names.join(", ")),
    el("p", { class: "options" }, el("strong", { text: `${t("ruling.options")}: ` }), options));
}

function renderMatch(ctx) {
  const { match } = ctx.answer;
  const { counter, target } = ctx.ruleset.match;
  const options = ctx.log.options && typeof ctx.log.options === "object" ? ctx.log.options : {};
  const goal = options[target] ?? ctx.ruleset.options[target]?.default;
  const bySeat = new Map(match.standings.map((s) => [s.seat, s]));
  const rows = groups(ctx, null).map((seats) => {
    const standing = bySeat.get(seats[0]);
    let result = "";
    if (match.over && seats.every((s) => match.winners.includes(s))) result = "winner";
    if (match.over && seats.every((s) => match.losers.includes(s))) result = "loser";
    return el("tr", { "data-seats": seats.join(",") },
      el("th", { scope: "row", text: seatNames(ctx, seats) }),
      el("td", { class: "num", "data-counter": counter, text: standing ? standing[counter] : "" }),
      el("td", { class: `result ${result}`, text: result ? t(`match.${result}`) : "" }));
  });
  return el("section", { class: "match", "aria-labelledby": "match-heading" },
    el("h3", { id: "match-heading", text: t("match.heading") }),
    el("table", { class: "standing" },
      el("caption", { text: goal === undefined ? "" : t("match.target", { count: goal }) }),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: ctx.ruleset.pairs ? t("scores.side") : t("scores.player") }),
        el("th", { scope: "col", text: t(`match.counter.${counter}`) }),
        el("th", { scope: "col", text: t("match.result") }))),
      el("tbody", {}, ...rows)),
    el("p", { class: "match-state", "data-over": match.over ? "true" : "false", text: match.over ? t("match.over") : t("match.not_over") }));
}

export function moveElement(ctx, move) {
  switch (move.type) {
    case "play": return card(ctx, move.card);
    case "sing": return el("span", { class: "move", text: t("move.sing", { suit: ctx.deck.suitName(move.suit) }) });
    case "tute": return el("span", { class: "move", text: t("move.tute", { of: t(`of.${move.of}`) }) });
    default: return el("span", { class: "move", text: t("move.exchange") });
  }
}

function renderNext(ctx) {
  const { next } = ctx.answer;
  return el("section", { class: "next" },
    el("h3", { text: t("next.heading", { name: next.player }) }),
    el("p", { class: "moves" }, el("span", { class: "label", text: `${t("next.moves")}: ` }),
      ...next.legal_moves.map((move) => moveElement(ctx, move))));
}

// --- a deal -----------------------------------------------------------------------------------

function renderDeal(ctx, deal, index, stepToggle) {
  const { violations, illegal } = incidents(ctx, index);
  const quiet = !violations.length && !illegal;
  const bodyId = `deal-${index + 1}-body`;
  const article = el("article", { class: `deal${quiet ? " folded" : ""}`, "data-deal": index, id: `deal-${index + 1}`, tabindex: "-1" });
  const fold = el("button", { type: "button", class: "fold", "aria-expanded": quiet ? "false" : "true", "aria-controls": bodyId },
    el("span", { class: "fold-mark", "aria-hidden": "true" }),
    el("span", { class: "fold-title", text: t("deal.heading", { number: index + 1 }) }),
    el("span", { class: "fold-line", text: dealLine(ctx, deal) }));
  fold.addEventListener("click", () => setFolded(article, article.classList.contains("folded") ? false : true));
  const body = el("div", { class: "deal-body", id: bodyId },
    el("div", { class: "deal-head" }, renderDealFacts(ctx, deal), stepToggle(deal, index)),
    el("section", { class: "stepper", hidden: true, "aria-label": t("step.heading") }),
    renderTricks(ctx, deal, index));
  if (illegal) body.append(renderIllegal(ctx, illegal));
  body.append(renderScores(ctx, deal), renderOutcome(ctx, deal));
  article.append(el("h3", { class: "deal-title" }, fold), body);
  return article;
}

/** One line for a deal: how it ended ("winners: ana · losers: bea (on points)"), or that it
 *  goes on. */
function dealLine(ctx, deal) {
  if (!deal.outcome) return t("deal.line_unfinished");
  const { winners, losers, reason } = deal.outcome;
  const how = t(`reason.${reason}`);
  if (!winners.length) return t("deal.line_nobody", { how });
  const fields = { winners: seatNames(ctx, winners), losers: seatNames(ctx, losers), how };
  return t(losers.length ? "deal.line" : "deal.line_winners", fields);
}

export function setFolded(article, folded) {
  article.classList.toggle("folded", folded);
  article.querySelector(".fold").setAttribute("aria-expanded", folded ? "false" : "true");
}

function renderDealFacts(ctx, deal) {
  const facts = el("dl", { class: "facts" });
  const fact = (label, ...value) => facts.append(el("div", {}, el("dt", { text: label }), el("dd", {}, ...value)));
  fact(t("deal.dealer"), seatName(ctx, deal.dealer));
  fact(t("deal.mano"), seatName(ctx, deal.mano));
  if (ctx.ruleset.trump_from === "call") {
    const first = deal.cantes[0];
    fact(t("deal.trump"), deal.trump && first
      ? `${ctx.deck.suitName(deal.trump)} — ${t("deal.trump_by_call", { trick: first.trick + 1 })}`
      : t(deal.finished ? "deal.no_call" : "deal.no_trump_yet"));
  } else {
    const turned = deal.steps[0].turned;
    const label = ctx.ruleset.trump_from === "stock" ? t("deal.turned") : t("deal.dealer_card");
    fact(t("deal.trump"), el("span", { class: "trump-suit", text: deal.trump ? ctx.deck.suitName(deal.trump) : t("deal.trump_none") }),
      turned ? el("span", { class: "turned" }, ` — ${label} `, card(ctx, turned)) : null);
  }
  if (ctx.ruleset.stock && deal.stock_left !== undefined) fact(t("deal.stock_left"), String(deal.stock_left));
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
      const note = el("p", { class: "note exchange" },
        t("note.exchange", { name: seatName(ctx, x.seat), gave: ctx.deck.name(x.gave), took: ctx.deck.name(x.took) }), " ",
        card(ctx, x.gave), " ⇄ ", card(ctx, x.took));
      (before[trick] ?? trailing).push(note);
    } else if (event.type === "tute") {
      (after[trick - 1] ?? trailing).push(el("p", { class: "note tute", text: describeEvent(ctx, event) }));
    }
  });
  deal.cantes.forEach((cante, i) => {
    const fields = { name: seatName(ctx, cante.seat), points: cante.points, suit: ctx.deck.suitName(cante.suit) };
    let key = "note.cante";
    if (ctx.ruleset.cantes === "in_trick") key = i === 0 ? "note.call_trump" : "note.call";
    (after[cante.trick] ?? trailing).push(el("p", { class: "note cante", text: t(key, fields) }));
  });
  deal.tricks.forEach((trick, j) => {
    list.append(renderTrick(ctx, deal, index, trick, j, before[j], after[j]));
  });
  if (trailing.length) list.append(el("li", { class: "trailing" }, ...trailing));
  return list;
}

function renderTrick(ctx, deal, index, trick, j, before, after) {
  const violations = deal.violations.filter((v) => v.trick === j);
  const item = el("li", { class: "trick", "data-trick": j, id: `deal-${index + 1}-trick-${j + 1}`, tabindex: "-1" });
  if (violations.length) item.classList.add("has-renuncio");
  if (trick.winner === null) item.classList.add("in-play");
  item.append(el("h4", { class: "trick-no", text: t("trick.heading", { number: j + 1 }) }), ...before);
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
    figure.append(card(ctx, play.card), el("figcaption", {}, el("span", { class: "who", text: seatName(ctx, play.seat) }), badges));
    plays.append(figure);
  }
  const points = trick.points === null ? t("trick.in_play") : t("trick.points", { points: trick.points });
  item.append(plays, el("p", { class: "points", text: points }));
  if (trick.draws.length) {
    item.append(el("p", { class: "draws" }, el("span", { class: "label", text: `${t("trick.draws")}: ` }),
      ...trick.draws.map((draw) => el("span", { class: "draw" }, t("trick.draw", { name: seatName(ctx, draw.seat) }), " ", card(ctx, draw.card)))));
  }
  item.append(...after);
  for (const violation of violations) item.append(renderViolation(ctx, violation));
  item.append(scoreLine(ctx, deal, totalsAfterTrick(deal, j), "running"));
  return item;
}

/** "Renuncio (fallar): trump when void". */
export function renuncioHeading(obligation) {
  return t("violation.heading", { obligation, meaning: t(`obligation.${obligation}`) });
}

/** A renuncio as the referee explains it — `found` is a violation of a deal or the verdict on
 *  a move (both have obligation, message, correct) — with the cards that were correct; a card
 *  in `hidden` (one the editor only filled in) is shown face down. */
export function renuncioParts(found, deck, headClass, hidden = new Set()) {
  return [
    el("p", { class: headClass }, el("strong", { text: renuncioHeading(found.obligation) })),
    el("p", { class: "message", text: found.message }),
    el("p", { class: "correct" }, el("span", { class: "label", text: `${t("violation.correct")}: ` }),
      ...found.correct.map((code) => {
        const shown = hidden.has(code) ? unknownCard(t("play.unknown_card")) : cardElement(code, deck);
        shown.classList.add("correct");
        return shown;
      })),
  ];
}

function renderViolation(ctx, violation) {
  const parts = renuncioParts(violation, ctx.deck, "violation-head");
  parts[2].append(" ", el("a", { href: DATA.rules[currentLang()].obligations, text: t("violation.rule") }));
  return el("div", { class: "violation", "data-violation": violation.obligation, role: "note" }, ...parts);
}

function renderIllegal(ctx, illegal) {
  const events = logEvents(ctx, illegal.deal);
  const event = illegal.event === null ? null : events[illegal.event];
  const shown = event && event.type === "play" ? card(ctx, ctx.deck.canon(event.card)) : null;
  return el("div", { class: "illegal", "data-illegal": illegal.code, role: "alert" },
    el("p", {}, el("strong", { text: t("illegal.heading", { code: illegal.code }) })),
    illegal.event === null ? null : el("p", { class: "where" }, t("illegal.where", { event: illegal.event + 1 }), " ",
      el("span", { class: "event", text: describeEvent(ctx, event) }), " ", shown),
    el("p", { class: "message", text: illegal.message }));
}

function renderScores(ctx, deal) {
  const columns = ["tricks", "card_points", "cantes", "last_trick", "total"];
  const table = el("table", { class: "scores" },
    el("caption", { text: t("scores.heading") }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("scores.player") }),
      ...columns.map((c) => el("th", { scope: "col", class: "num", text: t(`scores.${c}`) })))),
    el("tbody", {}, ...deal.scores.map((score) => el("tr", { "data-seat": score.seat },
      el("th", { scope: "row", text: seatName(ctx, score.seat) }),
      ...columns.map((c) => el("td", { class: "num", "data-column": c, text: score[c] }))))));
  if (Array.isArray(deal.sides)) {
    table.append(el("tfoot", {}, ...deal.sides.map((side) => el("tr", { "data-side": side.seats.join(",") },
      el("th", { scope: "row", text: `${t("scores.side")}: ${seatNames(ctx, side.seats)}` }),
      el("td", { colspan: columns.length - 1 }),
      el("td", { class: "num", "data-column": "total", text: side.total })))));
  }
  return table;
}

/** How the deal was decided: the reason in words, marked as a renuncio when it was one. */
export function renderOutcome(ctx, deal) {
  const { outcome } = deal;
  if (!outcome) return el("p", { class: "unfinished", text: t("deal.unfinished") });
  const list = (label, seats) => (seats.length
    ? el("p", { class: "seats" }, el("span", { class: "label", text: `${label}: ` }), seats.map((s) => seatName(ctx, s)).join(", "))
    : null);
  const byRenuncio = outcome.reason === "renuncio";
  return el("div", { class: `outcome${byRenuncio ? " by-renuncio" : ""}`, "data-outcome": outcome.reason },
    el("p", {}, el("strong", { text: `${t("outcome.heading")}: ` }),
      el("span", { class: `reason${byRenuncio ? " badge renuncio" : ""}`, text: t(`reason.${outcome.reason}`) })),
    el("p", { class: "message", text: outcome.message }),
    list(t("outcome.winners"), outcome.winners),
    list(t("outcome.losers"), outcome.losers));
}

// --- the whole ruling ---------------------------------------------------------------------------

/**
 * The ruling of `ctx` as a list of elements. `placeHref({deal, trick})` is the link of a place;
 * `onOpen(place)` opens it; `stepToggle(deal, index)` is the button that opens a deal's steps.
 */
export function renderRuling(ctx, { placeHref, onOpen, stepToggle }) {
  const parts = [renderHead(ctx), renderSummary(ctx, placeHref, onOpen), renderMatch(ctx)];
  if (ctx.answer.next) parts.push(renderNext(ctx));
  ctx.answer.deals.forEach((deal, index) => parts.push(renderDeal(ctx, deal, index, stepToggle)));
  const late = ctx.answer.illegal;
  if (late && late.deal >= ctx.answer.deals.length) parts.push(renderIllegal(ctx, late));
  return parts;
}

/** The place the ruling opens on: the first renuncio, else the illegal event, else none. */
export function firstIncident(ctx) {
  const index = ctx.answer.deals.findIndex((deal) => deal.violations.length);
  if (index >= 0) return { deal: index + 1, trick: ctx.answer.deals[index].violations[0].trick + 1 };
  const { illegal } = ctx.answer;
  return illegal ? { deal: illegal.deal + 1, trick: null } : null;
}
