// The referee's view: open a game log, send it to this service's own /v1/replays, and draw the
// answer as cards. The rules stay on the server: everything judged here (tricks, winners,
// points, renuncios, outcomes, the match) is read from the API's answer. The log itself only
// gives what the answer does not repeat: the cards as dealt and the order of the events, so
// that a deal can be followed step by step with the hands as they were.
//
// Every string from a log or an answer reaches the page through textContent or an attribute,
// never as markup (the page's Content-Security-Policy enforces it with Trusted Types).

import { cardElement } from "./cards.js";

const DATA = JSON.parse(document.getElementById("arbiter-data").textContent);
const RULES_OBLIGATIONS = "docs/rules#3-play-obligations-asistir-montar-fallar-pisar";
const $ = (id) => document.getElementById(id);
const ruling = $("ruling");

const state = {
  lang: document.documentElement.lang === "es" ? "es" : "en",
  text: null, // the log as given (sent as is)
  log: null, // the log, parsed
  answer: null, // the body of /v1/replays
  key: null, // an API key, when the server asks for one (kept in memory only)
  requests: 0,
  renders: 0,
  stepper: null, // the open stepper: {deal, frames, position, root}
};

// --- words ----------------------------------------------------------------------------------

function t(key, fields = {}) {
  const text = DATA.strings[state.lang][key] ?? DATA.strings.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

function applyStaticWords() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) {
    node.setAttribute("aria-label", t(node.dataset.tLabel));
  }
  $("paste").placeholder = t("load.paste_placeholder");
  for (const link of document.querySelectorAll("[data-lang-switch]")) {
    if (link.dataset.langSwitch === state.lang) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  for (const link of document.querySelectorAll("header.site nav a, a.brand")) {
    const url = new URL(link.href);
    if (url.origin === location.origin && url.searchParams.has("lang")) {
      url.searchParams.set("lang", state.lang);
      link.href = url.href;
    }
  }
}

function setLang(lang) {
  if (lang === state.lang || !(lang in DATA.strings)) return;
  state.lang = lang;
  applyStaticWords();
  const url = new URL(location.href);
  url.searchParams.set("lang", lang);
  history.replaceState(null, "", url.href);
  if (state.text !== null) adjudicate();
}

// --- building the DOM -----------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

// --- the log's codes and the players --------------------------------------------------------

function context(log, answer) {
  const notation = log.notation === "french" ? "french" : "spanish";
  const ruleset = DATA.rulesets[log.ruleset];
  const names = answer.match.standings.map((s) => s.player);
  const deck = DATA.cards[notation];
  return {
    log, answer, ruleset, notation, deck, names,
    name: (seat) => names[seat] ?? `#${seat}`,
    names_of: (seats) => seats.map((s) => names[s] ?? `#${s}`).join(" + "),
    card: (code) => cardElement(code, deck, state.lang, notation),
    cardName: (code) => deck.names[state.lang][code] ?? String(code),
    suitName: (letter) => deck.suit_names[state.lang][deck.suits.indexOf(letter)] ?? String(letter),
    canon: (code) => deck.inputs[code] ?? deck.inputs[String(code).toUpperCase()] ?? String(code),
  };
}

/** Seats grouped as the answer scores them: the sides in pairs, else one seat each. */
function groups(ctx, deal) {
  if (deal && Array.isArray(deal.sides)) return deal.sides.map((side) => side.seats);
  if (ctx.ruleset.pairs && ctx.answer.deals.length && ctx.answer.deals[0].sides) {
    return ctx.answer.deals[0].sides.map((side) => side.seats);
  }
  return ctx.names.map((_, seat) => [seat]);
}

function logDeal(ctx, index) {
  const deal = ctx.log.deals[index];
  return deal && typeof deal === "object" ? deal : {};
}

function logEvents(ctx, index) {
  const events = logDeal(ctx, index).events;
  return Array.isArray(events) ? events : [];
}

