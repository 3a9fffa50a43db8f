// The ruling in words, from the service's answer (POST /v1/replays with "steps": true): who
// each seat is, what each event was, the verdict's sentences, how a deal ended, what a problem
// says. Everything judged (tricks, winners, points, renuncios, outcomes, the running score) is
// read from the answer and its steps; the log only gives the events' order and kinds. No DOM:
// ruling.js, stepper.js, table.js and verdict.js draw these words.

import { Deck } from "./deck.js";

/**
 * What every part of the ruling reads: the log, the answer, its ruleset, its cards and the
 * players' names. `data`: the page data (rulesets, cards); `words`: the page's Words.
 */
export function rulingContext(data, words, log, answer) {
  return {
    log,
    answer,
    words,
    ruleset: data.rulesets[log.ruleset],
    deck: new Deck(data.cards, log.notation, words),
    names: answer.match.standings.map((s) => s.player),
  };
}

export const seatName = (ctx, seat) => ctx.names[seat] ?? `#${seat}`;
export const seatNames = (ctx, seats) => seats.map((s) => seatName(ctx, s)).join(" + ");

/** Seats grouped as the answer scores them: the sides in pairs, else one seat each. */
export function groups(ctx, deal) {
  if (deal && Array.isArray(deal.sides)) return deal.sides.map((side) => side.seats);
  const first = ctx.answer.deals[0];
  if (ctx.ruleset.pairs && first && first.sides) return first.sides.map((side) => side.seats);
  return ctx.names.map((_, seat) => [seat]);
}

/** The events of deal `index` as the log gives them ([] for a deal without a list). */
export function logEvents(ctx, index) {
  const deal = ctx.log.deals[index];
  return deal && typeof deal === "object" && Array.isArray(deal.events) ? deal.events : [];
}

/** «ana juega el as de oros»: one event of a log in words. */
export function describeEvent(ctx, event) {
  if (!event || typeof event !== "object") return String(event);
  const { t } = ctx.words;
  const name = seatName(ctx, event.seat);
  switch (event.type) {
    case "play":
      return t("step.play", { name, card: ctx.deck.name(ctx.deck.canon(event.card)) });
    case "sing":
      return t("step.sing", { name, suit: ctx.deck.suitName(event.suit) });
    case "exchange":
      return t("step.exchange", { name });
    case "tute":
      return t("step.tute", { name, of: t(`of.${event.of}`) });
    default:
      return JSON.stringify(event);
  }
}

/** A declaration (or the exchange) as the button that makes it says it: «Cantar en oros». */
export function actionLabel(ctx, move) {
  const { t } = ctx.words;
  return t(`action.${move.type}`, {
    suit: move.suit ? ctx.deck.suitName(move.suit) : "",
    of: move.of ? t(`of.${move.of}`) : "",
  });
}

/** A move the referee lists as legal, when it is not a card: «cante en oros». */
export function moveText(ctx, move) {
  const { t } = ctx.words;
  switch (move.type) {
    case "sing":
      return t("move.sing", { suit: ctx.deck.suitName(move.suit) });
    case "tute":
      return t("move.tute", { of: t(`of.${move.of}`) });
    default:
      return t("move.exchange");
  }
}

/** Points per seat added up by side (in pairs) or seat: [{seats, total}]. */
export function runningTotals(ctx, deal, perSeat) {
  return groups(ctx, deal).map((seats) => ({
    seats,
    total: seats.reduce((sum, s) => sum + perSeat[s], 0),
  }));
}

/** «ana + carlos 35 · bea + dani 12». */
export function totalsText(ctx, totals) {
  return totals.map((g) => `${seatNames(ctx, g.seats)} ${g.total}`).join(" · ");
}

/** The trick each applied event of a deal belongs to: its step's count of completed tricks. */
export function eventTricks(deal) {
  return deal.steps.slice(0, -1).map((step) => step.trick.number);
}

/** The totals the table shows once trick `j` is over, with any cante sung right after it
 *  (the last step before the next trick's first card); for the trick in play, the last step. */
export function totalsAfterTrick(deal, j) {
  let totals = deal.steps[0].totals;
  for (const step of deal.steps) {
    const { number, plays } = step.trick;
    if (number > j + 1 || (number === j + 1 && plays.length)) break;
    totals = step.totals;
  }
  return totals;
}

/** Where a deal's incidents are: its renuncios and its illegal event. */
export function incidents(ctx, index) {
  const deal = ctx.answer.deals[index];
  const { illegal } = ctx.answer;
  return {
    violations: deal ? deal.violations : [],
    illegal: illegal && illegal.deal === index ? illegal : null,
  };
}

