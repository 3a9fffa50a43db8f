// The editor's first step: the table — ruleset, players, options (each with the ruleset's
// default shown), the dealer, and how the cards will be entered. The choices a ruleset allows
// come from the server's ruleset data (GET /v1/rulesets, in the page's data).

import { el } from "./dom.js";
import { KNOWN } from "./positionentry.js";
import { DETAILS, DETAIL_LIMIT, optionValueText } from "./rulingtext.js";
import { DATA, t, words } from "./words.js";

function optionControl(name, spec, value) {
  const id = `option-${name}`;
  const label = el(
    "label",
    { for: id },
    el("span", { class: "option-name", text: t(`option.${name}`) }),
  );
  const shownDefault = optionValueText(words, name, spec.default);
  const hint = el("span", {
    class: "hint",
    id: `${id}-default`,
    text: t("table.default", { value: shownDefault }),
  });
  let control;
  if (spec.type === "boolean") {
    control = el(
      "select",
      { id, "aria-describedby": `${id}-default` },
      ...[true, false].map((v) =>
        el("option", { value: String(v), selected: v === value, text: t(`table.${v}`) }),
      ),
    );
  } else if (spec.type === "array") {
    control = el(
      "span",
      { class: "pair", role: "group", "aria-labelledby": `${id}-group` },
      ...[0, 1].map((i) =>
        el(
          "select",
          { id: `${id}-${i}`, "aria-label": `${t(`option.${name}`)} ${i + 1}` },
          ...spec.allowed.map((rank) =>
            el("option", { value: rank, selected: rank === value[i], text: String(rank) }),
          ),
        ),
      ),
    );
    label.id = `${id}-group`;
    label.removeAttribute("for");
  } else if (spec.allowed) {
    control = el(
      "select",
      { id, "aria-describedby": `${id}-default` },
      ...spec.allowed.map((v) =>
        el("option", {
          value: String(v),
          selected: v === value,
          text: optionValueText(words, name, v),
        }),
      ),
    );
  } else {
    control = el("input", {
      id,
      type: "number",
      min: spec.minimum,
      max: spec.maximum,
      value,
      "aria-describedby": `${id}-default`,
    });
  }
  return el("div", { class: "option", "data-option": name }, label, control, hint);
}

/** The table's details (all optional, bounded): event, round, table, date, referee. */
function detailsFields(details) {
  return el(
    "details",
    { class: "details-fields", open: DETAILS.some((name) => details[name]) },
    el("summary", { text: t("details.heading") }),
    ...DETAILS.map((name) =>
      el(
        "div",
        { class: "field" },
        el("label", { for: `detail-${name}`, text: t(`details.${name}`) }),
        el("input", {
          id: `detail-${name}`,
          type: name === "date" ? "date" : "text",
          maxlength: DETAIL_LIMIT,
          autocomplete: "off",
          value: details[name] ?? "",
        }),
      ),
    ),
  );
}

function readOption(form, name, spec) {
  const id = `option-${name}`;
  if (spec.type === "array") {
    return [0, 1].map((i) => Number(form.querySelector(`#${id}-${i}`).value));
  }
  const raw = form.querySelector(`#${id}`).value;
  if (spec.type === "boolean") return raw === "true";
  return spec.type === "integer" ? Number(raw) : raw;
}

/** The ways the cards are entered: hand by hand, the whole deck, or from the disputed trick
 *  (the hands now, the trick on the table, the tricks played: positionentry.js). */
const MODES = ["hands", "deck", "position"];

/** A select of `values` (each [value, text]) with its label, in a field; `fault`: the referee's
 *  words on it, beside it. */
function selectField(id, label, values, selected, fault = null) {
  return el(
    "div",
    { class: "field", "data-field": id },
    el("label", { for: id, text: label }),
    el(
      "select",
      { id, "aria-describedby": fault ? `${id}-fault` : null },
      ...values.map(([value, text]) =>
        el("option", { value, selected: String(value) === String(selected), text }),
      ),
    ),
    fault ? el("p", { class: "field-fault", id: `${id}-fault`, text: fault.join(" ") }) : null,
  );
}