/** The cards as dealt, from the log: its hands, or its deck dealt one by one from the mano. */
function dealtHands(ctx, deal, index) {
  const given = logDeal(ctx, index);
  const players = ctx.names.length;
  if (Array.isArray(given.hands)) {
    return { hands: given.hands.map((hand) => hand.map(ctx.canon)), stock: (given.stock ?? []).map(ctx.canon) };
  }
  const deck = (given.deck ?? []).map(ctx.canon);
  const size = ctx.ruleset.cards_per_player[String(players)];
  const hands = ctx.names.map(() => []);
  for (let i = 0; i < size * players; i++) hands[(deal.mano + i) % players].push(deck[i]);
  return { hands, stock: ctx.ruleset.stock ? deck.slice(size * players) : [] };
}

/** The card that fixed trump as dealt: turned under the stock, or the dealer's shown card. */
function turnedCard(ctx, index) {
  const given = logDeal(ctx, index);
  if (ctx.ruleset.trump_from === "call") return null;
  if (Array.isArray(given.deck) && given.deck.length) return ctx.canon(given.deck[given.deck.length - 1]);
  if (ctx.ruleset.trump_from === "stock" && Array.isArray(given.stock) && given.stock.length) {
    return ctx.canon(given.stock[given.stock.length - 1]);
  }
  return given.trump_card === undefined ? null : ctx.canon(given.trump_card);
}

function sortCards(ctx, cards) {
  const key = (code) => {
    const face = ctx.deck.faces[code];
    return face ? face[1] * 100 + face[0] : 1000;
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** For each event of a deal, the index of the trick it belongs to (from the answer's tricks). */
function eventTricks(ctx, deal, index) {
  const where = [];
  let trick = 0;
  let played = 0;
  for (const event of logEvents(ctx, index)) {
    where.push(trick);
    if (event && event.type === "play") {
      played += 1;
      const current = deal.tricks[trick];
      if (current && current.winner !== null && played >= current.plays.length) {
        trick += 1;
        played = 0;
      }
    }
  }
  return where;
}

/** How many events of deal `index` the replay applied (it stops at an illegal one). */
function appliedEvents(ctx, index) {
  const illegal = ctx.answer.illegal;
  const count = logEvents(ctx, index).length;
  if (illegal && illegal.deal === index && illegal.event !== null) return Math.min(illegal.event, count);
  return count;
}

function describeEvent(ctx, event) {
  if (!event || typeof event !== "object") return String(event);
  const name = ctx.name(event.seat);
  switch (event.type) {
    case "play": return t("step.play", { name, card: ctx.cardName(ctx.canon(event.card)) });
    case "sing": return t("step.sing", { name, suit: ctx.suitName(String(event.suit).toUpperCase()) });
    case "exchange": return t("step.exchange", { name });
    case "tute": return t("step.tute", { name, of: t(`of.${event.of}`) });
    default: return JSON.stringify(event);
  }
}

// --- the ruling -----------------------------------------------------------------------------

function render() {
  const ctx = context(state.log, state.answer);
  const { answer } = ctx;
  closeStepper();
  const renuncios = answer.deals.reduce((count, deal) => count + deal.violations.length, 0);
  const head = el("header", { class: "ruling-head" },
    el("h2", {}, `${ctx.ruleset.title} `, el("code", { text: ctx.log.ruleset })),
    el("p", { class: `status status-${answer.status}`, "data-status": answer.status, text: t(`status.${answer.status}`) }),
    el("p", { class: "players" }, el("strong", { text: `${t("ruling.players")}: ` }), ctx.names.join(", ")),
    el("p", { class: "options" }, el("strong", { text: `${t("ruling.options")}: ` }),
      ctx.log.options && Object.keys(ctx.log.options).length
        ? Object.entries(ctx.log.options).map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(", ")
        : t("ruling.no_options")),
    el("p", { class: "summary" }, t("ruling.deals", { count: answer.deals.length }), " · ",
      renuncios ? t("ruling.renuncios", { count: renuncios }) : t("ruling.no_renuncio")),
  );
  const parts = [head];
  if (answer.illegal) {
    const where = answer.illegal.event === null ? "–" : answer.illegal.event;
    parts.push(el("p", { class: "invalid-banner", role: "alert" },
      el("a", { href: `#deal-${answer.illegal.deal + 1}`, text: t("ruling.invalid_at", { deal: answer.illegal.deal + 1, event: where }) })));
  }
  parts.push(renderMatch(ctx));
  if (answer.next) parts.push(renderNext(ctx));
  answer.deals.forEach((deal, index) => parts.push(renderDeal(ctx, deal, index)));
  if (answer.illegal && answer.illegal.deal >= answer.deals.length) parts.push(renderIllegal(ctx, answer.illegal));
  ruling.replaceChildren(...parts);
  state.renders += 1;
  ruling.dataset.state = "ready";
  ruling.dataset.render = String(state.renders);
  ruling.dataset.lang = state.lang;
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
      el("th", { scope: "row", text: ctx.names_of(seats) }),
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
        el("th", { scope: "col", text: "" }))),
      el("tbody", {}, ...rows)),
    el("p", { class: "match-state", "data-over": match.over ? "true" : "false", text: match.over ? t("match.over") : t("match.not_over") }));
}

