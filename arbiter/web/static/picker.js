// The editor's second step: the cards, one tap each. The picker shows the ruleset's pack (40
// cards, fewer where the ruleset takes some out); a tap gives the card to the place being
// filled (a hand, the turned or shown card, the stock, or the next card of the deck), and the
// next place follows by itself. A card given twice is refused, and what is still missing is
// said in words, all the time.

import { cardButton, unknownCard } from "./cards.js";
import { button, el } from "./dom.js";
import { UNKNOWN } from "./entry.js";
import { t } from "./words.js";

/** The name of a place for people: "ana's hand", "the stock", "the deck (card 12)". */
export function placeName(target, names, index = null) {
  switch (target.kind) {
    case "hand": return t("entry.place.hand", { name: names[target.seat] });
    case "deck": return index === null ? t("entry.place.deck") : t("entry.place.deck_at", { number: index + 1 });
    default: return t(`entry.place.${target.kind}`);
  }
}

function targetSection(entry, target, names, update) {
  const cards = entry.slots[target.id];
  const current = entry.current === target.id;
  const head = button({ class: "target-head", "aria-pressed": current ? "true" : "false", "data-target-choose": target.id },
    t("entry.target", { place: placeName(target, names), count: cards.length, size: target.size }),
    () => update(() => entry.choose(target.id)));
  const shown = el("div", { class: "slots" }, ...cards.map((code, index) => {
    const remove = () => update(() => entry.remove(target.id, index));
    if (code === UNKNOWN) return unknownCard(t("entry.unknown_remove"), remove);
    const control = cardButton(code, entry.deck, remove, t("entry.remove"));
    if (entry.slots.trump && entry.slots.trump[0] === code && target.kind === "hand") control.classList.add("shown-trump");
    return control;
  }));
  const left = target.size - cards.length;
  if (left > 0 && target.size <= 12) for (let i = 0; i < left; i++) shown.append(el("span", { class: "slot-empty", "aria-hidden": "true" }));
  return el("section", { class: `target${current ? " current" : ""}`, "data-target": target.id, "data-seat": target.seat ?? null },
    el("h3", {}, head), shown);
}

function pickerGrid(entry, names, give) {
  const given = new Map();
  for (const target of entry.targets) {
    if (target.kind === "trump") continue;
    entry.slots[target.id].forEach((code, index) => given.set(code, placeName(target, names, target.kind === "deck" ? index : null)));
  }
  const rows = entry.deck.suits().map((suit) => {
    const codes = entry.pack().filter((code) => entry.deck.suitOf(code) === suit);
    if (!codes.length) return null;
    return el("div", { class: "pick-row", role: "group", "aria-label": entry.deck.suitName(suit) },
      ...codes.map((code) => {
        const where = given.get(code);
        const control = cardButton(code, entry.deck, () => give(code), where ? t("entry.given_to", { place: where }) : "");
        control.dataset.pickCard = code;
        if (where) {
          control.classList.add("given");
          control.append(el("span", { class: "given-mark", "aria-hidden": "true", text: "✓" }));
        }
        return control;
      }));
  });
  return el("div", { class: "picker", role: "group", "aria-label": t("entry.pack") }, ...rows);
}

/** A sentence of the page's words that may begin with a field ("dos de espadas ya está…"). */
function sentence(key, fields) {
  const text = t(key, fields);
  return text.charAt(0).toLocaleUpperCase(document.documentElement.lang) + text.slice(1);
}

function missingText(entry, names) {
  const parts = entry.missing().map((m) => t(m.key, { place: placeName(m.target, names), count: m.count }));
  return parts.length ? t("entry.missing", { parts: parts.join("; ") }) : t("entry.complete");
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
    const now = entry.complete() ? t("entry.now_done")
      : t({ trump: "entry.now_trump", deck: "entry.now_deck", turned: "entry.now_deck" }[target.kind] ?? "entry.now", { place: placeName(target, names, target.kind === "deck" ? entry.slots.deck.length : null), dealer: names[entry.dealer] });
    const actions = el("div", { class: "entry-actions" });
    if (!entry.complete() && entry.allowsUnknown(target)) {
      actions.append(button({ class: "secondary", "data-action": "unknown" }, t("entry.unknown"), () => update(() => refuse(entry.giveUnknown()))),
        button({ class: "secondary", "data-action": "rest-unknown" }, t(target.kind === "stock" ? "entry.stock_unknown" : "entry.rest_unknown"),
          () => update(() => refuse(entry.restUnknown()))));
    }
    const start = button({ id: "start-play", "data-action": "start" }, t("entry.start"), onStart);
    start.disabled = !entry.complete();
    root.replaceChildren(
      el("h2", { id: "entry-heading", text: t("entry.heading") }),
      el("p", { class: "entry-now", id: "entry-now", "aria-live": "polite", text: now }),
      actions,
      pickerGrid(entry, names, (code) => update(() => refuse(entry.give(code)), code)),
      el("p", { class: "entry-message", id: "entry-message", role: "alert", "data-refused": message ? "true" : null, text: message }),
      el("p", { class: "entry-missing", id: "entry-missing", role: "status", text: missingText(entry, names) }),
      el("div", { class: "targets" }, ...entry.targets.map((target) => targetSection(entry, target, names, update))),
      el("div", { class: "form-buttons" }, button({ class: "secondary", "data-action": "back" }, t("entry.back"), onBack), start));
    if (focusCode) root.querySelector(`[data-pick-card="${focusCode}"]`)?.focus({ preventScroll: true });
    onDraw();
  };
  const refuse = (result) => {
    if (result.refused) {
      const place = result.fields.place;
      const key = result.refused === "entry.refused.twice" && place.target.kind === "deck" ? "entry.refused.twice_deck" : result.refused;
      message = sentence(key, {
        card: entry.deck.label(lastCode),
        place: place ? placeName(place.target, names, place.target.kind === "deck" ? place.index : null) : "",
        dealer: names[entry.dealer],
      });
    }
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
