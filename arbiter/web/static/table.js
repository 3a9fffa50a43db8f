// The editor's third step: the deal at the table, drawn from the editor's state (editorstate.js):
// the position the referee gives (the last step of /v1/replays) — the trick on the table, every
// hand, the seat to act with its cards as buttons, and the declarations the referee says are
// open; the verdict on the last move in a live region; undo, redo and the way back from a "what
// if"; the moves so far; the ruling so far; the deal as a log; and what depends on the cards
// nobody knows.

import { cardButton, cardElement, unknownCard } from "./cards.js";
import { button, el } from "./dom.js";
import { shareFragment } from "./logcodec.js";
import { packPicker } from "./picker.js";
import { contextOf, renderOutcome, scoreLine } from "./ruling.js";
import {
  actionLabel,
  describeEvent,
  findingSentence,
  renuncioHeading,
  seatName,
} from "./rulingtext.js";
import { verdictElement } from "./verdict.js";
import { seatPlace } from "./seatplaces.js";
import { counted, currentLang, t, words } from "./words.js";

function factsLine(state, ctx) {
  const { view } = state;
  const trump = view.trump ? ctx.deck.suitName(view.trump) : t("deal.trump_none");
  const parts = [el("span", {}, `${t("deal.trump")}: `, trump)];
  if (view.turned) {
    const label = t(ctx.ruleset.trump_from === "stock" ? "deal.turned" : "deal.dealer_card");
    parts.push(el("span", { class: "turned" }, `${label} `, cardElement(view.turned, ctx.deck)));
  }
  if (ctx.ruleset.stock) {
    parts.push(el("span", { text: `${t("deal.stock_left")}: ${view.stock_left}` }));
  }
  if (!view.over) {
    parts.push(el("span", { text: t("play.trick_no", { number: view.trick.number + 1 }) }));
  }
  return el(
    "p",
    { class: "play-facts" },
    ...parts.flatMap((part, i) => (i ? [" · ", part] : [part])),
  );
}

/** The trick on the table; between tricks, the last one with its winner. */
function trickNow(state, ctx) {
  const { plays, number } = state.view.trick;
  const last = state.deal.tricks[number - 1];
  const between = !plays.length && last;
  const shown = between ? last.plays : plays;
  const caption = between
    ? t("play.last_trick", { name: seatName(ctx, last.winner), points: last.points })
    : t("step.table");
  return el(
    "section",
    { class: "table-now", "aria-label": t("step.table") },
    el("h3", { text: caption }),
    el(
      "div",
      { class: "plays" },
      ...shown.map((play) =>
        el(
          "figure",
          {
            class: `play${between && last.winner === play.seat ? " win" : ""}`,
            "data-seat": play.seat,
          },
          cardElement(play.card, ctx.deck),
          el("figcaption", { text: seatName(ctx, play.seat) }),
        ),
      ),
    ),
  );
}

/** Every declaration a seat could make, allowed now or not: a cante in each suit, a tute of
 *  kings or of horses, and (with a turned card) the exchange of the seven. */
function everyDeclaration(ctx, seat) {
  const moves = ctx.deck.suits().map((suit) => ({ type: "sing", seat, suit }));
  moves.push({ type: "tute", seat, of: "kings" }, { type: "tute", seat, of: "horses" });
  if (ctx.ruleset.trump_from === "stock") moves.push({ type: "exchange", seat });
  return moves;
}

/** At a table a player may declare what the rules do not allow, and that is often the
 *  dispute: any declaration can be entered as it was made, and the referee rules it (refused
 *  with the reason, as a card out of turn is, or allowed and played). */
function anyDeclaration(ctx, seat, handlers) {
  return el(
    "details",
    { class: "any-declaration", "data-seat": seat },
    el("summary", { text: t("play.any_declaration") }),
    el(
      "div",
      { role: "group", "aria-label": t("play.any_declaration") },
      ...everyDeclaration(ctx, seat).map((m) =>
        button(
          {
            class: "secondary",
            "data-irregular": m.type,
            "data-suit": m.suit ?? null,
            "data-of": m.of ?? null,
          },
          actionLabel(ctx, m),
          () => handlers.onMove(m),
        ),
      ),
    ),
  );
}