function moveElement(ctx, move) {
  switch (move.type) {
    case "play": return ctx.card(move.card);
    case "sing": return el("span", { class: "move", text: t("move.sing", { suit: ctx.suitName(move.suit) }) });
    case "tute": return el("span", { class: "move", text: t("move.tute", { of: t(`of.${move.of}`) }) });
    default: return el("span", { class: "move", text: t("move.exchange") });
  }
}

function renderNext(ctx) {
  const next = ctx.answer.next;
  return el("section", { class: "next" },
    el("h3", { text: t("next.heading", { name: next.player }) }),
    el("p", { class: "moves" }, el("span", { class: "label", text: `${t("next.moves")}: ` }),
      ...next.legal_moves.map((move) => moveElement(ctx, move))));
}

function renderDeal(ctx, deal, index) {
  const article = el("article", { class: "deal", "data-deal": index, id: `deal-${index + 1}` });
  const toggle = el("button", { type: "button", class: "step-toggle", "aria-expanded": "false", text: t("deal.step") });
  const stepper = el("section", { class: "stepper", hidden: true, "aria-label": t("step.heading") });
  toggle.addEventListener("click", () => toggleStepper(ctx, deal, index, toggle, stepper));
  article.append(
    el("header", { class: "deal-head" },
      el("h3", { text: t("deal.heading", { number: index + 1 }) }),
      renderDealFacts(ctx, deal, index),
      toggle),
    stepper,
    renderTricks(ctx, deal, index));
  const illegal = ctx.answer.illegal;
  if (illegal && illegal.deal === index) article.append(renderIllegal(ctx, illegal));
  article.append(renderScores(ctx, deal), renderOutcome(ctx, deal));
  return article;
}

function renderDealFacts(ctx, deal, index) {
  const facts = el("dl", { class: "facts" });
  const fact = (label, ...value) => facts.append(el("div", {}, el("dt", { text: label }), el("dd", {}, ...value)));
  fact(t("deal.dealer"), ctx.name(deal.dealer));
  fact(t("deal.mano"), ctx.name(deal.mano));
  if (ctx.ruleset.trump_from === "call") {
    const first = deal.cantes[0];
    fact(t("deal.trump"), deal.trump && first
      ? `${ctx.suitName(deal.trump)} — ${t("deal.trump_by_call", { trick: first.trick + 1 })}`
      : t(deal.finished ? "deal.no_call" : "deal.no_trump_yet"));
  } else {
    const turned = turnedCard(ctx, index);
    const label = ctx.ruleset.trump_from === "stock" ? t("deal.turned") : t("deal.dealer_card");
    fact(t("deal.trump"), el("span", { class: "trump-suit", text: deal.trump ? ctx.suitName(deal.trump) : t("deal.trump_none") }),
      turned ? el("span", { class: "turned" }, ` — ${label} `, ctx.card(turned)) : null);
  }
  if (ctx.ruleset.stock && deal.stock_left !== undefined) fact(t("deal.stock_left"), String(deal.stock_left));
  return facts;
}

