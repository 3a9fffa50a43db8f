// The page's data and language. The data (rulesets, packs, cards, words) is the server's, sent in
// the page as DATA; the words are its catalogue (arbiter/words/page.py) through catalogue.js, and
// nothing here keeps words of its own. This module reads the document: the pure modules are given
// DATA and `words` instead.

import { Words } from "./catalogue.js";

export const DATA = JSON.parse(document.getElementById("arbiter-data").textContent);

/** The page's one catalogue in the page's language (a change of language changes it in place). */
export const words = new Words(DATA.strings, document.documentElement.lang === "es" ? "es" : "en");

const listeners = [];

export function currentLang() {
  return words.lang;
}

/** The page's text for `key`, with `{field}` filled from `fields` (as text, never markup). */
export const t = words.t;

/** A counted phrase: `key.one` for 1, `key.other` otherwise ("1 deal", "5 deals"). */
export const counted = words.counted;

/** The words written in the page's shell (data-t, data-t-label, data-t-placeholder). */
export function applyStaticWords() {
  document.documentElement.lang = words.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) {
    node.setAttribute("aria-label", t(node.dataset.tLabel));
  }
  for (const node of document.querySelectorAll("[data-t-placeholder]")) {
    node.placeholder = t(node.dataset.tPlaceholder);
  }
  for (const link of document.querySelectorAll("[data-lang-switch]")) {
    if (link.dataset.langSwitch === words.lang) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  for (const link of document.querySelectorAll("header.site nav a, a.brand")) {
    const url = new URL(link.href);
    if (url.origin === location.origin && url.searchParams.has("lang")) {
      url.searchParams.set("lang", words.lang);
      link.href = url.href;
    }
  }
}

/** Call `listener` after every change of language. */
export function onLangChange(listener) {
  listeners.push(listener);
}

function setLang(next) {
  if (next === words.lang || !(next in DATA.strings)) return;
  words.lang = next;
  applyStaticWords();
  const url = new URL(location.href);
  url.searchParams.set("lang", next);
  history.replaceState(history.state, "", url.href); // what the page kept there stays
  for (const listener of listeners) listener(next);
}

/** The header's ES / EN links switch the language in place (the log stays open); the skip link
 *  moves the focus past the header without touching the address (which holds the log). */
export function wireLanguageLinks() {
  for (const skip of document.querySelectorAll(".skip-link")) {
    skip.addEventListener("click", (event) => {
      event.preventDefault();
      document.getElementById("main").focus();
    });
  }
  for (const link of document.querySelectorAll("[data-lang-switch]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      setLang(link.dataset.langSwitch);
    });
  }
}
