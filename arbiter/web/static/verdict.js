// The referee's verdict on one proposed move (the body of POST /v1/moves/validate), as the pages
// show it: ok, a renuncio (in red, with its obligation and the cards that were correct) or a
// refusal with the reason. The mark is never the colour alone: the words say it.

import { el } from "./dom.js";
import { renuncioParts } from "./ruling.js";
import { problemLines } from "./rulingtext.js";
import { t, words } from "./words.js";

/** The verdict as a box; `hidden`: cards to show face down (the editor's unknown cards). */
export function verdictElement(answer, deck, hidden = new Set()) {
  const kind = answer.verdict;
  const box = el("div", {
    class: `verdict verdict-${kind}`,
    "data-verdict": kind,
    "data-code": answer.code ?? null, // the refusal's code, for programs; the words say it
  });
  if (kind === "renuncio") {
    box.append(...renuncioParts(answer, deck, "verdict-head", hidden));
  } else if (kind === "illegal") {
    box.append(
      el("p", { class: "verdict-head" }, el("strong", { text: t("verdict.refused") })),
      el("p", { class: "message", text: answer.message }),
    );
  } else {
    box.append(
      el(
        "p",
        { class: "verdict-head" },
        el("strong", { text: t("verdict.ok") }),
        " ",
        el("span", { class: "message", text: answer.message }),
      ),
    );
  }
  return box;
}

/** What to say when the service could not judge (a problem answer, or no connection). */
export function verdictError(error) {
  return el(
    "div",
    { class: "verdict verdict-error", "data-verdict": "error", role: "alert" },
    el("p", { text: problemLines(words, error).join(" — ") }),
  );
}