function renderTricks(ctx, deal, index) {
  const list = el("ol", { class: "tricks" });
  const events = logEvents(ctx, index);
  const where = eventTricks(ctx, deal, index);
  const applied = appliedEvents(ctx, index);
  const before = deal.tricks.map(() => []);
  const after = deal.tricks.map(() => []);
  const trailing = [];
  let exchange = 0;
  for (let k = 0; k < applied; k++) {
    const event = events[k];
    if (!event || typeof event !== "object") continue;
    if (event.type === "exchange" && deal.exchanges[exchange]) {
      const x = deal.exchanges[exchange++];
      const note = el("p", { class: "note exchange" },
        t("note.exchange", { name: ctx.name(x.seat), gave: ctx.cardName(x.gave), took: ctx.cardName(x.took) }), " ",
        ctx.card(x.gave), " ⇄ ", ctx.card(x.took));
      (before[where[k]] ?? trailing).push(note);
    } else if (event.type === "tute") {
      (after[where[k] - 1] ?? trailing).push(el("p", { class: "note tute", text: describeEvent(ctx, event) }));
    }
  }
  deal.cantes.forEach((cante, i) => {
    const fields = { name: ctx.name(cante.seat), points: cante.points, suit: ctx.suitName(cante.suit) };
    let key = "note.cante";
    if (ctx.ruleset.cantes === "in_trick") key = i === 0 ? "note.call_trump" : "note.call";
    (after[cante.trick] ?? trailing).push(el("p", { class: "note cante", text: t(key, fields) }));
  });
  const running = runningScores(ctx, deal);
  deal.tricks.forEach((trick, j) => {
    list.append(renderTrick(ctx, deal, index, trick, j, before[j], after[j], running[j]));
  });
  if (trailing.length) list.append(el("li", { class: "trailing" }, ...trailing));
  return list;
}

/** The score after each trick: points of the tricks won and cantes so far, from the answer
 *  (the last trick's ten, "de últimas", as the answer's scores give it). */
function runningScores(ctx, deal) {
  const totals = ctx.names.map(() => 0);
  const out = [];
  deal.tricks.forEach((trick, j) => {
    if (trick.winner !== null) totals[trick.winner] += trick.points;
    for (const cante of deal.cantes) if (cante.trick === j) totals[cante.seat] += cante.points;
    out.push(totals.slice());
  });
  if (deal.finished && out.length) {
    for (const score of deal.scores) out[out.length - 1][score.seat] += score.last_trick;
  }
  return out;
}

function renderTrick(ctx, deal, index, trick, j, before, after, running) {
  const violations = deal.violations.filter((v) => v.trick === j);
  const item = el("li", { class: "trick", "data-trick": j, id: `deal-${index + 1}-trick-${j + 1}` });
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
      badges.append(el("span", { class: "badge renuncio", text: "renuncio" }));
    }
    figure.append(ctx.card(play.card), el("figcaption", {}, el("span", { class: "who", text: ctx.name(play.seat) }), badges));
    plays.append(figure);
  }
  const points = trick.points === null ? t("trick.in_play") : t("trick.points", { points: trick.points });
  item.append(plays, el("p", { class: "points", text: points }));
  if (trick.draws.length) {
    item.append(el("p", { class: "draws" }, el("span", { class: "label", text: `${t("trick.draws")}: ` }),
      ...trick.draws.map((draw) => el("span", { class: "draw" }, t("trick.draw", { name: ctx.name(draw.seat) }), " ", ctx.card(draw.card)))));
  }
  item.append(...after);
  for (const violation of violations) item.append(renderViolation(ctx, violation));
  if (running) item.append(scoreLine(ctx, deal, running, "running"));
  return item;
}

