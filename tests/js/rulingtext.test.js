// rulingtext.js: the ruling in words, from the referee's own answers to the bundled examples.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ServiceError } from "../../arbiter/web/static/service.js";
import {
  actionLabel,
  canteNote,
  cardsPhrase,
  dealLine,
  describeEvent,
  findingSentence,
  firstIncident,
  illegalSentence,
  matchGoal,
  moveText,
  optionValueText,
  optionsText,
  tableDetails,
  problemLines,
  rulingContext,
  runningTotals,
  seatNames,
  totalsAfterTrick,
  totalsText,
  trumpText,
  verdictSentence,
} from "../../arbiter/web/static/rulingtext.js";
import { example, pageData, replayed, wordsIn } from "./support.js";

const DATA = await pageData();
const en = await wordsIn("en");
const es = await wordsIn("es");

async function ruling(name, words = en, edit = (log) => log) {
  const log = edit(example(name));
  return rulingContext(DATA, words, log, await replayed(log, words.lang));
}

test("events in words, in either language", async () => {
  const ctx = await ruling("tute-2p-match.json", es);
  const [first] = ctx.log.deals[0].events;
  assert.equal(
    describeEvent(ctx, first),
    `${ctx.names[first.seat]} juega ${ctx.deck.name(first.card)}`,
  );
  assert.equal(describeEvent(ctx, { type: "sing", seat: 1, suit: "c" }), "bea canta en copas");
  const tute = es.t("step.tute", { name: "ana", of: es.t("of.kings") });
  assert.equal(describeEvent(ctx, { type: "tute", seat: 0, of: "kings" }), tute);
  assert.equal(describeEvent(ctx, { type: "bid", seat: 0 }), '{"type":"bid","seat":0}');
  assert.equal(describeEvent(ctx, 12), "12");
  assert.equal(
    actionLabel(ctx, { type: "sing", suit: "o" }),
    es.t("action.sing", { suit: "oros" }),
  );
  assert.equal(
    actionLabel(ctx, { type: "tute", of: "horses" }),
    es.t("action.tute", { of: es.t("of.horses") }),
  );
  assert.equal(moveText(ctx, { type: "exchange" }), es.t("move.exchange"));
});

test("the verdict's sentence: the deciding renuncio and its effect, others after", async () => {
  const ctx = await ruling("tute-4p-renuncio.json");
  const index = ctx.answer.deals.findIndex((deal) => deal.violations.length);
  const deal = ctx.answer.deals[index];
  const [first] = deal.violations;
  const sentence = verdictSentence(ctx, index, first);
  assert.ok(
    sentence.startsWith(
      `Deal ${index + 1}: ${ctx.names[first.seat]} renounced in trick ${first.trick + 1}`,
    ),
  );
  assert.ok(sentence.includes(en.t(`failed.${first.obligation}`)));
  const losers = seatNames(ctx, deal.outcome.losers);
  assert.ok(
    sentence.endsWith(
      `; ${en.counted("summary.lose", deal.outcome.losers.length, { names: losers })}`,
    ),
    sentence,
  );
  const later = { ...first, trick: first.trick + 1, event: first.event + 4 };
  const more = verdictSentence(ctx, index, later);
  assert.ok(more.startsWith("Also in deal"), more);
  assert.ok(!more.includes(";"), "what the deal came to is said once, with the first");
  assert.deepEqual(firstIncident(ctx), { deal: index + 1, trick: first.trick + 1 });
});

test("an illegal event: where the referee stopped, in its words", async () => {
  const ctx = await ruling("tute-2p-illegal.json");
  const { illegal } = ctx.answer;
  assert.equal(
    illegalSentence(ctx, illegal),
    `Deal ${illegal.deal + 1}: the referee stopped at event ${illegal.event + 1}` +
      ` — ${illegal.message}`,
  );
  assert.equal(
    illegalSentence(ctx, { ...illegal, event: null }).split(" — ")[0],
    "Deal 1: the referee did not play it",
  );
  assert.deepEqual(firstIncident(ctx), { deal: illegal.deal + 1, trick: null });
});