/** How many cards the stock has left (a position start in a ruleset with a stock). */
function stockField(given, fault) {
  return el(
    "div",
    { class: "field", "data-field": "stock-left" },
    el("label", { for: "stock-left", text: t("position.stock_left") }),
    el("input", {
      id: "stock-left",
      type: "number",
      min: 0,
      max: 40,
      value: Number(given.stockLeft ?? 0),
      "aria-describedby": fault ? "stock-left-fault" : null,
    }),
    fault ? el("p", { class: "field-fault", id: "stock-left-fault", text: fault.join(" ") }) : null,
  );
}

/** The words of each answer to what is known of the tricks already played. */
const KNOWN_WORDS = { cards: "position.known.cards", points: "position.known.points" };

/** What is known of the tricks already played: their cards, or who won each and the points. */
function knownField(known) {
  return el(
    "fieldset",
    { class: "known", id: "position-known" },
    el("legend", { text: t("position.known") }),
    ...KNOWN.map((value) =>
      el(
        "label",
        { class: "radio" },
        el("input", {
          type: "radio",
          name: "known",
          value,
          checked: value === known,
          id: `known-${value}`,
        }),
        " ",
        t(KNOWN_WORDS[value]),
      ),
    ),
  );
}

/** The faults the referee said of `ids` (form fields), as one paragraph beside them. */
function faultLine(id, faults) {
  return faults
    ? el("p", { class: "field-fault", id: `${id}-fault`, text: faults.join(" ") })
    : null;
}

/** Each seat's card points so far (the tricks known only by who won them): one number per
 *  seat, as the referee takes them; in pairs, how a side's total is entered, said plainly. */
function pointsFields(ruleset, names, given, seatText, faults) {
  const points = Array.isArray(given.cardPoints) ? given.cardPoints : [];
  const hints = ["position.points_hint", ...(ruleset.pairs ? ["position.points_hint_pairs"] : [])];
  const box = el(
    "fieldset",
    {
      class: "points",
      id: "position-points",
      "data-field": "points",
      "aria-describedby": hints.map((key) => key.replace("position.", "hint-")).join(" "),
    },
    el("legend", { text: t("position.points") }),
    ...hints.map((key) =>
      el("p", { class: "hint", id: key.replace("position.", "hint-"), text: t(key) }),
    ),
    faultLine("points", faults.get("points")),
  );
  names.forEach((_, seat) => {
    const id = `points-${seat}`;
    const fault = faults.get(id);
    box.append(
      el(
        "div",
        { class: "field", "data-field": id },
        el("label", { for: id, text: t("position.points_of", { name: seatText(seat) }) }),
        el("input", {
          id,
          type: "number",
          inputmode: "numeric",
          min: 0,
          max: 200,
          value: Number(points[seat] ?? 0),
          "aria-describedby": fault ? `${id}-fault` : null,
        }),
        faultLine(id, fault),
      ),
    );
  });
  return box;
}

/** Who led each trick (the one on the table last); asked as who won the trick before when
 *  only the winners of the tricks played are known (who won trick i led trick i + 1). */
function leaderFields(tricks, byPoints, seats, given, faults) {
  return Array.from({ length: tricks + 1 }, (_, i) => {
    let label = i < tricks ? t("position.led", { number: i + 1 }) : t("position.led_now");
    if (byPoints && i > 0) label = t("position.won", { number: i });
    const leader = given.leaders?.[i] ?? 0;
    return selectField(`lead-${i}`, label, seats, leader, faults.get(`lead-${i}`));
  });
}

/** A position start's own questions: how many tricks were played, what is known of them (their
 *  cards, or who won each and the points), who led each trick, each seat's card points then
 *  and, with a stock, how many cards it has left. `onChange`: a change that asks other
 *  questions (the count of tricks, what is known of them). */
