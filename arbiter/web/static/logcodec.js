// A log in a link: `#log=<base64url of its UTF-8 JSON>` (padding optional), followed by where to
// look: `&deal=3&trick=6` (counted from 1, as people count) or `&event=12` (the editor's place in
// the deal). The fragment never reaches the server.

export function encodeLog(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeLog(encoded) {
  let base64 = encoded.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new Error("not base64url");
  base64 = base64.replace(/=+$/, "");
  while (base64.length % 4) base64 += "=";
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/** The parts of a `#log=…&key=value` fragment: {log (encoded), deal, trick, event} or null. */
export function readFragment(hash) {
  const match = /^#log=([^&]*)((?:&[a-z]+=[^&]*)*)$/s.exec(hash);
  if (!match) return null;
  const place = {};
  for (const pair of match[2].split("&").filter(Boolean)) {
    const [key, value] = pair.split("=");
    if (/^\d+$/.test(value)) place[key] = Number(value);
  }
  return { log: decodeURIComponent(match[1]), ...place };
}

/** The fragment for a log, and a place in it ({deal, trick} or {event}). */
export function writeFragment(logText, place = {}) {
  const parts = [`log=${encodeLog(logText)}`];
  for (const [key, value] of Object.entries(place)) {
    if (value !== undefined && value !== null) parts.push(`${key}=${value}`);
  }
  return `#${parts.join("&")}`;
}

/** A log as the pages write it: compact JSON (links stay short). */
export function logText(log) {
  return JSON.stringify(log);
}