/** The place the ruling opens on: the first renuncio, else the illegal event, else none. */
export function firstIncident(ctx) {
  const index = ctx.answer.deals.findIndex((deal) => deal.violations.length);
  if (index >= 0) {
    return { deal: index + 1, trick: ctx.answer.deals[index].violations[0].trick + 1 };
  }
  const { illegal } = ctx.answer;
  return illegal ? { deal: illegal.deal + 1, trick: null } : null;
}

// --- the verdict's sentences ------------------------------------------------------------------

/** What the deal's deciding renuncio did to it: who lose it, what else decided it, or that
 *  the deal goes on. */
function consequence(ctx, deal) {
  const { t, counted } = ctx.words;
  if (!deal.outcome) return t("summary.unfinished");
  if (deal.outcome.reason === "renuncio") {
    const { losers } = deal.outcome;
    return counted("summary.lose", losers.length, { names: seatNames(ctx, losers) });
  }
  return t("summary.decided_by", { reason: t(`reason.${deal.outcome.reason}`) });
}

/** «Deal 2: ana renounced in trick 8 (did not trump…); ana and carlos lose the deal». */
export function verdictSentence(ctx, index, violation) {
  const { t } = ctx.words;
  const deal = ctx.answer.deals[index];
  const fields = {
    deal: index + 1,
    name: seatName(ctx, violation.seat),
    trick: violation.trick + 1,
    failed: t(`failed.${violation.obligation}`),
  };
  const { decided } = deal.steps.at(-1);
  if (decided?.kind !== "renuncio" || decided.event !== violation.event) {
    return t("summary.renuncio_more", fields);
  }
  return `${t("summary.renuncio", fields)}; ${consequence(ctx, deal)}`;
}

/** «Deal 1, event 7: illegal — …» (the referee's message ends it). */
export function illegalSentence(ctx, illegal) {
  const { t } = ctx.words;
  const where =
    illegal.event === null
      ? t("summary.illegal_deal", { deal: illegal.deal + 1 })
      : t("summary.illegal", { deal: illegal.deal + 1, event: illegal.event + 1 });
  return `${where} — ${illegal.message}`;
}

/** One line for a deal: how it ended ("winners: ana · losers: bea (on points)"), or that it
 *  goes on. */
export function dealLine(ctx, deal) {
  const { t } = ctx.words;
  if (!deal.outcome) return t("deal.line_unfinished");
  const { winners, losers, reason } = deal.outcome;
  const how = t(`reason.${reason}`);
  if (!winners.length) return t("deal.line_nobody", { how });
  const fields = { winners: seatNames(ctx, winners), losers: seatNames(ctx, losers), how };
  return t(losers.length ? "deal.line" : "deal.line_winners", fields);
}

/** «Renuncio (fallar): trump when void». */
export function renuncioHeading(words, obligation) {
  return words.t("violation.heading", { obligation, meaning: words.t(`obligation.${obligation}`) });
}

/** The log's options as the ruling's head says them, or that there are none. */
export function optionsText(ctx) {
  const { options } = ctx.log;
  const { t } = ctx.words;
  if (!options || typeof options !== "object" || !Object.keys(options).length) {
    return t("ruling.no_options");
  }
  return Object.entries(options)
    .map(([name, value]) => `${t(`option.${name}`)}: ${optionValueText(ctx.words, name, value)}`)
    .join(", ");
}

/** An option's value in words: yes or no, a choice's words (`value.<option>.<value>`), a pair
 *  of ranks, a number — never the code a log writes. */
export function optionValueText(words, name, value) {
  if (typeof value === "boolean") return words.t(`table.${value}`);
  if (Array.isArray(value)) return value.join(" + ");
  if (typeof value === "string") return words.t(`value.${name}.${value}`);
  return String(value);
}

/** The table's details a log may carry (docs/api.md): their names, in the order shown. */
export const DETAILS = ["event", "round", "table", "date", "referee"];
/** At most this many characters of each detail are shown. */
export const DETAIL_LIMIT = 80;

/** The log's table details as [name, text] pairs: strings only, bounded, empty ones left out. */
export function tableDetails(log) {
  const given = log && typeof log.details === "object" && log.details ? log.details : {};
  return DETAILS.filter((name) => typeof given[name] === "string" && given[name].trim()).map(
    (name) => [name, given[name].trim().slice(0, DETAIL_LIMIT)],
  );
}

/**
 * The seats of deal `index` that held a card the log marks as unknown (its `unknown`,
 * docs/api.md): dealt it in their hand, or drew it from the stock. Their renuncios may depend
 * on what those cards were.
 */
