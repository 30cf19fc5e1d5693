// The selection history (rules §17.1, `GET /v1/clusters/<c>/history`) as a timeline: on a
// cluster's selections, every change grouped by the write that made it; on an InferenceService's
// ranking, that InferenceService's own changes. Newest first, a page at a time: "Load more"
// asks for the page after the answer's `next`. The entries are shown as the API gives them;
// the page only groups them by generation and puts their fields into words.

import { Component, h } from "./vendor/preact-10.29.8.module.js";
import htm from "./vendor/htm-3.1.1.module.js";
import { call, clusterPath, withQuery } from "./api.js";
import { ErrorBox } from "./errors.js";
import {
  counted,
  historyChangeText,
  historyGroups,
  historyTimeText,
  historyWriteText,
} from "./format.js";

const html = htm.bind(h);

// Changes per page: a cluster's history, and one InferenceService's short timeline.
export const CLUSTER_PAGE = 50;
export const TIMELINE_PAGE = 10;
// The API's largest page (rules §17.1).
const MAX_PAGE = 1000;

// The page size the address asks for (`historyLimit`, 1 to 1000), else `fallback`.
export function historyLimit(params, fallback) {
  const asked = params.get("historyLimit") || "";
  const limit = /^[0-9]{1,4}$/.test(asked) ? Number(asked) : 0;
  return limit >= 1 && limit <= MAX_PAGE ? limit : fallback;
}

// The pages asked so far, concatenated: their changes, the last answer's `next` and the first
// answer's generation (the newest the history was read at); `more` asks for the next page, and
// `show(changes, more)` lays the changes out.
class Pages extends Component {
  state = { changes: null, generation: null, next: null, failure: null, busy: false, pages: 0 };

  componentDidMount() {
    this.more();
  }

  componentWillUnmount() {
    this.gone = true;
  }

  more = async () => {
    if (this.state.busy) {
      return;
    }
    this.setState({ busy: true });
    const { cluster, namespace, name, limit } = this.props;
    const cursor = this.state.next;
    const path = withQuery(`${clusterPath(cluster)}/history`, { namespace, name, limit, cursor });
    const result = await call("GET", path);
    if (this.gone) {
      return;
    }
    if (!result.ok) {
      this.setState({ busy: false, failure: result });
      return;
    }
    const { changes, generation, next } = result.data;
    this.setState(
      (state) => ({
        busy: false,
        failure: null,
        changes: [...(state.changes || []), ...changes],
        generation: state.generation ?? generation,
        next,
        pages: state.pages + 1,
      }),
      () => {
        // The button is gone with the last page: the focus goes to what says so.
        if (cursor !== null && next === null) {
          document.getElementById(`${this.props.id}-shown`)?.focus();
        }
      },
    );
  };

  render({ id, show, subject }, { changes, generation, next, failure, busy, pages }) {
    if (changes === null) {
      return failure
        ? html`<${ErrorBox} error=${failure.error} status=${failure.status} />`
        : html`<p class="status" role="status">Loading the history…</p>`;
    }
    if (changes.length === 0) {
      return html`<p class="empty" id=${`${id}-none`}>No change recorded.</p>`;
    }
    const shown = `${counted(changes.length, "change")} of ${subject} shown, newest first`;
    return html`<div class="history" data-pages=${pages}>
      ${show(changes, next !== null)}
      ${failure ? html`<${ErrorBox} error=${failure.error} status=${failure.status} />` : null}
      <div class="actions">
        ${next === null
          ? null
          : html`<button
              type="button"
              id=${`${id}-more`}
              onClick=${this.more}
              aria-disabled=${busy}
              aria-describedby=${`${id}-shown`}
            >
              Load more
            </button>`}
        <span class="quiet history-shown" id=${`${id}-shown`} tabindex="-1" role="status">
          ${busy
            ? "Asking for older changes…"
            : `${shown} (up to generation ${generation}); ${
                next === null ? "no older change recorded" : "older ones: Load more"
              }.`}
        </span>
      </div>
    </div>`;
  }
}

// One write's time: the minute in UTC, the entry's own `at` as its value and tooltip.
function When({ at }) {
  return html`<time datetime=${at} title=${at}>${historyTimeText(at)}</time>`;
}

// A line of a cluster's history: the InferenceService, a link to its ranking (where its own
// timeline is), and what the write did to it; a mark as it says.
function Change({ cluster, entry, rankHash }) {
  if (entry.truncated) {
    return historyChangeText(entry);
  }
  const name = `${entry.namespace}/${entry.name}`;
  const link = rankHash(cluster, { inferenceService: name });
  return html`<a href=${link}>${name}</a>: ${historyChangeText(entry)}`;
}

// A cluster's history, a heading per write (its generation, time and count), a line per
// InferenceService it changed (`llama-demo/chat: vllm-llama → team-llama`), a mark as it says.
export function ClusterHistory({ cluster, limit, rankHash }) {
  const show = (changes, more) => {
    const groups = historyGroups(changes);
    return html`<ol class="history-groups" id="history-groups">
      ${groups.map((group, index) => {
        const open = more && index === groups.length - 1;
        return html`<li data-generation=${group.generation}>
          <h3 class="history-heading">
            generation ${group.generation}, <${When} at=${group.at} />:${" "}
            ${historyWriteText(group, open)}
          </h3>
          <ul class="history-lines">
            ${group.entries.map(
              (entry) => html`<li data-seq=${entry.seq} class=${entry.truncated ? "mark" : ""}>
                <${Change} cluster=${cluster} entry=${entry} rankHash=${rankHash} />
              </li>`,
            )}
          </ul>
        </li>`;
      })}
    </ol>`;
  };
  return html`<section class="history-section" id="history" aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <p class="quiet">
      What each write of ${cluster}'s catalog did to its InferenceServices' runtimes and classes
      (<code>GET /v1/clusters/${cluster}/history</code>): a runtime before → after, added or
      removed; a class when the runtime stayed.
    </p>
    <${Pages}
      id="history"
      cluster=${cluster}
      limit=${limit}
      subject=${cluster}
      show=${show}
    />
  </section>`;
}

// One InferenceService's changes, a line per write: `generation 41, 2026-12-01 09:12 UTC:
// vllm-llama → team-llama`.
export function InferenceServiceHistory({ cluster, namespace, name, limit }) {
  const subject = `${namespace}/${name}`;
  const show = (changes) => html`<ol class="history-lines timeline" id="isvc-history-lines">
    ${changes.map(
      (entry) => html`<li data-seq=${entry.seq} data-generation=${entry.generation}
        class=${entry.truncated ? "mark" : ""}>
        generation ${entry.generation}, <${When} at=${entry.at} />: ${historyChangeText(entry)}
      </li>`,
    )}
  </ol>`;
  return html`<section
    class="history-section"
    id="isvc-history"
    aria-labelledby="isvc-history-title"
  >
    <h2 id="isvc-history-title">History of ${subject}</h2>
    <p class="quiet">
      What each write of ${cluster}'s catalog did to this InferenceService
      (<code>GET /v1/clusters/${cluster}/history?namespace=${namespace}&name=${name}</code>),
      with the writes whose changes were not listed one by one.
    </p>
    <${Pages}
      id="isvc-history"
      cluster=${cluster}
      namespace=${namespace}
      name=${name}
      limit=${limit}
      subject=${subject}
      show=${show}
    />
  </section>`;
}