test("each deal's line says who won and how, or that it is unfinished", async () => {
  const ctx = await ruling("tute-2p-match.json");
  for (const deal of ctx.answer.deals) {
    const { winners, losers, reason } = deal.outcome;
    assert.equal(
      dealLine(ctx, deal),
      `winners: ${seatNames(ctx, winners)} · losers: ${seatNames(ctx, losers)}` +
        ` (${en.t(`reason.${reason}`)})`,
    );
  }
  const open = await ruling("tute-4p-in-progress.json");
  assert.equal(dealLine(open, open.answer.deals.at(-1)), "unfinished");
  assert.equal(
    dealLine(ctx, { outcome: { winners: [], losers: [], reason: "tie" } }),
    "no winner (tie)",
  );
});

test("running totals by side in pairs, and after each trick as the steps have them", async () => {
  const ctx = await ruling("tute-4p-renuncio.json");
  const deal = ctx.answer.deals[0];
  const totals = runningTotals(ctx, deal, deal.steps.at(-1).totals);
  assert.deepEqual(
    totals.map((g) => g.seats),
    deal.sides.map((s) => s.seats),
  );
  assert.match(totalsText(ctx, totals), /^\S+ \+ \S+ \d+ · \S+ \+ \S+ \d+$/);
  const lastTrick = deal.tricks.length - 1;
  assert.deepEqual(totalsAfterTrick(deal, lastTrick), deal.steps.at(-1).totals);
  assert.deepEqual(totalsAfterTrick(deal, -1), deal.steps[0].totals);
  const solo = await ruling("tute-3p.json");
  assert.deepEqual(
    runningTotals(solo, solo.answer.deals[0], [1, 2, 3]).map((g) => g.total),
    [1, 2, 3],
  );
});

test("a called trump: by which call, and the call's note says it made trump", async () => {
  const ctx = await ruling("tute-cabron-match.json");
  const deal = ctx.answer.deals.find((d) => d.cantes.length);
  const [call, ...others] = deal.cantes;
  assert.equal(
    trumpText(ctx, deal),
    `${ctx.deck.suitName(deal.trump)} — fixed by the first call (trick ${call.trick + 1})`,
  );
  assert.ok(
    canteNote(ctx, deal, call).endsWith(`; ${ctx.deck.suitName(call.suit)} is trump from now on`),
  );
  for (const other of others) assert.ok(!canteNote(ctx, deal, other).includes("trump"));
  assert.equal(
    trumpText(ctx, { ...deal, trump: null, cantes: [], finished: true }),
    "none: no call in this deal",
  );
  const turned = await ruling("tute-3p.json");
  assert.equal(
    trumpText(turned, turned.answer.deals[0]),
    turned.deck.suitName(turned.answer.deals[0].trump),
  );
  assert.ok(
    canteNote(turned, turned.answer.deals[0], {
      seat: 0,
      points: 20,
      suit: "C",
      trick: 1,
    }).endsWith("sings 20 in copas"),
  );
});

test("the options as the log sets them, and the match's target", async () => {
  const ctx = await ruling("tute-2p-match.json");
  assert.equal(optionsText(ctx), "Deals that win the match: 3");
  assert.equal(matchGoal(ctx), 3);
  const plain = await ruling("tute-2p-match.json", en, ({ options: _options, ...log }) => log);
  assert.equal(optionsText(plain), en.t("ruling.no_options"));
  assert.equal(matchGoal(plain), DATA.rulesets["tute-2p"].options.match_target.default);
});

test("a problem in lines: status and title, each error with its pointer, never twice", () => {
  const problem = new ServiceError(
    422,
    {
      title: "Unprocessable",
      detail: "2 errors",
      request_id: "abc",
      errors: [{ pointer: "/deals/0/hands", message: "a card twice" }, { message: "no place" }],
    },
    "422",
  );
  assert.deepEqual(problemLines(en, problem), [
    "422 Unprocessable",
    "/deals/0/hands: a card twice",
    "/: no place",
    "request id: abc",
  ]);
  assert.deepEqual(problemLines(en, new ServiceError(400, { detail: "bad" }, "400")), [
    "400",
    "bad",
  ]);
  assert.deepEqual(problemLines(en, new ServiceError(502, null, "502")), ["502"]);
  assert.deepEqual(problemLines(es, new ServiceError(0, null, "Failed to fetch")), [
    es.t("error.network", { detail: "Failed to fetch" }),
  ]);
  assert.deepEqual(problemLines(en, new Error("boom")), ["boom"]);
});

