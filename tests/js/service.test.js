// service.js: asking the service — the page's origin only, its language, the API key, and the
// refusals and failures as ServiceError.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Service, ServiceError } from "../../arbiter/web/static/service.js";
import { ORIGIN, appFetch, example } from "./support.js";

/** A fetch that keeps what it was asked and answers `reply(url, init)`. */
function spy(reply) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url: String(url), init });
    return reply(url, init);
  };
  return { fetch, calls };
}

test("a request goes to the page's origin, in its language, without credentials", async () => {
  let lang = "es";
  const { fetch, calls } = spy(() => new Response('{"verdict":"ok"}'));
  const service = new Service({ base: `${ORIGIN}enter?lang=es`, lang: () => lang, fetch });
  await service.validate({ state_id: "x", move: { type: "play", seat: 0, card: "1O" } });
  lang = "en";
  service.setApiKey("k-1");
  await service.replay({ ruleset: "tute-2p" });
  service.setApiKey("");
  await service.replay({ ruleset: "tute-2p" });
  assert.deepEqual(
    calls.map((c) => c.url),
    [`${ORIGIN}v1/moves/validate`, `${ORIGIN}v1/replays`, `${ORIGIN}v1/replays`],
  );
  assert.deepEqual(
    calls.map((c) => c.init.headers["Accept-Language"]),
    ["es", "en", "en"],
  );
  assert.deepEqual(
    calls.map((c) => c.init.headers["X-API-Key"]),
    [undefined, "k-1", undefined],
  );
  for (const { init } of calls) {
    assert.equal(init.method, "POST");
    assert.equal(init.credentials, "omit");
    assert.equal(init.cache, "no-store");
  }
  assert.deepEqual(
    JSON.parse(calls[1].init.body),
    { ruleset: "tute-2p", steps: true },
    "every step asked for",
  );
});

test("a refusal is a ServiceError with its status and problem; no connection: 0", async () => {
  const problem = { title: "Conflict", status: 409, detail: "the state_id does not open here" };
  const refused = new Service({
    base: ORIGIN,
    lang: () => "en",
    fetch: async () => new Response(JSON.stringify(problem), { status: 409 }),
  });
  await assert.rejects(
    refused.validate({}),
    (error) =>
      error instanceof ServiceError && error.status === 409 && error.body.detail === problem.detail,
  );
  const garbled = new Service({
    base: ORIGIN,
    lang: () => "en",
    fetch: async () => new Response("<html>bad gateway", { status: 502 }),
  });
  await assert.rejects(garbled.replay({}), (error) => error.status === 502 && error.body === null);
  const offline = new Service({
    base: ORIGIN,
    lang: () => "en",
    fetch: async () => {
      throw new TypeError("Failed to fetch");
    },
  });
  await assert.rejects(
    offline.replay({}),
    (error) =>
      error instanceof ServiceError && error.status === 0 && error.message === "Failed to fetch",
  );
});

test("the app's own answers: a replay with its steps, a refusal with its pointer", async () => {
  const service = new Service({ base: ORIGIN, lang: () => "es", fetch: appFetch });
  const log = example("tute-3p.json");
  const answer = await service.replay(log);
  assert.equal(answer.deals[0].steps.length, log.deals[0].events.length + 1);
  assert.ok(answer.state_id);
  const broken = { ...log, deals: [{ ...log.deals[0], hands: [] }] };
  await assert.rejects(
    service.replay(broken),
    (error) => error.status === 422 || error.status === 400,
  );
});

test("a batch: one answer per log, in the logs' order, whatever order they come in", async () => {
  const reversed = spy(async (url, init) => {
    const ids = init.body
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).id);
    const lines = ids
      .reverse()
      .filter((id) => id !== "1")
      .map((id) => JSON.stringify({ id, n: Number(id) }));
    return new Response(`${lines.join("\n")}\n\n`);
  });
  const service = new Service({ base: ORIGIN, lang: () => "en", fetch: reversed.fetch });
  const answers = await service.scoreMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
  assert.deepEqual(answers, [{ id: "0", n: 0 }, null, { id: "2", n: 2 }]);
  assert.equal(reversed.calls[0].init.headers["Content-Type"], "application/x-ndjson");
  // and from the app: a log with a renuncio, and one that is refused, each answered in place
  const app = new Service({ base: ORIGIN, lang: () => "en", fetch: appFetch });
  const log = example("tute-4p-renuncio.json");
  const [scored, refused] = await app.scoreMany([log, { ...log, ruleset: "nope" }]);
  assert.ok(scored.deals.some((deal) => deal.violations.length));
  assert.ok(refused.error, JSON.stringify(refused));
});