/** Points per seat added up by side (in pairs) or seat: "ana + carlos 35 · bea + dani 12". */
function scoreLine(ctx, deal, perSeat, className) {
  const totals = groups(ctx, deal).map((seats) => ({ seats, total: seats.reduce((sum, s) => sum + perSeat[s], 0) }));
  return el("p", { class: className, "data-running": totals.map((g) => g.total).join(",") },
    el("span", { class: "label", text: `${t("trick.running")}: ` }),
    totals.map((g) => `${ctx.names_of(g.seats)} ${g.total}`).join(" · "));
}

function renderViolation(ctx, violation) {
  return el("div", { class: "violation", "data-violation": violation.obligation, role: "note" },
    el("p", { class: "violation-head" },
      el("strong", { text: t("violation.heading", { obligation: violation.obligation }) }), " ",
      el("span", { class: "obligation", text: t(`obligation.${violation.obligation}`) })),
    el("p", { class: "message", text: violation.message }),
    el("p", { class: "correct" }, el("span", { class: "label", text: `${t("violation.correct")}: ` }),
      ...violation.correct.map((code) => {
        const card = ctx.card(code);
        card.classList.add("correct");
        return card;
      }),
      " ", el("a", { href: RULES_OBLIGATIONS, text: t("violation.rule") })));
}

function renderIllegal(ctx, illegal) {
  const events = logEvents(ctx, illegal.deal);
  const event = illegal.event === null ? null : events[illegal.event];
  const shown = event && event.type === "play" ? ctx.card(ctx.canon(event.card)) : null;
  return el("div", { class: "illegal", "data-illegal": illegal.code, role: "alert" },
    el("p", {}, el("strong", { text: t("illegal.heading", { code: illegal.code }) })),
    illegal.event === null ? null : el("p", { class: "where" }, t("illegal.where", { event: illegal.event }), " ",
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
      el("th", { scope: "row", text: ctx.name(score.seat) }),
      ...columns.map((c) => el("td", { class: "num", "data-column": c, text: score[c] }))))));
  if (Array.isArray(deal.sides)) {
    table.append(el("tfoot", {}, ...deal.sides.map((side) => el("tr", { "data-side": side.seats.join(",") },
      el("th", { scope: "row", text: `${t("scores.side")}: ${ctx.names_of(side.seats)}` }),
      el("td", { colspan: columns.length - 1 }),
      el("td", { class: "num", "data-column": "total", text: side.total })))));
  }
  return table;
}

function renderOutcome(ctx, deal) {
  const { outcome } = deal;
  if (!outcome) return el("p", { class: "unfinished", text: t("deal.unfinished") });
  const list = (label, seats) => (seats.length
    ? el("p", { class: "seats" }, el("span", { class: "label", text: `${label}: ` }), ctx.names_of(seats).replaceAll(" + ", ", "))
    : null);
  return el("div", { class: "outcome", "data-outcome": outcome.reason },
    el("p", {}, el("strong", { text: `${t("outcome.heading")}: ` }), el("span", { class: "reason", text: t(`reason.${outcome.reason}`) })),
    el("p", { class: "message", text: outcome.message }),
    list(t("outcome.winners"), outcome.winners),
    list(t("outcome.losers"), outcome.losers));
}

// --- step by step ---------------------------------------------------------------------------

