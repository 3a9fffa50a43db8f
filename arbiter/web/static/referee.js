// The referee's view (GET /): open a game log — a file, a drop, a paste, a bundled example or a
// #log= link — send it to this service's own /v1/replays and show the ruling, the verdict first.
// The rules stay on the server: ruling.js draws the answer and stepper.js its steps.
//
// Every string from a log or an answer reaches the page through textContent or an attribute,
// never as markup (the page's Content-Security-Policy enforces it with Trusted Types).

import { button, byId, el } from "./dom.js";
import { EditorState } from "./editorstate.js";
import { fragmentText, logText, readFragment, shareFragment } from "./logcodec.js";
import { contextOf, renderRuling, setFolded } from "./ruling.js";
import { firstIncident, problemLines } from "./rulingtext.js";
import { Service, ServiceError } from "./service.js";
import { closeStepper, toggleStepper } from "./stepper.js";
import { unknownsReport } from "./table.js";
import {
  DATA,
  applyStaticWords,
  currentLang,
  onLangChange,
  t,
  wireLanguageLinks,
  words,
} from "./words.js";

const ruling = byId("ruling");
const service = new Service({ base: document.baseURI, lang: currentLang });

/** The log open on the page (null before any) and the count of answers drawn. */
const opened = { log: null, ctx: null, requests: 0, renders: 0 };

function markRendered(state) {
  opened.renders += 1;
  ruling.dataset.state = state;
  ruling.dataset.render = String(opened.renders);
}

// --- showing --------------------------------------------------------------------------------

function showProblem(heading, lines) {
  closeStepper();
  opened.ctx = null;
  const box = el("div", { class: "problem", role: "alert" }, el("h2", { text: heading }));
  if (lines.length === 1) box.append(el("p", { text: lines[0] }));
  else box.append(el("ul", { class: "errors" }, ...lines.map((line) => el("li", { text: line }))));
  ruling.replaceChildren(box);
  markRendered("error");
}

function placeHref(place) {
  return shareFragment(opened.log, DATA.cards, place);
}

/** Unfold a deal, bring the trick (or the deal) into view and give it the focus. */
function openPlace(place, remember = true) {
  const deal = ruling.querySelector(`#deal-${place.deal}`);
  if (!deal) return;
  setFolded(deal, false);
  const target =
    (place.trick && deal.querySelector(`#deal-${place.deal}-trick-${place.trick}`)) || deal;
  target.scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
  if (remember) history.replaceState(null, "", new URL(placeHref(place), location.href).href);
}

/** The page as it opens on a log: the ruling's sentence first, in the first screen and
 *  focused (a tap on it leads to the trick), the deal of the first incident unfolded. */
function openAtRuling(place) {
  const deal = ruling.querySelector(`#deal-${place.deal}`);
  if (deal) setFolded(deal, false);
  const summary = ruling.querySelector(".summary");
  const sentence =
    ruling.querySelector(
      `[data-summary-deal="${place.deal - 1}"][data-summary-trick="${(place.trick ?? 0) - 1}"]`,
    ) ?? ruling.querySelector(`[data-summary-deal="${place.deal - 1}"]`);
  if (!summary || !sentence) {
    openPlace(place, false);
    return;
  }
  summary.scrollIntoView({ block: "start" });
  sentence.focus({ preventScroll: true });
}

/**
 * For each deal whose log marks cards as unknown (docs/api.md), the editor's report of what
 * depends on them — asked of the referee case by case, as the editor asks — under the deal's
 * note: the ruling says whether a renuncio stands whatever the cards were, or depends on them.
 * `request`: the ruling's request, which a newer log or language makes stale.
 */
async function reportUnknowns(ctx, request) {
  const marked = ctx.answer.deals
    .map((_, index) => index)
    .filter((index) => ctx.log.deals[index]?.unknown?.length > 0);
  if (!marked.length) return;
  ruling.dataset.unknowns = "pending";
  for (const index of marked) {
    const state = new EditorState(DATA, words, service);
    try {
      await state.open(ctx.log, { deal: index + 1 });
      if (state.check === "pending") await state.checkUnknowns();
    } catch (error) {
      state.check = { error: problemLines(words, error).join(" — ") };
    }
    if (request !== opened.requests) return;
    if (state.check && state.answer) {
      ruling
        .querySelector(`[data-unknown-note="${index}"]`)
        ?.after(unknownsReport(state, `unknowns-${index + 1}`));
    }
  }
  ruling.dataset.unknowns = "done";
}

