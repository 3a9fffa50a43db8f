// The editor's third step: the deal at the table. It draws the position the referee gives (the
// last step of /v1/replays): the trick on the table, every hand, the seat to act with its cards
// as buttons, and the declarations the referee says are open; the verdict on the last move in a
// live region; undo, redo and the way back from a "what if"; the moves so far; the ruling so far;
// the deal as a log; and what depends on the cards nobody knows.

import { cardButton, cardElement, unknownCard } from "./cards.js";
import { button, el } from "./dom.js";
import { logText, writeFragment } from "./logcodec.js";
import { describeEvent, renderOutcome, renuncioHeading, rulingContext, scoreLine, seatName } from "./ruling.js";
import { verdictElement } from "./verdict.js";
import { counted, currentLang, t } from "./words.js";

/** The cards each seat holds now, the unknown ones (the fillers of the log) apart. */
function handsNow(session) {
  const fillers = session.fillers();
  return session.view.hands.map((hand) => ({
    known: hand.filter((code) => !fillers.has(code)),
    unknown: hand.filter((code) => fillers.has(code)),
  }));
}

/** A declaration the referee offers is shown when the cards it shows are known: with unknown
 *  cards in the hand, the referee's offer may rest on a card the log only fills in. */
function backed(session, move, hand) {
  if (!hand.unknown.length) return true;
  const { deck } = session.entry;
  const holds = (rank, suit) => hand.known.includes(deck.codeOf(rank, suit));
  if (move.type === "sing") return holds(12, move.suit) && holds(11, move.suit);
  if (move.type === "tute") {
    const rank = move.of === "kings" ? 12 : 11;
    return deck.suits().every((suit) => holds(rank, suit));
  }
  if (move.type === "exchange") return holds(7, session.view.trump);
  return true;
}

function moveLabel(ctx, move) {
  switch (move.type) {
    case "sing": return t("action.sing", { suit: ctx.deck.suitName(move.suit) });
    case "tute": return t("action.tute", { of: t(`of.${move.of}`) });
    default: return t("action.exchange");
  }
}