function positionFields(ruleset, count, names, choice, faults, onChange) {
  const given = choice.position ?? {};
  const most = ruleset.cards_per_player[String(count)] - 1;
  const tricks = Math.min(Math.max(Number(given.tricks ?? 0), 0), most);
  const byPoints = tricks > 0 && given.known === "points";
  const seatText = (seat) => names[seat] || t("table.seat", { number: seat + 1 });
  const seats = names.map((_, seat) => [seat, seatText(seat)]);
  const tricksField = selectField(
    "position-tricks",
    t("position.tricks"),
    Array.from({ length: most + 1 }, (_, k) => [k, String(k)]),
    tricks,
  );
  tricksField.addEventListener("change", onChange);
  const known = tricks > 0 ? knownField(byPoints ? "points" : "cards") : null;
  known?.addEventListener("change", onChange);
  return el(
    "fieldset",
    { class: "position-fields", id: "position-fields" },
    el("legend", { text: t("position.heading") }),
    el("p", { class: "hint", text: t("position.hint") }),
    tricksField,
    known,
    ...leaderFields(tricks, byPoints, seats, given, faults),
    byPoints ? pointsFields(ruleset, names, given, seatText, faults) : null,
    ruleset.stock ? stockField(given, faults.get("stock-left")) : null,
  );
}

/** Each seat's card points as the form has them now (kept as given when not shown). */
function readPoints(form, choice) {
  const shown = [...form.querySelectorAll("input[id^=points-]")];
  if (!shown.length) return choice.position?.cardPoints ?? [];
  return shown.map((field) => Number(field.value) || 0);
}

/** The position start's answers as the form has them now (kept as given when not shown). */
function readPosition(form, choice) {
  const tricksField = form.querySelector("#position-tricks");
  if (!tricksField) return choice.position ?? null;
  const tricks = Number(tricksField.value);
  const leaders = Array.from({ length: tricks + 1 }, (_, i) =>
    Number(form.querySelector(`#lead-${i}`)?.value ?? choice.position?.leaders?.[i] ?? 0),
  );
  const stock = form.querySelector("#stock-left");
  const known = form.querySelector("input[name=known]:checked")?.value;
  return {
    tricks,
    leaders,
    stockLeft: stock ? Number(stock.value) : 0,
    known: known ?? choice.position?.known ?? "cards",
    cardPoints: readPoints(form, choice),
  };
}

/**
 * The table form. `choice` holds what was chosen so far ({ruleset, count, names, notation,
 * options, dealer, mode}); `onDone(choice)` gets the completed choice; `onInput(choice)` what is
 * chosen so far, after every change (the editor keeps it).
 */