/** The position before each event of a deal: hands, table, turned card, stock, score. */
function buildFrames(ctx, deal, index) {
  const { hands: dealt, stock } = dealtHands(ctx, deal, index);
  const hands = dealt.map((hand) => new Set(hand));
  const events = logEvents(ctx, index);
  const applied = appliedEvents(ctx, index);
  const score = ctx.names.map(() => 0);
  const declared = ctx.ruleset.cantes === "declared";
  let turned = turnedCard(ctx, index);
  let stockLeft = stock.length;
  let table = [];
  let trick = 0;
  let sung = 0;
  let exchanged = 0;
  const frame = (done) => ({
    hands: hands.map((hand) => sortCards(ctx, hand)),
    table: done ? done.plays : table.slice(),
    done, turned, stockLeft, score: score.slice(),
  });
  const frames = [frame(null)];
  for (let k = 0; k < applied; k++) {
    const event = events[k] ?? {};
    let done = null;
    if (event.type === "play") {
      const code = ctx.canon(event.card);
      hands[event.seat]?.delete(code);
      table.push({ seat: event.seat, card: code });
      const current = deal.tricks[trick];
      if (current && current.winner !== null && table.length >= current.plays.length) {
        score[current.winner] += current.points;
        if (!declared) for (const c of deal.cantes) if (c.trick === trick) score[c.seat] += c.points;
        for (const draw of current.draws) {
          hands[draw.seat]?.add(draw.card);
          stockLeft -= 1;
        }
        if (deal.finished && trick === deal.tricks.length - 1) {
          for (const s of deal.scores) score[s.seat] += s.last_trick; // the ten "de últimas"
        }
        done = { number: trick + 1, winner: current.winner, points: current.points, plays: current.plays };
        trick += 1;
        table = [];
      }
    } else if (event.type === "sing" && declared && deal.cantes[sung]) {
      const cante = deal.cantes[sung++];
      score[cante.seat] += cante.points;
    } else if (event.type === "exchange" && deal.exchanges[exchanged]) {
      const x = deal.exchanges[exchanged++];
      hands[x.seat]?.delete(x.gave);
      hands[x.seat]?.add(x.took);
      turned = x.gave;
    }
    frames.push(frame(done));
  }
  return frames;
}

function closeStepper() {
  if (!state.stepper) return;
  state.stepper.root.hidden = true;
  state.stepper.root.replaceChildren();
  state.stepper.toggle.setAttribute("aria-expanded", "false");
  state.stepper.toggle.textContent = t("deal.step");
  state.stepper = null;
}

function toggleStepper(ctx, deal, index, toggle, root) {
  const wasOpen = state.stepper && state.stepper.root === root;
  closeStepper();
  if (wasOpen) return;
  state.stepper = { ctx, deal, index, toggle, root, frames: buildFrames(ctx, deal, index), position: 0 };
  toggle.setAttribute("aria-expanded", "true");
  toggle.textContent = t("deal.step_close");
  root.hidden = false;
  drawStep();
  root.scrollIntoView({ block: "nearest" });
}

function moveStep(where) {
  const stepper = state.stepper;
  if (!stepper) return;
  const last = stepper.frames.length - 1;
  const target = { first: 0, prev: stepper.position - 1, next: stepper.position + 1, last }[where];
  stepper.position = Math.max(0, Math.min(last, target));
  drawStep();
}

