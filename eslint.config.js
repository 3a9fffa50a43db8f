// eslint for the pages' scripts (arbiter/web/static/*.js) and their tests (tests/js/): the
// recommended rules, a bound on each function's complexity and on the line's length, and the
// pure modules kept pure — no browser globals (document, window, location...) and no import of
// a module that has them, so that `node --test` imports them as the page does. `make lint` runs
// it, with prettier's check of the layout.

import js from "@eslint/js";
import globals from "globals";

/** The modules without DOM access (each has its tests in tests/js/<name>.test.js). */
export const PURE = [
  "catalogue",
  "deck",
  "draft",
  "editorstate",
  "entry",
  "entrytext",
  "logcodec",
  "moveline",
  "positionentry",
  "positionrun",
  "rulingtext",
  "seatplaces",
  "service",
  "unknowns",
];

/** The page's modules that draw or read the page: a pure module imports none of them. */
export const DOM = [
  "cards",
  "dom",
  "enter",
  "keys",
  "picker",
  "positionview",
  "referee",
  "ruling",
  "stepper",
  "table",
  "tableform",
  "verdict",
  "words",
];

const STATIC = "arbiter/web/static";

export default [
  // the pages' scripts, their tests and this file; nothing vendored, installed or built
  { ignores: ["node_modules/", ".venv/", "build/", "test-artifacts/", "tests/vendor/"] },
  js.configs.recommended,
  {
    rules: {
      complexity: ["error", 10],
      "max-len": ["error", { code: 100, ignoreUrls: true, ignoreRegExpLiterals: true }],
      "max-depth": ["error", 4],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      curly: ["error", "multi-line"],
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
    },
  },
  {
    files: [`${STATIC}/*.js`],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    files: PURE.map((name) => `${STATIC}/${name}.js`),
    languageOptions: { globals: { ...globals["shared-node-browser"] } },
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: DOM.map((name) => ({ name: `./${name}.js`, message: "a pure module has no DOM" })),
        },
      ],
    },
  },
  {
    files: ["tests/js/*.js", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