export function renderTableForm(choice, onDone, onInput = () => {}, faults = new Map()) {
  const ruleset = DATA.rulesets[choice.ruleset];
  const counts = ruleset.players;
  const count = counts.includes(choice.count) ? choice.count : counts[0];
  const names = Array.from({ length: count }, (_, seat) => choice.names[seat] ?? "");
  const form = el("form", { class: "table-form", id: "table-form", novalidate: true });
  const rerender = (patch) => {
    const next = { ...read(), ...patch };
    const focused = form.contains(document.activeElement) ? document.activeElement.id : "";
    const fresh = renderTableForm(next, onDone, onInput, faults);
    form.replaceWith(fresh);
    // the control just changed keeps the focus (a keyboard goes on from it, not from the top)
    if (focused) fresh.querySelector(`[id="${focused}"]`)?.focus();
    onInput(next);
  };
  const read = () => ({
    ruleset: form.querySelector("#ruleset").value,
    count: Number(form.querySelector("#players-count")?.value ?? count),
    names: names.map((_, seat) => form.querySelector(`#player-${seat}`).value.trim()),
    notation: form.querySelector("#notation").value,
    dealer: Number(form.querySelector("#dealer").value),
    mode: form.querySelector("input[name=mode]:checked").value,
    position: readPosition(form, choice),
    details: Object.fromEntries(
      DETAILS.map((name) => [name, form.querySelector(`#detail-${name}`).value.trim()]),
    ),
    options: Object.fromEntries(
      Object.entries(ruleset.options).map(([name, spec]) => [name, readOption(form, name, spec)]),
    ),
  });

  const rulesetSelect = el(
    "select",
    { id: "ruleset" },
    ...Object.keys(DATA.rulesets).map((name) =>
      el("option", {
        value: name,
        selected: name === choice.ruleset,
        text: `${t(`ruleset.${name}`)} (${name})`,
      }),
    ),
  );
  rulesetSelect.addEventListener("change", () =>
    rerender({ ruleset: rulesetSelect.value, options: {} }),
  );
  form.append(
    el("h2", { text: t("table.heading") }),
    el(
      "div",
      { class: "field" },
      el("label", { for: "ruleset", text: t("table.ruleset") }),
      rulesetSelect,
    ),
  );

  if (counts.length > 1) {
    const countSelect = el(
      "select",
      { id: "players-count" },
      ...counts.map((n) => el("option", { value: n, selected: n === count, text: String(n) })),
    );
    countSelect.addEventListener("change", () => rerender({ count: Number(countSelect.value) }));
    form.append(
      el(
        "div",
        { class: "field" },
        el("label", { for: "players-count", text: t("table.count") }),
        countSelect,
      ),
    );
  }

  const dealer = Math.min(choice.dealer ?? count - 1, count - 1);
  const dealerSelect = el("select", { id: "dealer" });
  const fillDealer = () =>
    dealerSelect.replaceChildren(
      ...names.map((_, seat) =>
        el("option", {
          value: seat,
          selected: seat === Number(dealerSelect.value || dealer),
          text:
            form.querySelector(`#player-${seat}`)?.value.trim() ||
            t("table.seat", { number: seat + 1 }),
        }),
      ),
    );
  const nameFields = el(
    "fieldset",
    { class: "names" },
    el("legend", { text: t(ruleset.pairs ? "table.names_pairs" : "table.names") }),
    ...names.map((name, seat) => {
      const input = el("input", {
        type: "text",
        id: `player-${seat}`,
        value: name,
        autocomplete: "off",
        maxlength: 64,
      });
      input.addEventListener("input", fillDealer);
      return el(
        "div",
        { class: "field" },
        el("label", { for: `player-${seat}`, text: t("table.seat", { number: seat + 1 }) }),
        input,
      );
    }),
  );
  form.append(nameFields);
  fillDealer();
  dealerSelect.value = String(dealer);
  form.append(
    el(
      "div",
      { class: "field" },
      el("label", { for: "dealer", text: t("table.dealer") }),
      dealerSelect,
      el("p", { class: "hint", text: t("table.dealer_hint") }),
    ),
  );

  form.append(
    el(
      "div",
      { class: "field" },
      el("label", { for: "notation", text: t("table.notation") }),
      el(
        "select",
        { id: "notation" },
        ...["spanish", "french"].map((n) =>
          el("option", {
            value: n,
            selected: n === choice.notation,
            text: t(`table.notation.${n}`),
          }),
        ),
      ),
    ),
  );

  const options = el(
    "fieldset",
    { class: "options" },
    el("legend", { text: t("table.options") }),
    ...Object.entries(ruleset.options).map(([name, spec]) =>
      optionControl(name, spec, choice.options[name] ?? spec.default),
    ),
  );
  form.append(options);

  const mode = MODES.includes(choice.mode) ? choice.mode : "hands";
  const modeSet = el(
    "fieldset",
    { class: "mode" },
    el("legend", { text: t("table.mode") }),
    ...MODES.map((m) =>
      el(
        "label",
        { class: "radio" },
        el("input", {
          type: "radio",
          name: "mode",
          value: m,
          checked: m === mode,
          id: `mode-${m}`,
        }),
        " ",
        t(`table.mode.${m}`),
      ),
    ),
  );
  modeSet.addEventListener("change", () => rerender({}));
  form.append(modeSet);
  if (mode === "position") {
    form.append(positionFields(ruleset, count, names, choice, faults, () => rerender({})));
  }

  form.append(detailsFields(choice.details ?? {}));

  const problem = el("p", { class: "form-problem", role: "alert" });
  form.append(
    problem,
    el(
      "div",
      { class: "form-buttons" },
      el("button", { type: "submit", id: "to-cards", text: t("table.next") }),
    ),
  );
  form.addEventListener("input", () => onInput(read()));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const done = read();
    const missing = done.names.findIndex((name) => !name);
    if (missing >= 0) {
      problem.textContent = t("table.name_missing", { number: missing + 1 });
      form.querySelector(`#player-${missing}`).focus();
      return;
    }
    if (new Set(done.names).size !== done.names.length) {
      problem.textContent = t("table.names_twice");
      return;
    }
    onDone(done);
  });
  return form;
}