function drawStep() {
  const { ctx, deal, index, root, frames, position } = state.stepper;
  const total = frames.length - 1;
  const frame = frames[position];
  const events = logEvents(ctx, index);
  const next = position < total ? events[position] : null;
  const offence = deal.violations.find((v) => v.event === position);
  const illegal = ctx.answer.illegal && ctx.answer.illegal.deal === index && ctx.answer.illegal.event === position
    ? ctx.answer.illegal : null;

  const buttons = el("div", { class: "step-buttons" },
    ...["first", "prev", "next", "last"].map((where) => {
      const button = el("button", { type: "button", "data-step-move": where, text: t(`step.${where}`) });
      button.disabled = (where === "first" || where === "prev") ? position === 0 : position === total;
      button.addEventListener("click", () => moveStep(where));
      return button;
    }),
    el("span", { class: "position", text: t("step.position", { step: position, total }) }),
    el("span", { class: "hint", text: t("step.keys") }));

  const lines = el("div", { class: "step-text" });
  if (position === 0) lines.append(el("p", { text: t("step.dealt") }));
  else {
    let text = describeEvent(ctx, events[position - 1]);
    if (frame.done) text += ` · ${t("step.trick_won", { name: ctx.name(frame.done.winner), number: frame.done.number, points: frame.done.points })}`;
    lines.append(el("p", { class: "last-event", text: t("step.last_event", { text }) }));
  }
  if (next) {
    lines.append(el("p", { class: `next-event${offence ? " renuncio" : ""}`, text: t("step.next_event", { text: describeEvent(ctx, next) + (offence ? ` — ${t("step.renuncio")}` : "") }) }));
    if (offence) lines.append(el("p", { class: "message", text: offence.message }));
  } else if (illegal) {
    lines.append(el("p", { class: "next-event illegal-step", text: t("step.next_event", { text: describeEvent(ctx, events[position]) }) }),
      el("p", { class: "message", text: `${t("step.stopped")} ${illegal.message}` }));
  } else {
    lines.append(el("p", { class: "end", text: t("step.end") }));
  }

  const nextCard = next && next.type === "play" ? ctx.canon(next.card) : null;
  const correct = new Set(offence ? offence.correct : []);
  const hands = el("div", { class: "hands" }, el("h5", { text: t("step.hands") }),
    ...frame.hands.map((hand, seat) => el("div", { class: "hand", "data-hand": seat },
      el("span", { class: "who", text: ctx.name(seat) }),
      el("span", { class: "cards" }, ...hand.map((code) => {
        const card = ctx.card(code);
        if (code === nextCard && next.seat === seat) card.classList.add("next-play");
        if (correct.has(code) && offence.seat === seat) card.classList.add("correct");
        return card;
      })))));

  const table = el("div", { class: "table" }, el("h5", { text: t("step.table") }),
    el("div", { class: "plays" }, ...frame.table.map((play) => {
      const figure = el("figure", { class: "play", "data-seat": play.seat }, ctx.card(play.card),
        el("figcaption", { text: ctx.name(play.seat) }));
      if (frame.done && frame.done.winner === play.seat) figure.classList.add("win");
      return figure;
    })));
  const extras = el("div", { class: "step-facts" });
  if (frame.turned) extras.append(el("p", {}, `${t(ctx.ruleset.trump_from === "stock" ? "deal.turned" : "deal.dealer_card")} `, ctx.card(frame.turned)));
  if (ctx.ruleset.stock) extras.append(el("p", { text: `${t("deal.stock_left")}: ${frame.stockLeft}` }));
  extras.append(scoreLine(ctx, deal, frame.score, "step-score"));

  root.dataset.step = String(position);
  root.replaceChildren(el("h4", { text: t("step.heading") }), buttons, lines, el("div", { class: "step-board" }, table, hands), extras);
}

document.addEventListener("keydown", (event) => {
  if (!state.stepper || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target instanceof HTMLElement && event.target.closest("input, textarea, select")) return;
  const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  if (!where) return;
  event.preventDefault();
  moveStep(where);
});

// --- asking the service ---------------------------------------------------------------------

function showProblem(heading, lines, problem) {
  closeStepper();
  state.answer = null;
  const box = el("div", { class: "problem", role: "alert" }, el("h2", { text: heading }));
  for (const line of lines) box.append(el("p", { text: line }));
  if (problem && Array.isArray(problem.errors)) {
    box.append(el("ul", { class: "errors" }, ...problem.errors.map((error) => el("li", {},
      el("code", { text: error.pointer || "/" }), " ", String(error.message)))));
  }
  if (problem && problem.request_id) box.append(el("p", { class: "hint", text: `request id: ${problem.request_id}` }));
  ruling.replaceChildren(box);
  ruling.dataset.state = "error";
  state.renders += 1;
  ruling.dataset.render = String(state.renders);
}

async function adjudicate() {
  const request = ++state.requests;
  ruling.dataset.state = "loading";
  ruling.replaceChildren(el("p", { class: "loading", text: t("state.loading") }));
  const headers = { "Content-Type": "application/json", "Accept-Language": state.lang };
  if (state.key) headers["X-API-Key"] = state.key;
  let response;
  let body;
  try {
    response = await fetch(new URL("v1/replays", document.baseURI), {
      method: "POST", headers, body: state.text, cache: "no-store", credentials: "omit",
    });
    body = await response.json();
  } catch (error) {
    if (request === state.requests) showProblem(t("error.heading"), [t("error.network", { detail: error.message })]);
    return;
  }
  if (request !== state.requests) return; // a newer log or language took over
  $("key-form").hidden = response.status !== 401;
  if (!response.ok) {
    const lines = [body && body.title ? `${body.status} ${body.title}` : String(response.status)];
    if (body && body.detail) lines.push(body.detail);
    showProblem(t("error.heading"), lines, body);
    return;
  }
  state.answer = body;
  render();
}