test("what depends on unknown cards: a suit when they are all of it, else the cards", async () => {
  const ctx = await ruling("tute-3p.json");
  const candidates = ["1O", "3O", "12C", "5E"];
  assert.equal(cardsPhrase(ctx, ["1O", "3O"], candidates), "a card of oros");
  assert.equal(
    cardsPhrase(ctx, ["1O", "12C"], candidates),
    `${ctx.deck.name("1O")} or ${ctx.deck.name("12C")}`,
  );
  assert.equal(cardsPhrase(ctx, ["5E"], candidates), ctx.deck.name("5E"), "one card is no suit");
  const seat = { seat: 1, unknown: 1, cases: 4 };
  const finding = (cases, trigger) => ({
    trick: 3,
    obligations: new Set(["asistir"]),
    cases,
    trigger,
  });
  const name = ctx.names[1];
  assert.equal(
    findingSentence(ctx, seat, finding(4, null), candidates, true),
    en.t("unknown.stands.other", { name, trick: 4, obligation: "asistir", cases: 4, total: 4 }),
  );
  // one case only: the unknown cards can only be those left — never "all 1 cases"
  const one = findingSentence(ctx, { ...seat, cases: 1 }, finding(1, null), candidates, true);
  assert.equal(one, en.t("unknown.stands.one", { name, trick: 4, obligation: "asistir" }));
  assert.ok(!/\b1 cases\b/.test(one));
  assert.ok(
    findingSentence(ctx, seat, finding(1, ["5E"]), candidates, true).includes(
      `stands only if ${name}'s unknown card is ${ctx.deck.name("5E")} (1 of 4 cases)`,
    ),
  );
  assert.ok(
    findingSentence(
      ctx,
      { ...seat, unknown: 2 },
      finding(2, ["1O", "3O"]),
      candidates,
      false,
    ).includes(`if ${name} held any of: a card of oros`),
  );
  assert.equal(
    findingSentence(ctx, seat, finding(2, null), candidates, true),
    en.t("unknown.depends_count", { name, trick: 4, obligation: "asistir", cases: 2, total: 4 }),
  );
});

test("every option's name and every value a person may choose are words, in both languages", () => {
  const code = /\b[a-z]+(?:_[a-z0-9]+)+\b/;
  for (const words of [en, es]) {
    for (const ruleset of Object.values(DATA.rulesets)) {
      for (const [name, spec] of Object.entries(ruleset.options)) {
        const title = words.t(`option.${name}`);
        assert.notEqual(title, `option.${name}`, `${words.lang}: option.${name} has no words`);
        const values = spec.type === "boolean" ? [true, false] : (spec.allowed ?? [spec.default]);
        for (const value of spec.type === "array" ? [spec.default] : values) {
          const text = optionValueText(words, name, value);
          assert.ok(!code.test(text) && !text.startsWith("value."), `${name}=${value}: ${text}`);
        }
      }
    }
  }
  assert.equal(optionValueText(es, "renuncio_penalty", "lose_match"), "la partida");
  assert.equal(optionValueText(es, "trump_when_cannot_overtrump", false), "no");
  assert.equal(optionValueText(en, "call_ranks", [11, 12]), "11 + 12");
});

test("the table's details: strings only, bounded, in their order, empty ones left out", () => {
  const log = {
    details: { referee: " Lola ", event: "x".repeat(200), round: 3, table: "", date: "2026-12-06" },
  };
  assert.deepEqual(tableDetails(log), [
    ["event", "x".repeat(80)],
    ["date", "2026-12-06"],
    ["referee", "Lola"],
  ]);
  assert.deepEqual(tableDetails({ details: "no" }), []);
  assert.deepEqual(tableDetails({}), []);
});