function seatPanel(state, ctx, seat, hand, handlers) {
  const acting = state.view.turn === seat;
  const name = seatName(ctx, seat);
  const panel = el(
    "section",
    {
      class: `seat${acting ? " acting" : ""}`,
      "data-seat": seat,
      "data-place": seatPlace(seat, state.view.hands.length),
      "aria-label": name,
    },
    el(
      "h3",
      {},
      name,
      acting ? el("span", { class: "to-act", text: ` — ${t("play.to_act")}` }) : null,
    ),
  );
  const cards = el("div", {
    class: "hand-now",
    role: "group",
    "aria-label": t("play.hand_of", { name }),
  });
  // Every seat's cards can be tapped: at a table a card may be played out of turn, and the
  // referee refuses it with the reason.
  for (const code of hand.known) {
    const play = () => handlers.onMove({ type: "play", seat, card: code });
    cards.append(cardButton(code, ctx.deck, play, t("play.play_it")));
  }
  for (const code of hand.unknown) {
    cards.append(unknownCard(t("play.unknown_play"), () => handlers.onNameUnknown(seat, code)));
  }
  panel.append(cards);
  const moves = acting ? state.declarations(hand) : [];
  if (moves.length) {
    panel.append(
      el(
        "div",
        { class: "declarations", role: "group", "aria-label": t("play.declarations") },
        ...moves.map((m) =>
          button(
            { "data-action": m.type, "data-suit": m.suit ?? null, "data-of": m.of ?? null },
            actionLabel(ctx, m),
            () => handlers.onMove(m),
          ),
        ),
      ),
    );
  }
  panel.append(anyDeclaration(ctx, seat, handlers));
  return panel;
}

function controls(state, handlers) {
  const { line } = state;
  const undo = button(
    { class: "secondary", "data-action": "undo" },
    t("play.undo"),
    handlers.onUndo,
  );
  undo.disabled = !line.canUndo();
  const redo = button(
    { class: "secondary", "data-action": "redo" },
    t("play.redo"),
    handlers.onRedo,
  );
  redo.disabled = !line.canRedo();
  const box = el(
    "div",
    { class: "play-controls" },
    undo,
    redo,
    button(
      { class: "secondary", "data-action": "cards" },
      t("play.edit_cards"),
      handlers.onEditCards,
    ),
  );
  if (line.original) {
    box.prepend(
      el("p", {
        class: "what-if-note",
        role: "note",
        text: t("play.whatif", { count: line.original.moves.length }),
      }),
      button({ "data-action": "original" }, t("play.original"), handlers.onOriginal),
    );
  }
  return box;
}

function history(state, ctx, handlers) {
  const { line } = state;
  const entry = (count, text) =>
    button(
      {
        class: "link",
        "data-history": count,
        "aria-current": line.cursor === count ? "step" : null,
      },
      text,
      () => handlers.onGoTo(count),
    );
  const list = el(
    "ol",
    { class: "moves", start: 0 },
    el("li", {}, entry(0, t("play.history_start"))),
  );
  line.moves.forEach((event, k) => {
    list.append(
      el(
        "li",
        { class: k < line.cursor ? "done" : "undone" },
        entry(k + 1, describeEvent(ctx, event)),
      ),
    );
  });
  return el(
    "details",
    { class: "history" },
    el("summary", { text: counted("play.moves", line.cursor) }),
    list,
  );
}

const trickHeading = (trick) => t("trick.heading", { number: trick + 1 });

function rulingSoFar(state, ctx, lang) {
  const { deal } = state;
  const uncertain = state.seatsDealtUnknown();
  const box = el(
    "section",
    { class: "so-far", "aria-labelledby": "so-far-heading" },
    el("h3", {
      id: "so-far-heading",
      text: t(state.view.over ? "play.so_far_done" : "play.so_far"),
    }),
    scoreLine(ctx, deal, state.view.totals, "play-score"),
  );
  if (deal.violations.length) {
    box.append(
      el(
        "ul",
        { class: "found" },
        ...deal.violations.map((v) =>
          el(
            "li",
            { class: "renuncio-found", "data-violation": v.obligation },
            el("strong", {
              text: `${renuncioHeading(words, v.obligation)} · ${trickHeading(v.trick)}`,
            }),
            " ",
            // found with the unknown cards filled in one way: the referee's sentence may name a
            // card only the filling put there, so the check says whether it stands, not this
            uncertain.has(v.seat) ? null : v.message,
            uncertain.has(v.seat)
              ? el("em", {
                  class: "uncertain",
                  text: ` ${t("unknown.tag", { name: seatName(ctx, v.seat) })}`,
                })
              : null,
          ),
        ),
      ),
    );
  } else box.append(el("p", { text: t("ruling.no_renuncio") }));
  if (deal.outcome) box.append(renderOutcome(ctx, deal));
  const href = `./?lang=${lang}${shareFragment(state.log(), state.data.cards)}`;
  box.append(
    el("p", {}, el("a", { href, id: "open-ruling", class: "button", text: t("play.open_ruling") })),
  );
  return box;
}

