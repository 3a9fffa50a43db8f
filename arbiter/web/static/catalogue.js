// The page's words in one language: the server's catalogue (arbiter/words/page.py), read here
// and never added to. No DOM: words.js gives the page its one Words; the tests make their own.

export class Words {
  /** `strings`: {lang: {key: text}} (the page data's `strings`); `lang`: "es" or "en". */
  constructor(strings, lang = "en") {
    this.strings = strings;
    this.lang = lang in strings ? lang : "en";
    // bound, so that a part of the page can take `const { t } = words`
    this.t = (key, fields) => this.text(key, fields);
    this.counted = (key, count, fields = {}) =>
      this.text(`${key}.${count === 1 ? "one" : "other"}`, { ...fields, count });
  }

  /** The text for `key`, with `{field}` filled from `fields` (as text, never markup); English
   *  when the language lacks it, the key itself when nothing has it. */
  text(key, fields = {}) {
    const found = this.strings[this.lang][key] ?? this.strings.en[key] ?? key;
    return found.replace(/\{(\w+)\}/g, (whole, name) =>
      name in fields ? String(fields[name]) : whole,
    );
  }

  /** A sentence of these words that may begin with a field ("dos de espadas ya está…"). */
  sentence(key, fields) {
    const text = this.text(key, fields);
    return text.charAt(0).toLocaleUpperCase(this.lang) + text.slice(1);
  }
}