function encodeLog(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeLog(encoded) {
  let base64 = encoded.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new Error("not base64url");
  base64 = base64.replace(/=+$/, "");
  while (base64.length % 4) base64 += "=";
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

function showShare(href) {
  $("share").hidden = false;
  $("share-link").value = href;
  $("copy-state").textContent = "";
}

/** Open a log given as text; `share` puts it in the address bar as #log=... */
function openText(text, share = true) {
  let log;
  try {
    log = JSON.parse(text);
  } catch (error) {
    showProblem(t("error.heading"), [t("error.not_json", { detail: error.message })]);
    return;
  }
  if (!log || typeof log !== "object" || Array.isArray(log)) {
    showProblem(t("error.heading"), [t("error.not_object")]);
    return;
  }
  state.text = text;
  state.log = log;
  if (share) {
    const url = new URL(location.href);
    url.hash = `log=${encodeLog(JSON.stringify(log))}`;
    history.replaceState(null, "", url.href);
  }
  showShare(location.href);
  adjudicate();
}

function openFragment() {
  const match = /^#log=(.*)$/s.exec(location.hash);
  if (!match) return;
  let text;
  try {
    text = decodeLog(decodeURIComponent(match[1]));
  } catch (error) {
    showProblem(t("error.heading"), [t("error.fragment", { detail: error.message })]);
    return;
  }
  openText(text, false);
}

function openFile(file) {
  file.text().then((text) => openText(text), (error) => showProblem(t("error.heading"), [t("error.file", { detail: error.message })]));
}

// --- wiring ---------------------------------------------------------------------------------

$("log-file").addEventListener("change", (event) => {
  const [file] = event.target.files;
  if (file) openFile(file);
  event.target.value = "";
});

$("paste-form").addEventListener("submit", (event) => {
  event.preventDefault();
  openText($("paste").value);
});

$("example").addEventListener("change", async (event) => {
  const name = event.target.value;
  if (!name) return;
  try {
    const response = await fetch(new URL(`examples/${encodeURIComponent(name)}`, document.baseURI), { cache: "no-store" });
    openText(await response.text());
  } catch (error) {
    showProblem(t("error.heading"), [t("error.network", { detail: error.message })]);
  }
});

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  state.key = $("api-key").value.trim() || null;
  if (state.text !== null) adjudicate();
});

$("copy-link").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("share-link").value);
    $("copy-state").textContent = t("load.copied");
  } catch {
    $("share-link").select();
  }
});

$("print").addEventListener("click", () => window.print());

for (const link of document.querySelectorAll("[data-lang-switch]")) {
  link.addEventListener("click", (event) => {
    event.preventDefault();
    setLang(link.dataset.langSwitch);
  });
}

const carriesFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
document.addEventListener("dragover", (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  document.body.classList.add("dragging");
});
document.addEventListener("dragleave", (event) => {
  if (event.relatedTarget === null) document.body.classList.remove("dragging");
});
document.addEventListener("drop", (event) => {
  document.body.classList.remove("dragging");
  if (!event.dataTransfer) return;
  const [file] = event.dataTransfer.files;
  const text = event.dataTransfer.getData("text/plain");
  if (!file && !text) return;
  event.preventDefault();
  if (file) openFile(file);
  else openText(text);
});

document.addEventListener("paste", (event) => {
  if (event.target instanceof HTMLElement && event.target.closest("input, textarea")) return;
  const text = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
  if (!text.trim().startsWith("{")) return;
  event.preventDefault();
  $("paste").value = text;
  openText(text);
});

window.addEventListener("hashchange", openFragment);
applyStaticWords();
openFragment();
document.documentElement.dataset.ready = "true";