function stepToggle(ctx) {
  return (deal, index) =>
    button({ class: "step-toggle", "aria-expanded": "false" }, t("deal.step"), (event) => {
      const article = event.target.closest("[data-deal]");
      toggleStepper(ctx, index, article.querySelector(".stepper"), event.target, service);
    });
}

function render(answer, place) {
  closeStepper();
  const ctx = contextOf(opened.log, answer);
  opened.ctx = ctx;
  ruling.replaceChildren(
    ...renderRuling(ctx, { placeHref, onOpen: openPlace, stepToggle: stepToggle(ctx) }),
  );
  markRendered("ready");
  reportUnknowns(ctx, opened.requests);
  ruling.dataset.lang = document.documentElement.lang;
  if (place && place.deal) openPlace(place, false);
  else {
    const incident = firstIncident(ctx);
    if (incident) openAtRuling(incident);
  }
}

// --- asking the service ---------------------------------------------------------------------

async function adjudicate(place = null) {
  const request = ++opened.requests;
  ruling.dataset.state = "loading";
  ruling.replaceChildren(el("p", { class: "loading", text: t("state.loading") }));
  let answer;
  try {
    answer = await service.replay(opened.log);
  } catch (error) {
    if (request !== opened.requests) return;
    byId("key-form").hidden = !(error instanceof ServiceError && error.status === 401);
    showProblem(t("error.heading"), problemLines(words, error));
    return;
  }
  if (request !== opened.requests) return; // a newer log or language took over
  byId("key-form").hidden = true;
  render(answer, place);
}

/** Open a log given as text; `share` puts it in the address bar as #log=... */
function openText(text, { share = true, place = null } = {}) {
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
  opened.log = log;
  if (share) {
    history.replaceState(null, "", new URL(shareFragment(log, DATA.cards), location.href).href);
  }
  showShare();
  adjudicate(place);
}

function showShare() {
  byId("share").hidden = false;
  byId("share-link").value = location.href;
  byId("copy-state").textContent = "";
}

function openFragment() {
  let found;
  try {
    found = readFragment(location.hash);
    if (!found) return;
    found.text = fragmentText(found, DATA.cards);
  } catch (error) {
    showProblem(t("error.heading"), [t("error.fragment", { detail: error.message })]);
    return;
  }
  if (opened.log && logText(opened.log) === logText(safeParse(found.text)) && opened.ctx) {
    if (found.deal) openPlace(found, false); // the same log: only the place changed
    return;
  }
  openText(found.text, { share: false, place: found });
}

function safeParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function openFile(file) {
  file.text().then(
    (text) => openText(text),
    (error) => showProblem(t("error.heading"), [t("error.file", { detail: error.message })]),
  );
}

// --- wiring ---------------------------------------------------------------------------------

function wireSources() {
  byId("log-file").addEventListener("change", (event) => {
    const [file] = event.target.files;
    if (file) openFile(file);
    event.target.value = "";
  });
  byId("paste-form").addEventListener("submit", (event) => {
    event.preventDefault();
    openText(byId("paste").value);
  });
  byId("example").addEventListener("change", async (event) => {
    const name = event.target.value;
    if (!name) return;
    try {
      const response = await fetch(
        new URL(`examples/${encodeURIComponent(name)}`, document.baseURI),
        { cache: "no-store" },
      );
      openText(await response.text());
    } catch (error) {
      showProblem(t("error.heading"), [t("error.network", { detail: error.message })]);
    }
  });
  byId("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    service.setApiKey(byId("api-key").value.trim());
    if (opened.log !== null) adjudicate();
  });
}

function wireSharing() {
  byId("copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(byId("share-link").value);
      byId("copy-state").textContent = t("load.copied");
    } catch {
      byId("share-link").select();
    }
  });
  byId("print").addEventListener("click", () => window.print());
  // Paper shows every deal, folded or not (the stylesheet's print rules), and no steps.
  window.addEventListener("beforeprint", closeStepper);
}

function wireDropAndPaste() {
  const carriesFiles = (event) =>
    event.dataTransfer && [...event.dataTransfer.types].includes("Files");
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
    byId("paste").value = text;
    openText(text);
  });
}

wireSources();
wireSharing();
wireDropAndPaste();
wireLanguageLinks();
onLangChange(() => {
  if (opened.log !== null) adjudicate();
});
window.addEventListener("hashchange", openFragment);
applyStaticWords();
openFragment();
document.documentElement.dataset.ready = "true";