function factsLine(session, ctx) {
  const { view } = session;
  const parts = [el("span", {}, `${t("deal.trump")}: `, view.trump ? ctx.deck.suitName(view.trump) : t("deal.trump_none"))];
  if (view.turned) parts.push(el("span", { class: "turned" }, `${t(ctx.ruleset.trump_from === "stock" ? "deal.turned" : "deal.dealer_card")} `, cardElement(view.turned, ctx.deck)));
  if (ctx.ruleset.stock) parts.push(el("span", { text: `${t("deal.stock_left")}: ${view.stock_left}` }));
  if (!view.over) parts.push(el("span", { text: t("play.trick_no", { number: view.trick.number + 1 }) }));
  return el("p", { class: "play-facts" }, ...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
}

function trickNow(session, ctx) {
  const { view } = session;
  const plays = view.trick.plays;
  const last = session.deal.tricks[view.trick.number - 1];
  const shown = plays.length || !last ? plays : last.plays;
  const caption = plays.length || !last ? t("step.table") : t("play.last_trick", { name: seatName(ctx, last.winner), points: last.points });
  return el("section", { class: "table-now", "aria-label": t("step.table") },
    el("h3", { text: caption }),
    el("div", { class: "plays" }, ...shown.map((play) => el("figure", {
      class: `play${!plays.length && last && last.winner === play.seat ? " win" : ""}`, "data-seat": play.seat,
    }, cardElement(play.card, ctx.deck), el("figcaption", { text: seatName(ctx, play.seat) })))));
}

function seatPanel(session, ctx, seat, hand, handlers) {
  const acting = session.view.turn === seat;
  const panel = el("section", { class: `seat${acting ? " acting" : ""}`, "data-seat": seat, "aria-label": seatName(ctx, seat) },
    el("h3", {}, seatName(ctx, seat), acting ? el("span", { class: "to-act", text: ` — ${t("play.to_act")}` }) : null));
  const cards = el("div", { class: "hand-now", role: "group", "aria-label": t("play.hand_of", { name: seatName(ctx, seat) }) });
  // Every seat's cards can be tapped: at a table a card may be played out of turn, and the
  // referee refuses it with the reason.
  for (const code of hand.known) {
    cards.append(cardButton(code, ctx.deck, () => handlers.onMove({ type: "play", seat, card: code }), t("play.play_it")));
  }
  for (const code of hand.unknown) cards.append(unknownCard(t("play.unknown_play"), () => handlers.onNameUnknown(seat, code)));
  panel.append(cards);
  if (acting) {
    const moves = session.view.legal_moves.filter((m) => m.type !== "play" && backed(session, m, hand));
    if (moves.length) {
      panel.append(el("div", { class: "declarations", role: "group", "aria-label": t("play.declarations") },
        ...moves.map((m) => button({ "data-action": m.type, "data-suit": m.suit ?? null, "data-of": m.of ?? null }, moveLabel(ctx, m), () => handlers.onMove(m)))));
    }
  }
  return panel;
}

function controls(session, handlers) {
  const undo = button({ class: "secondary", "data-action": "undo" }, t("play.undo"), handlers.onUndo);
  undo.disabled = !session.canUndo();
  const redo = button({ class: "secondary", "data-action": "redo" }, t("play.redo"), handlers.onRedo);
  redo.disabled = !session.canRedo();
  const box = el("div", { class: "play-controls" }, undo, redo,
    button({ class: "secondary", "data-action": "cards" }, t("play.edit_cards"), handlers.onEditCards));
  if (session.original) {
    box.prepend(el("p", { class: "what-if-note", role: "note", text: t("play.whatif", { count: session.original.line.length }) }),
      button({ "data-action": "original" }, t("play.original"), handlers.onOriginal));
  }
  return box;
}

function history(session, ctx, handlers) {
  const list = el("ol", { class: "moves", start: 0 },
    el("li", {}, button({ class: "link", "data-history": 0, "aria-current": session.cursor === 0 ? "step" : null }, t("play.history_start"), () => handlers.onGoTo(0))));
  session.line.forEach((event, k) => {
    const text = describeEvent(ctx, event);
    list.append(el("li", { class: k < session.cursor ? "done" : "undone" },
      button({ class: "link", "data-history": k + 1, "aria-current": session.cursor === k + 1 ? "step" : null }, text, () => handlers.onGoTo(k + 1))));
  });
  return el("details", { class: "history" }, el("summary", { text: counted("play.moves", session.cursor) }), list);
}

/** The seats that were dealt, or drew, a card nobody knows. */
function seatsWithUnknowns(session) {
  const drawn = session.deal.tricks.flatMap((trick) => trick.draws.map((draw) => draw.seat));
  return new Set(session.entry.unknownSlots().map((slot) => (slot.id === "stock" ? drawn[slot.index] : slot.seat)));
}

function rulingSoFar(session, ctx, lang) {
  const { deal } = session;
  const uncertain = seatsWithUnknowns(session);
  const box = el("section", { class: "so-far", "aria-labelledby": "so-far-heading" },
    el("h3", { id: "so-far-heading", text: t("play.so_far") }),
    scoreLine(ctx, deal, session.view.totals, "play-score"));
  if (deal.violations.length) {
    box.append(el("ul", { class: "found" }, ...deal.violations.map((v) => el("li", { class: "renuncio-found", "data-violation": v.obligation },
      el("strong", { text: `${renuncioHeading(v.obligation)} · ${t("trick.heading", { number: v.trick + 1 })}` }), " ", v.message,
      // found with the unknown cards filled in one way: whether it stands is the check's to say
      uncertain.has(v.seat) ? el("em", { class: "uncertain", text: ` ${t("unknown.tag", { name: seatName(ctx, v.seat) })}` }) : null))));
  } else box.append(el("p", { text: t("ruling.no_renuncio") }));
  if (deal.outcome) box.append(renderOutcome(ctx, deal));
  const href = `./?lang=${lang}${writeFragment(logText(session.log()))}`;
  box.append(el("p", {}, el("a", { href, id: "open-ruling", class: "button", text: t("play.open_ruling") })));
  return box;
}

function exported(session) {
  const log = session.log();
  const text = JSON.stringify(log, null, 1);
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const area = el("textarea", { id: "log-text", rows: 4, readonly: true, spellcheck: "false", "aria-label": t("export.log") });
  area.value = text;
  const state = el("span", { class: "hint", role: "status" });
  const copy = button({ class: "secondary", id: "copy-log" }, t("export.copy"), async () => {
    try {
      await navigator.clipboard.writeText(text);
      state.textContent = t("export.copied");
    } catch {
      area.select();
    }
  });
  return el("details", { class: "export" }, el("summary", { text: t("export.heading") }),
    el("p", { class: "hint", text: t("export.hint") }), area,
    el("p", { class: "export-buttons" }, el("a", { href: url, download: "deal.json", id: "download-log", class: "button", text: t("export.download") }), " ", copy, " ", state));
}

function cardsPhrase(ctx, codes, candidates) {
  for (const suit of ctx.deck.suits()) {
    const ofSuit = candidates.filter((code) => ctx.deck.suitOf(code) === suit);
    if (ofSuit.length > 1 && ofSuit.length === codes.length && ofSuit.every((code) => codes.includes(code))) {
      return t("unknown.of_suit", { suit: ctx.deck.suitName(suit) });
    }
  }
  return codes.map((code) => ctx.deck.name(code)).join(t("unknown.or"));
}

function findingSentence(ctx, session, seat, finding, candidates) {
  const fields = {
    name: seatName(ctx, seat.seat), trick: finding.trick + 1, obligation: [...finding.obligations].join(" / "),
    cases: finding.cases, total: seat.cases,
  };
  const shown = session.deal.violations.some((v) => v.event === finding.event);
  if (finding.cases === seat.cases) return t("unknown.stands", fields);
  if (finding.trigger && finding.trigger.length) {
    const condition = t(seat.unknown === 1 ? "unknown.if_card" : "unknown.if_held", { ...fields, cards: cardsPhrase(ctx, finding.trigger, candidates) });
    return t(shown ? "unknown.depends" : "unknown.would_be", { ...fields, condition });
  }
  return t(shown ? "unknown.depends_count" : "unknown.would_be_count", fields);
}

/** What depends on the unknown cards: the check's sentences (or that it is being asked). */
export function unknownsReport(check, session) {
  const ctx = rulingContext(session.log(), session.answer);
  const box = el("section", { class: "unknowns", id: "unknowns", "aria-labelledby": "unknowns-heading", "aria-live": "polite" },
    el("h3", { id: "unknowns-heading", text: t("unknown.heading") }));
  if (check === "pending") {
    box.append(el("p", { class: "loading", text: t("unknown.checking") }));
    return box;
  }
  if (check.error) {
    box.append(el("p", { text: check.error }));
    return box;
  }
  const lines = el("ul", { class: "dependency" });
  const line = (text, attrs = {}) => lines.append(el("li", { ...attrs, text }));
  line(t("unknown.played", { count: check.candidates.length }));
  for (const seat of check.seats) {
    const name = seatName(ctx, seat.seat);
    if (!seat.checked) line(t("unknown.unchecked", { name, count: seat.unknown, cases: seat.cases }), { "data-dependency": "unchecked", "data-seat": seat.seat });
    else if (!seat.findings.length) line(t("unknown.none", { name, total: seat.cases }), { "data-dependency": "none", "data-seat": seat.seat });
    for (const finding of seat.findings ?? []) {
      line(findingSentence(ctx, session, seat, finding, check.candidates), {
        "data-dependency": finding.cases === seat.cases ? "stands" : "depends", "data-seat": seat.seat, "data-trick": finding.trick,
      });
    }
  }
  line(t(`unknown.outcome.${check.outcome}`), { "data-dependency": `outcome-${check.outcome}` });
  box.append(lines);
  return box;
}

/** A prompt with a picker of the cards nobody has placed: "Which card did bea draw?" */
export function candidatePrompt(entry, question, onPick, extra = null) {
  const grid = el("div", { class: "picker", role: "group", "aria-label": question },
    ...entry.candidates().map((code) => {
      const control = cardButton(code, entry.deck, () => onPick(code));
      control.dataset.pickCard = code;
      return control;
    }));
  return el("section", { class: "prompt", role: "group", "aria-labelledby": "prompt-question" },
    el("p", { class: "prompt-question", id: "prompt-question", text: question }), grid, extra);
}

/**
 * The play step. `state`: {verdict, check, prompt} — the verdict on the last move, the check of
 * the unknown cards ("pending", a result, or null) and a prompt to show instead of the hand
 * (a draw or an unknown card to name). `handlers`: onMove, onNameUnknown, onUndo, onRedo,
 * onGoTo, onOriginal, onEditCards.
 */
export function renderTable(session, state, handlers) {
  const log = session.log();
  const ctx = rulingContext(log, session.answer);
  const hands = handsNow(session);
  const { view } = session;
  const verdict = el("div", { class: "verdict-box", id: "verdict", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  if (state.verdict) {
    verdict.append(verdictElement(state.verdict, ctx.deck, session.fillers()));
    if (state.verdictNote) verdict.append(el("p", { class: "hint", text: state.verdictNote }));
  }
  const turn = view.turn;
  // the seats in the order play goes round the table, from the seat to act
  const first = turn ?? 0;
  const order = hands.map((_, i) => (first + i) % hands.length);
  const acting = turn === null ? [] : [turn];
  const others = order.filter((seat) => seat !== turn);
  const root = el("section", { class: "at-table", "aria-labelledby": "play-heading", "data-turn": turn ?? "" },
    el("h2", { id: "play-heading", text: t("play.heading", { ruleset: t(`ruleset.${ctx.log.ruleset}`) }) }),
    factsLine(session, ctx),
    trickNow(session, ctx),
    verdict);
  if (state.prompt) root.append(state.prompt);
  else if (turn === null) root.append(el("p", { class: "deal-over", text: session.answer.status === "invalid" ? session.answer.illegal.message : t("play.over") }));
  else root.append(el("p", { class: "turn-line", text: t("play.turn", { name: seatName(ctx, turn) }) }));
  for (const seat of acting) if (!state.prompt) root.append(seatPanel(session, ctx, seat, hands[seat], handlers));
  root.append(controls(session, handlers));
  root.append(el("div", { class: "seats" }, ...others.map((seat) => seatPanel(session, ctx, seat, hands[seat], handlers))));
  root.append(rulingSoFar(session, ctx, currentLang()));
  if (state.check) root.append(unknownsReport(state.check, session)); // null: nothing to say
  root.append(history(session, ctx, handlers), exported(session));
  return root;
}
