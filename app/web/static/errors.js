// An error answer as the API gives it: status, code, message, each path of `fields` with its
// messages, each runtime `excluded` with why, the hint; and, for a 401 or a 403, what to do.

import { h } from "./vendor/preact-10.29.8.module.js";
import htm from "./vendor/htm-3.1.1.module.js";

const html = htm.bind(h);

const HELP = {
  401: "Enter a token above, in the token field (or run the service on your machine with OME_RANKER_AUTH=none).",
  403: "This token may not read that cluster: use a token whose read list names it.",
};

export function ErrorBox({ error, status, children }) {
  const fields =
    error.fields && typeof error.fields === "object" ? Object.entries(error.fields) : [];
  const excluded =
    error.excluded && typeof error.excluded === "object" ? Object.entries(error.excluded) : [];
  const title = status ? `${status} ${error.code}` : error.code;
  return html`<div class="error" role="alert">
    <p class="error-title"><strong>${title}</strong></p>
    <p class="error-message">${error.message}</p>
    ${fields.length
      ? html`<ul class="error-fields">
          ${fields.map(
            ([path, messages]) =>
              html`<li>
                <code>${path}</code>:${" "}
                ${Array.isArray(messages) ? messages.join(" ") : JSON.stringify(messages)}
              </li>`,
          )}
        </ul>`
      : null}
    ${excluded.length
      ? html`<ul class="error-fields">
          ${excluded.map(([name, reason]) => html`<li><code>${name}</code>: ${reason}</li>`)}
        </ul>`
      : null}
    ${error.hint ? html`<p class="error-hint">${error.hint}</p>` : null}
    ${children}
    ${HELP[status] ? html`<p class="error-help">${HELP[status]}</p>` : null}
  </div>`;
}
