// Asking this service: every ruling the pages show comes from its /v1/ endpoints (docs/api.md).
// Requests go to the page's own origin only, with the page's language; an API key, when the
// server asks for one, is kept in memory only and sent only there. No DOM: a page makes its one
// Service with the browser's fetch; the tests give theirs.

/** A request the service refused (4xx/5xx, its problem+json body) or could not be reached. */
export class ServiceError extends Error {
  constructor(status, body, message) {
    super(message);
    this.status = status; // 0: the server could not be reached
    this.body = body;
  }
}

export class Service {
  /** `base`: the page's address (requests resolve against it); `lang()`: the language to ask
   *  in; `fetch`: the browser's (by default) or a test's. */
  constructor({ base, lang, fetch = (...args) => globalThis.fetch(...args) }) {
    this.base = base;
    this.lang = lang;
    this.fetch = fetch;
    this.apiKey = null;
  }

  setApiKey(key) {
    this.apiKey = key || null;
  }

  async post(path, body, contentType = "application/json") {
    const headers = { "Content-Type": contentType, "Accept-Language": this.lang() };
    if (this.apiKey) headers["X-API-Key"] = this.apiKey;
    const init = { method: "POST", headers, body, cache: "no-store", credentials: "omit" };
    let response;
    try {
      response = await this.fetch(new URL(path, this.base), init);
    } catch (error) {
      throw new ServiceError(0, null, error.message);
    }
    const text = await response.text();
    if (!response.ok) {
      throw new ServiceError(response.status, problemOf(text), `${response.status}`);
    }
    return text;
  }

  /** POST /v1/replays with every deal's steps: the ruling and each position of each deal. */
  async replay(log) {
    return JSON.parse(await this.post("v1/replays", JSON.stringify({ ...log, steps: true })));
  }

  /** POST /v1/moves/validate: `{state_id, move}`, or a log with `move`. */
  async validate(body) {
    return JSON.parse(await this.post("v1/moves/validate", JSON.stringify(body)));
  }

  /** POST /v1/scores/batch: many logs in one request, one answer per log in order (null for a
   *  log the answer left out). */
  async scoreMany(logs) {
    const lines = logs.map((log, index) => JSON.stringify({ ...log, id: String(index) }));
    const text = await this.post(
      "v1/scores/batch",
      `${lines.join("\n")}\n`,
      "application/x-ndjson",
    );
    const answers = new Array(logs.length).fill(null);
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const answer = JSON.parse(line);
      if (answer.id !== null && answer.id in answers) answers[Number(answer.id)] = answer;
    }
    return answers;
  }
}

/** The problem document of a refusal, or null when the body is none (the status says it). */
function problemOf(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