function exported(state) {
  const text = JSON.stringify(state.log(), null, 1);
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const area = el("textarea", {
    id: "log-text",
    rows: 4,
    readonly: true,
    spellcheck: "false",
    "aria-label": t("export.log"),
  });
  area.value = text;
  const copied = el("span", { class: "hint", role: "status" });
  const copy = button({ class: "secondary", id: "copy-log" }, t("export.copy"), async () => {
    try {
      await navigator.clipboard.writeText(text);
      copied.textContent = t("export.copied");
    } catch {
      area.select();
    }
  });
  const download = el("a", {
    href: url,
    download: "deal.json",
    id: "download-log",
    class: "button",
    text: t("export.download"),
  });
  return el(
    "details",
    { class: "export" },
    el("summary", { text: t("export.heading") }),
    el("p", { class: "hint", text: t("export.hint") }),
    area,
    el("p", { class: "export-buttons" }, download, " ", copy, " ", copied),
  );
}

/** What depends on the unknown cards: the check's sentences (or that it is being asked). */
export function unknownsReport(state, id = "unknowns") {
  const { check } = state;
  const ctx = contextOf(state.log(), state.answer);
  const box = el(
    "section",
    {
      class: "unknowns",
      id,
      "aria-labelledby": `${id}-heading`,
      "aria-live": "polite",
    },
    el("h3", { id: `${id}-heading`, text: t("unknown.heading") }),
  );
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
  line(counted("unknown.played", check.candidates.length));
  const shown = new Set(state.deal.violations.map((v) => v.event));
  for (const seat of check.seats) {
    const name = seatName(ctx, seat.seat);
    const at = { "data-seat": seat.seat };
    if (!seat.checked) {
      line(t("unknown.unchecked", { name, count: seat.unknown, cases: seat.cases }), {
        ...at,
        "data-dependency": "unchecked",
      });
    } else if (!seat.findings.length) {
      line(counted("unknown.none", seat.cases, { name, total: seat.cases }), {
        ...at,
        "data-dependency": "none",
      });
    }
    for (const finding of seat.findings ?? []) {
      line(findingSentence(ctx, seat, finding, check.candidates, shown.has(finding.event)), {
        ...at,
        "data-dependency": finding.cases === seat.cases ? "stands" : "depends",
        "data-trick": finding.trick,
      });
    }
  }
  line(t(`unknown.outcome.${check.outcome}`), { "data-dependency": `outcome-${check.outcome}` });
  box.append(lines);
  return box;
}

/** A prompt with a picker of the cards nobody has placed: "Which card did bea draw?" */
export function candidatePrompt(entry, question, onPick, extra = null) {
  const card = (code) => cardButton(code, entry.deck, () => onPick(code));
  const grid = packPicker(entry.deck, entry.candidates(), card, question);
  return el(
    "section",
    { class: "prompt", role: "group", "aria-labelledby": "prompt-question" },
    el("p", { class: "prompt-question", id: "prompt-question", text: question }),
    grid,
    extra,
  );
}

/** What the check of the unknown cards says of the renuncio just played by a seat holding
 *  unknown cards: {seat, finding} (finding null: not found in every case), or null while it is
 *  not known (the check pending, or none). */
function doubtOf(state) {
  const { check } = state;
  if (!check || check === "pending" || check.error) return null;
  const seat = check.seats.find((s) => s.seat === state.verdictDoubt && s.checked);
  if (!seat) return null;
  const event = state.line.cursor - 1;
  return { seat, finding: seat.findings.find((f) => f.event === event) ?? null };
}

const doubtWords = (name) => t("unknown.verdict_doubt", { name });

/** A renuncio found with one filling of the unknown cards, not in every case: said as a doubt
 *  (the referee's message and correct cards may name a card only the filling put there). */
