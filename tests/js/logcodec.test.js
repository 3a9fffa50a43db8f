// logcodec.js: a log in a link, and the place in it.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  compactLog,
  decodeLog,
  encodeLog,
  expandLog,
  fragmentText,
  logText,
  readFragment,
  shareFragment,
  writeFragment,
} from "../../arbiter/web/static/logcodec.js";
import { example, examples, pageData, replayed } from "./support.js";

const { cards: CARDS } = await pageData();

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

/** A log as the referee reads it: its fields, without the ones it leaves aside. */
const bare = ({ description: _d, ...log }) => log;

test("every example has a compact form that the referee reads as the log itself", async () => {
  for (const [name, log] of examples()) {
    const compact = compactLog(log, CARDS);
    assert.ok(compact, `${name} has a compact form`);
    const back = expandLog(compact, CARDS);
    const [want, got] = [await replayed(bare(log)), await replayed(back)];
    delete want.state_id;
    delete got.state_id;
    assert.deepEqual(got, want, name);
    const found = readFragment(shareFragment(log, CARDS, { deal: 1, trick: 2 }));
    assert.deepEqual({ deal: found.deal, trick: found.trick }, { deal: 1, trick: 2 });
    assert.deepEqual(JSON.parse(fragmentText(found, CARDS)), back);
  }
});

test("a link of one deal is under 600 characters; an old #log= link still opens", () => {
  const source = example("tute-4p-renuncio.json");
  const one = { ...source, deals: [source.deals[1]] };
  const link = `https://tute.example/?lang=es${shareFragment(one, CARDS)}`;
  assert.ok(link.length < 600, `${link.length} characters`);
  assert.ok(link.length * 5 < `https://tute.example/?lang=es${writeFragment(logText(one))}`.length);
  for (const [, log] of examples()) {
    const deal = { ...log, deals: [log.deals[0]] };
    assert.ok(shareFragment(deal, CARDS).length < 600);
  }
  const old = readFragment(writeFragment(logText(one), { deal: 1 }));
  assert.deepEqual(JSON.parse(fragmentText(old, CARDS)), one);
});

test("every kind of event, a play out of turn, unknown cards and French codes go through", () => {
  const log = {
    ruleset: "tute-2p",
    players: ["a", "b"],
    notation: "french",
    options: { match_target: 5 },
    details: { event: "Open", referee: "Lola" },
    deals: [
      {
        dealer: 1,
        hands: [["AH", "2H"], ["3H"]],
        stock: ["KS"],
        events: [
          { type: "play", seat: 0, card: "AH" },
          { type: "play", seat: 1, card: "2H" },
          { type: "sing", seat: 1, suit: "S" },
          { type: "tute", seat: 0, of: "horses" },
          { type: "exchange", seat: 1 },
        ],
        unknown: ["3H"],
      },
    ],
  };
  assert.deepEqual(expandLog(compactLog(log, CARDS), CARDS), log);
  const dealerless = { ...log, deals: [{ deck: ["AH"], events: [] }] };
  assert.deepEqual(expandLog(compactLog(dealerless, CARDS), CARDS), dealerless);
});

test("a log the compact form cannot hold keeps #log=; a compact form of nothing is refused", () => {
  const source = example("tute-3p.json");
  const odd = (deal) => ({ ...source, deals: [{ ...source.deals[0], ...deal }] });
  for (const log of [
    odd({ note: "a field of its own" }),
    odd({ hands: [["99X"]] }),
    odd({ events: [{ type: "play", seat: 0, card: "1O", why: "?" }] }),
    odd({ events: [{ type: "pass", seat: 0 }] }),
    odd({ events: [{ type: "play", seat: 12, card: "1O" }] }),
    { ...source, deals: "none" },
  ]) {
    assert.equal(compactLog(log, CARDS), null);
    assert.match(shareFragment(log, CARDS), /^#log=/);
  }
  assert.throws(() => expandLog(encodeLog('{"v": 9, "d": []}'), CARDS));
  assert.throws(() => expandLog(encodeLog('{"v": 1, "d": ["0.Q"]}'), CARDS));
  assert.throws(() => expandLog(encodeLog('{"v": 1, "d": ["0.E!xO"]}'), CARDS));
});
