// logcodec.js: a log in a link, and the place in it.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  decodeLog,
  encodeLog,
  logText,
  readFragment,
  writeFragment,
} from "../../arbiter/web/static/logcodec.js";
import { example } from "./support.js";

const LOG = logText({ ruleset: "tute-2p", players: ["Begoña", "José 🂡"], deals: [] });

test("a log goes through a link and comes back, accents and all", () => {
  assert.equal(decodeLog(encodeLog(LOG)), LOG);
  // base64url: no "+", "/" or padding, so the link needs no escaping
  assert.match(encodeLog(LOG), /^[A-Za-z0-9_-]*$/);
  assert.equal(encodeLog(LOG), Buffer.from(LOG, "utf8").toString("base64url"));
});

test("a log longer than one chunk of the encoder is encoded whole", () => {
  const long = logText({ ...example("tute-2p-match.json"), note: "ñ".repeat(40000) });
  assert.ok(new TextEncoder().encode(long).length > 0x8000 * 2);
  assert.equal(encodeLog(long), Buffer.from(long, "utf8").toString("base64url"));
  assert.equal(decodeLog(encodeLog(long)), long);
});

test("padding, standard base64's alphabet and surrounding blanks are accepted", () => {
  const padded = Buffer.from("{}?", "utf8").toString("base64"); // "e30/", no padding needed
  assert.equal(decodeLog(padded), "{}?");
  assert.equal(decodeLog(` ${Buffer.from('{"a":1}').toString("base64")}\n`), '{"a":1}');
  assert.equal(decodeLog(Buffer.from("ab").toString("base64")), "ab"); // "YWI="
});

test("what is not base64url, or not UTF-8, is refused", () => {
  assert.throws(() => decodeLog("not base64!"), /not base64url/);
  assert.throws(() => decodeLog("YW=I"), /not base64url/);
  const latin1 = Buffer.from([0x7b, 0xf1, 0x7d]).toString("base64url"); // "{ñ}" in Latin-1
  assert.throws(() => decodeLog(latin1), TypeError);
});

test("a fragment gives the log and the place, counted from 1", () => {
  const found = readFragment(`#log=${encodeLog(LOG)}&deal=3&trick=6`);
  assert.deepEqual(found, { log: encodeLog(LOG), deal: 3, trick: 6 });
  assert.equal(decodeLog(found.log), LOG);
  assert.deepEqual(readFragment("#log=abc&event=12"), { log: "abc", event: 12 });
  // a place that is no number is left out, not read as NaN
  assert.deepEqual(readFragment("#log=abc&deal=two&trick=1"), { log: "abc", trick: 1 });
  assert.equal(readFragment("#deal=3"), null);
  assert.equal(readFragment(""), null);
  assert.equal(readFragment("#log=abc&Deal=1"), null);
});

test("a fragment written for a place reads back as it", () => {
  const written = writeFragment(LOG, { deal: 2, event: 14, trick: null });
  assert.equal(written, `#log=${encodeLog(LOG)}&deal=2&event=14`);
  const found = readFragment(written);
  assert.deepEqual({ ...found, log: decodeLog(found.log) }, { log: LOG, deal: 2, event: 14 });
  assert.equal(writeFragment(LOG), `#log=${encodeLog(LOG)}`);
});