export function seatsHoldingUnknown(ctx, index) {
  const deal = ctx.log.deals?.[index];
  const list = (value) => (Array.isArray(value) ? value : []);
  const marked = new Set(list(deal?.unknown).map((code) => ctx.deck.canon(code)));
  const seats = new Set();
  if (!marked.size) return seats;
  list(deal.hands).forEach((hand, seat) => {
    if (list(hand).some((code) => marked.has(ctx.deck.canon(code)))) seats.add(seat);
  });
  const draws = (ctx.answer.deals[index]?.tricks ?? []).flatMap((trick) => list(trick.draws));
  for (const draw of draws) if (marked.has(draw.card)) seats.add(draw.seat);
  return seats;
}

/** The match's target (the option the ruleset counts to), as the log sets it or by default. */
export function matchGoal(ctx) {
  const { target } = ctx.ruleset.match;
  const options = ctx.log.options && typeof ctx.log.options === "object" ? ctx.log.options : {};
  return options[target] ?? ctx.ruleset.options[target]?.default;
}

/** The trump of a deal as its facts say it: the suit, and how it was made. */
export function trumpText(ctx, deal) {
  const { t } = ctx.words;
  if (ctx.ruleset.trump_from === "call") {
    const call = deal.steps.at(-1).cantes.find((c) => c.made_trump);
    if (deal.trump && call) {
      const by = t("deal.trump_by_call", { trick: call.trick + 1 });
      return `${ctx.deck.suitName(deal.trump)} — ${by}`;
    }
    return t(deal.finished ? "deal.no_call" : "deal.no_trump_yet");
  }
  return deal.trump ? ctx.deck.suitName(deal.trump) : t("deal.trump_none");
}

/** The note of a cante in its trick: a call (the one that made trump, or another) where trump
 *  is called, else a cante. */
export function canteNote(ctx, deal, cante) {
  const fields = {
    name: seatName(ctx, cante.seat),
    points: cante.points,
    suit: ctx.deck.suitName(cante.suit),
  };
  let key = "note.cante";
  if (ctx.ruleset.cantes === "in_trick") {
    const made = deal.steps.at(-1).cantes.find((c) => c.made_trump);
    const madeTrump = made && made.trick === cante.trick && made.suit === cante.suit;
    key = madeTrump ? "note.call_trump" : "note.call";
  }
  return ctx.words.t(key, fields);
}

/**
 * A problem as lines for people: its status and title, then one line per problem (each error
 * of the list once, or the detail when there is no list) — never the same message twice.
 */
export function problemLines(words, error) {
  if (!error || error.status === undefined) return [String(error && error.message)];
  if (error.status === 0) return [words.t("error.network", { detail: error.message })];
  const body = error.body ?? {};
  const lines = [body.title ? `${error.status} ${body.title}` : String(error.status)];
  lines.push(...problemDetails(body));
  if (body.request_id) lines.push(`request id: ${body.request_id}`);
  return lines;
}

/** A problem's errors, one line each with its JSON pointer, or else its detail. */
function problemDetails(body) {
  const listed = Array.isArray(body.errors) ? body.errors : [];
  if (listed.length) return listed.map((e) => `${e.pointer || "/"}: ${e.message}`);
  return body.detail ? [body.detail] : [];
}

// --- what depends on the unknown cards (unknowns.js) --------------------------------------------

/** Cards named for a condition: «any copa» when they are every candidate of a suit (two or
 *  more), else «the six of copas or the rey of oros». */
export function cardsPhrase(ctx, codes, candidates) {
  const { t } = ctx.words;
  for (const suit of ctx.deck.suits()) {
    const ofSuit = candidates.filter((code) => ctx.deck.suitOf(code) === suit);
    const all = ofSuit.length > 1 && ofSuit.length === codes.length;
    if (all && ofSuit.every((code) => codes.includes(code))) {
      return t("unknown.of_suit", { suit: ctx.deck.suitName(suit) });
    }
  }
  return codes.map((code) => ctx.deck.name(code)).join(t("unknown.or"));
}

/**
 * What the check found of one renuncio of a seat: it stands in every case; it stands (or would
 * be one, when the deal as shown has none there) if the seat held certain cards; or in so many
 * cases of all. `shown`: whether the deal as shown has it.
 */
export function findingSentence(ctx, seat, finding, candidates, shown) {
  const { t } = ctx.words;
  const fields = {
    name: seatName(ctx, seat.seat),
    trick: finding.trick + 1,
    obligation: [...finding.obligations].join(" / "),
    cases: finding.cases,
    total: seat.cases,
  };
  if (finding.cases === seat.cases) return ctx.words.counted("unknown.stands", seat.cases, fields);
  if (finding.trigger && finding.trigger.length) {
    const cards = cardsPhrase(ctx, finding.trigger, candidates);
    const condition = t(seat.unknown === 1 ? "unknown.if_card" : "unknown.if_held", {
      ...fields,
      cards,
    });
    return t(shown ? "unknown.depends" : "unknown.would_be", { ...fields, condition });
  }
  return t(shown ? "unknown.depends_count" : "unknown.would_be_count", fields);
}