function doubtfulRenuncio(state, ctx) {
  const doubt = doubtOf(state);
  const name = seatName(ctx, state.verdictDoubt);
  const said =
    doubt && doubt.finding
      ? findingSentence(ctx, doubt.seat, doubt.finding, state.check.candidates, true)
      : t(doubt ? "unknown.verdict_none" : "unknown.verdict_checking", { name });
  return el(
    "div",
    { class: "verdict verdict-doubt", "data-verdict": "renuncio", "data-doubt": "true" },
    el(
      "p",
      { class: "verdict-head" },
      el("strong", {
        text: `${renuncioHeading(words, state.verdict.obligation)} — ${doubtWords(name)}`,
      }),
    ),
    el("p", { class: "message", text: said }),
  );
}

/** What is said under a verdict on a move of a seat holding unknown cards: that the renuncio
 *  stands whatever they are, or that the verdict is for one way of filling them in. */
function doubtNote(state, ctx, stands) {
  if (stands) {
    const { seat, finding } = stands;
    return findingSentence(ctx, seat, finding, state.check.candidates, true);
  }
  return t("unknown.verdict_note", { name: seatName(ctx, state.verdictDoubt) });
}

/** The verdict on the last move, in a live region (redrawn when the check of the unknown
 *  cards answers). */
export function verdictBox(state, ctx = contextOf(state.log(), state.answer)) {
  const box = el("div", {
    class: "verdict-box",
    id: "verdict",
    role: "status",
    "aria-live": "polite",
    "aria-atomic": "true",
  });
  if (!state.verdict) return box;
  if (state.verdictDoubt === null) {
    box.append(verdictElement(state.verdict, ctx.deck, state.fillers()));
    return box;
  }
  const doubt = doubtOf(state);
  const stands = doubt?.finding?.cases === doubt?.seat.cases ? doubt : null;
  if (state.verdict.verdict === "renuncio" && !stands) {
    box.append(doubtfulRenuncio(state, ctx));
    return box;
  }
  box.append(
    verdictElement(state.verdict, ctx.deck, state.fillers()),
    el("p", { class: "hint", text: doubtNote(state, ctx, stands) }),
  );
  return box;
}

/**
 * The play step of the editor's `state`. `prompt`: a prompt to show instead of the hand (a
 * draw or an unknown card to name), or null. `handlers`: onMove, onNameUnknown, onUndo, onRedo,
 * onGoTo, onOriginal, onEditCards.
 */
export function renderTable(state, prompt, handlers) {
  const ctx = contextOf(state.log(), state.answer);
  const hands = state.handsNow();
  const { turn } = state.view;
  // the seats in the order play goes round the table, from the seat to act
  const first = turn ?? 0;
  const others = hands.map((_, i) => (first + i) % hands.length).filter((seat) => seat !== turn);
  const root = el(
    "section",
    {
      class: "at-table",
      "aria-labelledby": "play-heading",
      "data-turn": turn ?? "",
      "data-seats": hands.length,
    },
    el("h2", {
      id: "play-heading",
      text: t("play.heading", { ruleset: t(`ruleset.${ctx.log.ruleset}`) }),
    }),
    factsLine(state, ctx),
    trickNow(state, ctx),
    verdictBox(state, ctx),
  );
  if (prompt) root.append(prompt);
  else if (turn === null) {
    const { answer } = state;
    root.append(
      el("p", {
        class: "deal-over",
        text: answer.status === "invalid" ? answer.illegal.message : t("play.over"),
      }),
      state.canDealAgain()
        ? el(
            "p",
            {},
            button({ "data-action": "next-deal" }, t("play.next_deal"), handlers.onNextDeal),
          )
        : null,
    );
  } else {
    root.append(
      el("p", { class: "turn-line", text: t("play.turn", { name: seatName(ctx, turn) }) }),
      seatPanel(state, ctx, turn, hands[turn], handlers),
    );
  }
  root.append(controls(state, handlers));
  root.append(
    el(
      "div",
      { class: "seats" },
      ...others.map((seat) => seatPanel(state, ctx, seat, hands[seat], handlers)),
    ),
  );
  root.append(rulingSoFar(state, ctx, currentLang()));
  if (state.check) root.append(unknownsReport(state)); // null: nothing to say
  root.append(history(state, ctx, handlers), exported(state));
  return root;
}
