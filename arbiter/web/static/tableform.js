// The editor's first step: the table — ruleset, players, options (each with the ruleset's
// default shown), the dealer, and how the cards will be entered. The choices a ruleset allows
// come from the server's ruleset data (GET /v1/rulesets, in the page's data).

import { el } from "./dom.js";
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

/**
 * The table form. `choice` holds what was chosen so far ({ruleset, count, names, notation,
 * options, dealer, mode}); `onDone(choice)` gets the completed choice; `onInput(choice)` what is
 * chosen so far, after every change (the editor keeps it).
 */
export function renderTableForm(choice, onDone, onInput = () => {}) {
  const ruleset = DATA.rulesets[choice.ruleset];
  const counts = ruleset.players;
  const count = counts.includes(choice.count) ? choice.count : counts[0];
  const names = Array.from({ length: count }, (_, seat) => choice.names[seat] ?? "");
  const form = el("form", { class: "table-form", id: "table-form", novalidate: true });
  const rerender = (patch) => {
    const next = { ...read(), ...patch };
    form.replaceWith(renderTableForm(next, onDone, onInput));
    onInput(next);
  };
  const read = () => ({
    ruleset: form.querySelector("#ruleset").value,
    count: Number(form.querySelector("#players-count")?.value ?? count),
    names: names.map((_, seat) => form.querySelector(`#player-${seat}`).value.trim()),
    notation: form.querySelector("#notation").value,
    dealer: Number(form.querySelector("#dealer").value),
    mode: form.querySelector("input[name=mode]:checked").value,
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

  const mode = choice.mode === "deck" ? "deck" : "hands";
  form.append(
    el(
      "fieldset",
      { class: "mode" },
      el("legend", { text: t("table.mode") }),
      ...["hands", "deck"].map((m) =>
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
    ),
  );

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
