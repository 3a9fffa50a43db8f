// catalogue.js: the page's words, from the server's catalogue.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Words } from "../../arbiter/web/static/catalogue.js";
import { pageData } from "./support.js";

const { strings } = await pageData();

test("a word's fields are filled as text, and a field not given stays as written", () => {
  const words = new Words(strings, "es");
  assert.equal(
    words.t("step.play", { name: "Lola", card: "el as de oros" }),
    "Lola juega el as de oros",
  );
  assert.equal(words.t("step.play", { name: "<b>{card}</b>" }), "<b>{card}</b> juega {card}");
  assert.equal(words.t("step.play", { name: 0, card: null }), "0 juega null");
});

test("both languages, English where a word is missing, the key where nobody has it", () => {
  const own = { en: { only: "english", both: "both" }, es: { both: "ambos" } };
  const es = new Words(own, "es");
  assert.equal(es.t("both"), "ambos");
  assert.equal(es.t("only"), "english");
  assert.equal(es.t("no.such.key"), "no.such.key");
  assert.equal(new Words(own, "fr").lang, "en"); // a language the catalogue lacks: English
});

test("a count picks the singular for one and the plural otherwise", () => {
  const words = new Words(strings, "en");
  assert.equal(words.counted("ruling.deals", 1), "1 deal");
  assert.equal(words.counted("ruling.deals", 0), "0 deals");
  assert.equal(words.counted("ruling.deals", 5), "5 deals");
  words.lang = "es"; // a change of language takes effect in place, for `t` taken before too
  const { counted } = words;
  assert.equal(counted("ruling.deals", 1), "1 mano");
});

test("a sentence begins with a capital in its language, whatever field begins it", () => {
  const own = { en: { key: "{card} is taken" }, tr: { key: "{card} alındı" } };
  assert.equal(new Words(own, "en").sentence("key", { card: "ás de oros" }), "Ás de oros is taken");
  // Turkish capitalises the dotted i as İ: the language's own rule, not English's
  assert.equal(new Words(own, "tr").sentence("key", { card: "iki" }), "İki alındı");
});
