// Asking this service: every ruling the pages show comes from its /v1/ endpoints (docs/api.md).
// Requests go to this origin only, with the page's language; an API key, when the server asks
// for one, is kept in memory only and sent only here.

import { currentLang } from "./words.js";

let apiKey = null;

export function setApiKey(key) {
  apiKey = key || null;
}

/** A request the service refused (4xx/5xx, its problem+json body) or could not be reached. */
export class ServiceError extends Error {
  constructor(status, body, message) {
    super(message);
    this.status = status; // 0: the server could not be reached
    this.body = body;
  }
}

async function post(path, body, contentType = "application/json") {
  const headers = { "Content-Type": contentType, "Accept-Language": currentLang() };
  if (apiKey) headers["X-API-Key"] = apiKey;
  let response;
  try {
    response = await fetch(new URL(path, document.baseURI), {
      method: "POST", headers, body, cache: "no-store", credentials: "omit",
    });
  } catch (error) {
    throw new ServiceError(0, null, error.message);
  }
  const text = await response.text();
  if (!response.ok) {
    let problem = null;
    try {
      problem = JSON.parse(text);
    } catch {
      // not a problem document: the status says it
    }
    throw new ServiceError(response.status, problem, `${response.status}`);
  }
  return text;
}

/** POST /v1/replays with every deal's steps: the ruling and each position of each deal. */
export async function replay(log) {
  return JSON.parse(await post("v1/replays", JSON.stringify({ ...log, steps: true })));
}

/** POST /v1/moves/validate: `{state_id, move}`, or a log with `move`. */
export async function validate(body) {
  return JSON.parse(await post("v1/moves/validate", JSON.stringify(body)));
}

/** POST /v1/scores/batch: many logs in one request, one answer per log in order. */
export async function scoreMany(logs) {
  const lines = logs.map((log, index) => JSON.stringify({ ...log, id: String(index) })).join("\n");
  const text = await post("v1/scores/batch", `${lines}\n`, "application/x-ndjson");
  const answers = new Array(logs.length).fill(null);
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const answer = JSON.parse(line);
    if (answer.id !== null && answer.id in answers) answers[Number(answer.id)] = answer;
  }
  return answers;
}
