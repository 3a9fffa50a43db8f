// The pages' words and language. The words are the server's catalogue (arbiter/words/page.py),
// sent in the page's data as DATA.strings; nothing here keeps words of its own.

export const DATA = JSON.parse(document.getElementById("arbiter-data").textContent);

const listeners = [];
let lang = document.documentElement.lang === "es" ? "es" : "en";

export function currentLang() {
  return lang;
}

/** The page's text for `key`, with `{field}` filled from `fields` (as text, never markup). */
export function t(key, fields = {}) {
  const text = DATA.strings[lang][key] ?? DATA.strings.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

/** A counted phrase: `key.one` for 1, `key.other` otherwise ("1 deal", "5 deals"). */
export function counted(key, count, fields = {}) {
  return t(`${key}.${count === 1 ? "one" : "other"}`, { ...fields, count });
}

/** The words written in the page's shell (data-t, data-t-label, data-t-placeholder). */
export function applyStaticWords() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) {
    node.setAttribute("aria-label", t(node.dataset.tLabel));
  }
  for (const node of document.querySelectorAll("[data-t-placeholder]")) {
    node.placeholder = t(node.dataset.tPlaceholder);
  }
  for (const link of document.querySelectorAll("[data-lang-switch]")) {
    if (link.dataset.langSwitch === lang) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  for (const link of document.querySelectorAll("header.site nav a, a.brand")) {
    const url = new URL(link.href);
    if (url.origin === location.origin && url.searchParams.has("lang")) {
      url.searchParams.set("lang", lang);
      link.href = url.href;
    }
  }
}

/** Call `listener` after every change of language. */
export function onLangChange(listener) {
  listeners.push(listener);
}

function setLang(next) {
  if (next === lang || !(next in DATA.strings)) return;
  lang = next;
  applyStaticWords();
  const url = new URL(location.href);
  url.searchParams.set("lang", next);
  history.replaceState(null, "", url.href);
  for (const listener of listeners) listener(next);
}

/** The header's ES / EN links switch the language in place (the log stays open). */
export function wireLanguageLinks() {
  for (const link of document.querySelectorAll("[data-lang-switch]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      setLang(link.dataset.langSwitch);
    });
  }
}
