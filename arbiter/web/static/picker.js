// The editor's second step: the cards, one tap each. The picker shows the ruleset's pack (40
// cards, fewer where the ruleset takes some out); a tap gives the card to the place being
// filled (a hand, the turned or shown card, the stock, or the next card of the deck), and the
// next place follows by itself. A card given twice is refused, and what is still missing is
// said in words, all the time.

import { cardButton, unknownCard } from "./cards.js";
import { button, el } from "./dom.js";
import { UNKNOWN } from "./entry.js";
import { missingText, nowText, placeName, refusalText } from "./entrytext.js";
import { t, words } from "./words.js";

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
    ...cards.map((code, index) => {
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
  if (left > 0 && target.size <= 12) {
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
    const start = button({ id: "start-play", "data-action": "start" }, t("entry.start"), onStart);
    start.disabled = !entry.complete();
    root.replaceChildren(
      el("h2", { id: "entry-heading", text: t("entry.heading") }),
      el("p", { class: "entry-now", id: "entry-now", "aria-live": "polite", text: now }),
      actions,
      pickerGrid(entry, names, (code) => update(() => refuse(entry.give(code)), code)),
      el("p", {
        class: "entry-message",
        id: "entry-message",
        role: "alert",
        "data-refused": message ? "true" : null,
        text: message,
      }),
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
    if (focusCode) {
      root.querySelector(`[data-pick-card="${focusCode}"]`)?.focus({ preventScroll: true });
    }
    onDraw();
  };
  const refuse = (result) => {
    if (result.refused) message = refusalText(words, entry, names, result, lastCode);
  };
  let lastCode = null;
  const update = (change, code = null) => {
    lastCode = code;
    message = "";
    change();
    draw(code);
  };
  draw();
  return root;
}
