// The editor's second step: the cards, one tap each. The picker shows the ruleset's pack (40
// cards, fewer where the ruleset takes some out); a tap gives the card to the place being
// filled (a hand, the turned or shown card, the stock, or the next card of the deck), and the
// next place follows by itself. A card given twice is refused, and what is still missing is
// said in words, all the time.

import { cardButton, unknownCard } from "./cards.js";
import { button, byId, el } from "./dom.js";
import { UNKNOWN } from "./entry.js";
import { missingText, nowText, placeName, refusalText } from "./entrytext.js";
import { t, words } from "./words.js";

/** The places of a slot list in the order they are shown: a hand by suit and rank (the
 *  pack's order, unknown cards last), checked at a glance; a stock or a deck as entered, since
 *  their order is the deal's. */
function shownOrder(entry, target) {
  const cards = entry.slots[target.id];
  const places = cards.map((_, index) => index);
  if (target.kind !== "hand") return places;
  const rank = (code) => (code === UNKNOWN ? Infinity : entry.pack().indexOf(code));
  return places.sort((a, b) => rank(cards[a]) - rank(cards[b]));
}

/** The form where cards are typed as text ("1O 3O 12O 7C"), given to the places in turn. */
function typeForm(onGive) {
  const input = el("input", {
    id: "type-cards",
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    autocapitalize: "characters",
  });
  const form = el(
    "form",
    { class: "type-cards", id: "type-form" },
    el("label", { for: "type-cards", text: t("entry.type_label") }),
    " ",
    input,
    " ",
    el("button", { type: "submit", class: "secondary", text: t("entry.type_submit") }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onGive(input.value);
  });
  return form;
}

/** The refusal of the last tap, in the alert line (with the way to move the card, if any). */
function messageLine(message, move) {
  return el(
    "p",
    {
      class: "entry-message",
      id: "entry-message",
      role: "alert",
      "data-refused": message ? "true" : null,
    },
    message,
    move ? " " : null,
    move,
  );
}

/** "Move it to bea's hand": a card given to the wrong hand, moved where it belongs. */
function moveButton(entry, names, code, update) {
  const place = placeName(words, entry.target(), names);
  return button(
    { class: "secondary", "data-action": "move-here", "data-card": code },
    t("entry.move_here", { place }),
    () => update(() => entry.moveHere(code), code),
  );
}

/** What the page filled in by itself: the last hand (null: nothing). */
function filledNote(filled, names) {
  if (!filled) return ""; // nothing (replaceChildren would write a null as the text "null")
  return el("p", {
    class: "notice",
    id: "entry-filled",
    role: "status",
    text: words.sentence("entry.last_hand", {
      count: filled.count,
      place: placeName(words, filled.target, names),
    }),
  });
}

function targetSection(entry, target, names, update) {
  const cards = entry.slots[target.id];
  const current = entry.current === target.id;
  const head = button(
    {
      class: "target-head",
      "aria-pressed": current ? "true" : "false",
      "data-target-choose": target.id,
    },
    t("entry.target", {
      place: placeName(words, target, names),
      count: cards.length,
      size: target.size,
    }),
    () => update(() => entry.choose(target.id)),
  );
  const shown = el(
    "div",
    { class: "slots" },
    ...shownOrder(entry, target).map((index) => {
      const code = cards[index];
      const remove = () => update(() => entry.remove(target.id, index));
      if (code === UNKNOWN) return unknownCard(t("entry.unknown_remove"), remove);
      const control = cardButton(code, entry.deck, remove, t("entry.remove"));
      if (entry.slots.trump && entry.slots.trump[0] === code && target.kind === "hand") {
        control.classList.add("shown-trump");
      }
      return control;
    }),
  );
  const left = target.size - cards.length;
  if (left > 0 && target.size <= 12 && !target.free) {
    for (let i = 0; i < left; i++) {
      shown.append(el("span", { class: "slot-empty", "aria-hidden": "true" }));
    }
  }
  return el(
    "section",
    {
      class: `target${current ? " current" : ""}`,
      "data-target": target.id,
      "data-seat": target.seat ?? null,
    },
    el("h3", {}, head),
    shown,
  );
}

