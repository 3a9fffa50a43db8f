// The page's modules as eslint.config.js sorts them: each pure (no DOM, tested here in
// tests/js/<name>.test.js) or of the DOM — a new module is one or the other, never neither.

import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { DOM, PURE } from "../../eslint.config.js";
import { ROOT } from "./support.js";

const STATIC = join(ROOT, "arbiter", "web", "static");

test("every module of the page is pure or of the DOM, and each pure one has its tests", () => {
  const modules = readdirSync(STATIC)
    .filter((name) => name.endsWith(".js"))
    .map((name) => name.slice(0, -3));
  assert.deepEqual([...PURE, ...DOM].sort(), modules.sort());
  for (const name of PURE) {
    assert.ok(existsSync(join(ROOT, "tests", "js", `${name}.test.js`)), `${name}.js has no tests`);
  }
});

test("a pure module loads without a document, as node loads it", async () => {
  assert.equal(globalThis.document, undefined);
  for (const name of PURE) await import(join(STATIC, `${name}.js`));
});
