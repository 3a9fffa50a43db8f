// What the JS tests share: the app itself (tests/js/app.py, the app in process behind a pipe)
// for real answers — the page data the pages are served, and a `fetch` that asks the app as the
// browser asks the server — the page's words, the bundled examples, and a fake fetch whose
// answers arrive in the order a test says.

import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";

import { Words } from "../../arbiter/web/static/catalogue.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The Python of the project's venv (`make install-test` makes it), or ARBITER_PYTHON. */
const PYTHON = process.env.ARBITER_PYTHON ?? join(ROOT, ".venv", "bin", "python");
/** Where the app is, for the requests the code under test makes (the page's address). */
export const ORIGIN = "http://arbiter.test/";

// --- the app ------------------------------------------------------------------------------------

let app = null;

/** The app process, started on first use; it ends with the test file. */
function appProcess() {
  if (app) return app;
  const child = spawn(PYTHON, [join(ROOT, "tests", "js", "app.py")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = [];
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf("\n")) >= 0) {
      waiting.shift().resolve(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  child.on("exit", (code) => {
    for (const request of waiting.splice(0)) request.reject(new Error(`the app ended (${code})`));
  });
  app = { child, waiting };
  return app;
}

after(() => app?.child.stdin.end());

/** One request to the app: {method, path, headers, body} → {status, headers, body}. */
function askApp(request) {
  const { child, waiting } = appProcess();
  return new Promise((resolve, reject) => {
    waiting.push({ resolve, reject });
    child.stdin.write(`${JSON.stringify(request)}\n`);
  });
}

/** A fetch that asks the app: what the page's `fetch` gets from the server. */
export async function appFetch(url, init = {}) {
  const path = new URL(url, ORIGIN).pathname;
  const method = init.method ?? "GET";
  const answer = await askApp({
    method,
    path,
    headers: init.headers ?? {},
    body: init.body ?? null,
  });
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

let data = null;

/** The page data the server puts in every page (its <script id="arbiter-data">). */
export async function pageData() {
  if (!data) {
    const page = await (await appFetch("/enter")).text();
    data = JSON.parse(/<script [^>]*id="arbiter-data"[^>]*>(.*?)<\/script>/s.exec(page)[1]);
  }
  return data;
}

/** The app's answer to POST /v1/replays with every deal's steps, as the pages ask for it. */
export async function replayed(log, lang = "en") {
  const body = JSON.stringify({ ...log, steps: true });
  const headers = { "Content-Type": "application/json", "Accept-Language": lang };
  const response = await appFetch("/v1/replays", { method: "POST", headers, body });
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
}

/** The page's words in `lang`. */
export const wordsIn = async (lang = "en") => new Words((await pageData()).strings, lang);

// --- the examples -------------------------------------------------------------------------------

const EXAMPLES = join(ROOT, "examples");

/** The bundled examples: [name, log]. */
export const examples = () =>
  readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => [name, JSON.parse(readFileSync(join(EXAMPLES, name), "utf8"))]);

export const example = (name) => JSON.parse(readFileSync(join(EXAMPLES, name), "utf8"));

// --- answers as a test wants them --------------------------------------------------------------

/**
 * A fetch that records each request and answers it as the app does — or as `answer(request)`
 * says, when it gives {status, body} — and, with `hold`, only when the test lets it go.
 * `requests`: each {path, body (parsed), release()}; release() lets that one answer go, and
 * waits until the code under test has taken it. `asked()`: a promise of the next request.
 */
export function recordingFetch({ answer = () => null, hold = false } = {}) {
  const requests = [];
  const listeners = [];
  const asked = () => new Promise((resolve) => listeners.push(resolve));
  const fetch = (url, init = {}) =>
    new Promise((resolve, reject) => {
      const request = { path: new URL(url, ORIGIN).pathname, body: parseBody(init.body) };
      request.release = async () => {
        try {
          const given = answer(request);
          resolve(
            given ? new Response(given.body, { status: given.status }) : await appFetch(url, init),
          );
        } catch (error) {
          reject(error);
        }
        await settle();
      };
      requests.push(request);
      for (const listener of listeners.splice(0)) listener();
      if (!hold) request.release();
    });
  return { fetch, requests, asked };
}

function parseBody(body) {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Let every promise already resolved run its course (the code under test reacts). */
export function settle() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