function pickerGrid(entry, names, give) {
  const given = new Map();
  for (const target of entry.targets) {
    if (target.kind === "trump") continue;
    entry.slots[target.id].forEach((code, index) =>
      given.set(code, placeName(words, target, names, index)),
    );
  }
  const card = (code) => {
    const where = given.get(code);
    const control = cardButton(
      code,
      entry.deck,
      () => give(code),
      where ? t("entry.given_to", { place: where }) : "",
    );
    if (where) {
      control.classList.add("given");
      control.append(el("span", { class: "given-mark", "aria-hidden": "true", text: "✓" }));
    }
    return control;
  };
  return packPicker(entry.deck, entry.pack(), card, t("entry.pack"));
}

/**
 * The compact picker of `codes` (a pack, or the cards a place may hold): a row of small cards
 * per suit, every card of a pack on one phone screen. `card(code)` makes a card's control;
 * `label`: the group's name.
 */
export function packPicker(deck, codes, card, label) {
  const rows = deck.suits().map((suit) => {
    const ofSuit = codes.filter((code) => deck.suitOf(code) === suit);
    if (!ofSuit.length) return null;
    return el(
      "div",
      { class: "pick-row", role: "group", "aria-label": deck.suitName(suit) },
      ...ofSuit.map((code) => {
        const control = card(code);
        control.dataset.pickCard = code;
        return control;
      }),
    );
  });
  return el("div", { class: "picker", role: "group", "aria-label": label }, ...rows);
}

/** The start button's words: play the deal, or play from the position entered. */
const startWords = (entry) => t(entry.mode === "position" ? "position.start" : "entry.start");

/**
 * The cards step. `names`: the players; `onStart()` when the organiser starts play; `onBack()`
 * back to the table; `onDraw()` after each change is drawn. A refusal stays in the alert line
 * until the next tap.
 */
export function renderPicker(entry, names, { onStart, onBack, onDraw = () => {} }) {
  const root = el("section", { class: "entry", "aria-labelledby": "entry-heading" });
  let message = "";
  const draw = (focusCode = null) => {
    const target = entry.target();
    const now = nowText(words, entry, names);
    const actions = el("div", { class: "entry-actions" });
    if (!entry.complete() && entry.allowsUnknown(target)) {
      actions.append(
        button({ class: "secondary", "data-action": "unknown" }, t("entry.unknown"), () =>
          update(() => refuse(entry.giveUnknown())),
        ),
        button(
          { class: "secondary", "data-action": "rest-unknown" },
          t(target.kind === "stock" ? "entry.stock_unknown" : "entry.rest_unknown"),
          () => update(() => refuse(entry.restUnknown())),
        ),
      );
    }
    const start = button({ id: "start-play", "data-action": "start" }, startWords(entry), onStart);
    start.disabled = !entry.complete();
    root.replaceChildren(
      el("h2", { id: "entry-heading", text: t("entry.heading") }),
      el("p", { class: "entry-now", id: "entry-now", "aria-live": "polite", text: now }),
      actions,
      typeForm((text) =>
        update(() => {
          const typed = entry.giveText(text);
          message = typed.refused
            .map(({ text: code, result }) => refusalText(words, entry, names, result, code))
            .join(" ");
        }, "type-cards"),
      ),
      pickerGrid(entry, names, (code) => update(() => refuse(entry.give(code)), code)),
      messageLine(message, movable && moveButton(entry, names, movable, update)),
      filledNote(filled, names),
      el("p", {
        class: "entry-missing",
        id: "entry-missing",
        role: "status",
        text: missingText(words, entry, names),
      }),
      el(
        "div",
        { class: "targets" },
        ...entry.targets.map((target) => targetSection(entry, target, names, update)),
      ),
      el(
        "div",
        { class: "form-buttons" },
        button({ class: "secondary", "data-action": "back" }, t("entry.back"), onBack),
        start,
      ),
    );
    if (focusCode === "type-cards") byId("type-cards")?.focus({ preventScroll: true });
    else if (focusCode) {
      root.querySelector(`[data-pick-card="${focusCode}"]`)?.focus({ preventScroll: true });
    }
    onDraw();
  };
  let movable = null; // a card refused as given twice that may move to the hand being filled
  const refuse = (result) => {
    if (result.refused) message = refusalText(words, entry, names, result, lastCode);
    if (result.refused === "entry.refused.twice" && entry.canMoveHere(lastCode)) {
      movable = lastCode;
    }
  };
  let lastCode = null;
  let filled = null; // the last hand, filled by itself after the last change
  const update = (change, code = null) => {
    lastCode = code;
    message = "";
    movable = null;
    change();
    filled = entry.fillLastHand();
    draw(code);
  };
  draw();
  return root;
}
