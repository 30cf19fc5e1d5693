// The ome-ranker page: the fleet, clusters, their selections, one ranking, and "try it" on
// pasted manifests. Every number and text comes from the API's answer as it is; the page only
// lays it out. Views are routed by the URL's fragment (#/ the fleet, #/clusters,
// #/clusters/<c>, #/clusters/<c>/rank?inferenceService=<ns>/<name>, #/try), so each can be
// bookmarked.
//
// A service run with OME_RANKER_AUTH=none (the local quick start) needs no token: the page is
// told so by its <meta name="ome-ranker-access" content="open"> and then says nothing of tokens.

import { Component, h, render } from "./vendor/preact-10.29.8.module.js";
import htm from "./vendor/htm-3.1.1.module.js";
import { call, clusterPath, fetchText, getToken, setToken, withQuery } from "./api.js";
import { ErrorBox } from "./errors.js";
import {
  CLUSTER_PAGE,
  ClusterHistory,
  InferenceServiceHistory,
  TIMELINE_PAGE,
  historyLimit,
} from "./history.js";
import {
  ageText,
  cell,
  counted,
  classText,
  decidedByText,
  eventText,
  pairsText,
  placementErrorText,
  qualifiedName,
  resourcesText,
  scopeWhere,
  scoreText,
  sizeText,
  toWinText,
  wayOutText,
} from "./format.js";
import {
  choicesOf,
  chosenObjects,
  entriesOf,
  readStream,
  streamBody,
} from "./manifests.js";

const html = htm.bind(h);

// --- routes ---------------------------------------------------------------------------------

export function parseRoute(hash) {
  const raw = (hash || "").replace(/^#/, "") || "/";
  const mark = raw.indexOf("?");
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const params = new URLSearchParams(mark < 0 ? "" : raw.slice(mark + 1));
  let parts;
  try {
    parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return { view: "missing", params };
  }
  if (parts.length === 0) {
    return { view: "fleet", params };
  }
  if (parts[0] === "clusters" && parts.length === 1) {
    return { view: "clusters", params };
  }
  if (parts[0] === "try" && parts.length === 1) {
    return { view: "try", params };
  }
  if (parts[0] === "clusters" && parts.length === 2) {
    return { view: "selections", cluster: parts[1], params };
  }
  if (parts[0] === "clusters" && parts.length === 3 && parts[2] === "rank") {
    return { view: "rank", cluster: parts[1], params };
  }
  return { view: "missing", params };
}

const hashOf = (path, params = {}) => `#${withQuery(path, params)}`;
const selectionsHash = (cluster, params) => hashOf(`/clusters/${encodeURIComponent(cluster)}`, params);
const rankHash = (cluster, params) =>
  hashOf(`/clusters/${encodeURIComponent(cluster)}/rank`, params);
const tryHash = (params) => hashOf("/try", params);

function focusHeading() {
  const heading = document.getElementById("view-title");
  if (heading) {
    heading.focus();
  }
}

// --- pieces -----------------------------------------------------------------------------------

// The stored clusters a fleet answer leaves out because the token may not read them (its
// `notReadable`): counted, never named.
function NotReadable({ count }) {
  if (!count) {
    return null;
  }
  return html`<p id="fleet-not-readable">
    <strong>${counted(count, "cluster")} not readable</strong>${" "}
    <span class="quiet">
      (the token may not read ${count === 1 ? "it" : "them"}: left out, not named)
    </span>
  </p>`;
}

// A cluster's row header in a table of clusters: its name, a link to its selections.
function ClusterHeader({ name }) {
  return html`<th scope="row" data-col="name"><a href=${selectionsHash(name)}>${name}</a></th>`;
}

// A table that scrolls sideways inside its own box, never the page.
function Scroll({ label, children }) {
  return html`<div class="scroll" role="region" aria-label=${label} tabindex="0">
    ${children}
  </div>`;
}

function Messages({ id, title, items }) {
  if (!items || items.length === 0) {
    return null;
  }
  return html`<section class="messages" aria-labelledby=${`${id}-title`}>
    <h3 id=${`${id}-title`}>${title}</h3>
    <ul id=${id}>
      ${items.map((item) => html`<li>${item}</li>`)}
    </ul>
  </section>`;
}

function Ignored({ items }) {
  if (!items || items.length === 0) {
    return null;
  }
  return html`<section aria-labelledby="ignored-title">
    <h3 id="ignored-title">Ignored objects</h3>
    <${Scroll} label="Ignored objects">
      <table id="ignored-table">
        <thead>
          <tr><th scope="col">KIND</th><th scope="col">NAME</th><th scope="col">REASON</th></tr>
        </thead>
        <tbody>
          ${items.map(
            (item) => html`<tr>
              <td>${cell(item.kind)}</td>
              <td>${qualifiedName(item.namespace, item.name)}</td>
              <td class="text">${cell(item.reason)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    <//>
  </section>`;
}

// Runs one request when mounted and shows its answer (through `show`) or its error, followed
// by what `after(error)` adds to it.
class Fetch extends Component {
  state = { result: null };

  componentDidMount() {
    this.props.request().then((result) => {
      if (!this.gone) {
        this.setState({ result });
        if (result.ok && this.props.loaded) {
          this.props.loaded(result.data);
        }
      }
    });
  }

  componentWillUnmount() {
    this.gone = true;
  }

  render({ show, label }, { result }) {
    if (result === null) {
      return html`<p class="status" role="status">Loading ${label}…</p>`;
    }
    if (!result.ok) {
      return html`<${ErrorBox} error=${result.error} status=${result.status}>
        ${this.props.after ? this.props.after(result.error) : null}
      <//>`;
    }
    return show(result.data);
  }
}

// --- the ranking (shared by a cluster's ranking and "try it") ----------------------------------

// The short columns of a runtime's row; its long texts (REASON, TO COME FIRST, WAY OUT) go on
// a line of their own under it, as wide as the table's box, so that at 1 280 pixels no column
// is out of view and no word is cut to make a column fit.
const RANK_COLUMNS = [
  ["runtime", "RUNTIME"],
  ["scope", "SCOPE"],
  ["compatible", "COMPATIBLE"],
  ["priority", "PRIORITY"],
  ["weight", "WEIGHT"],
  ["score", "SCORE"],
  ["distance", "DISTANCE"],
  ["order", "WHY HERE"],
];
const RANK_TEXTS = [
  ["reason", "REASON"],
  ["to-win", "TO COME FIRST"],
  ["way-out", "WAY OUT"],
];

// A long text that may wrap after punctuation (`:`, `/`, `,`, `=`, `.`) as well as at spaces,
// never inside a run of letters and digits: `'mt:safetensors:1.0.0:LlamaForCausalLM'` fits a
// narrow window without a word cut in two. The text itself is unchanged (<wbr> has none).
function Breakable({ text }) {
  const pieces = text.split(/(?<=[:/,=.])(?=[^\s])/);
  return pieces.map((piece, index) => html`${index ? html`<wbr />` : null}${piece}`);
}

// The line under a runtime's row: each of its long texts that says something (the others are
// there, hidden, as "-"); none at all when none does.
function RankTexts({ row, texts }) {
  const shown = RANK_TEXTS.filter(([key]) => texts[key] !== "-");
  return html`<tr class=${`rank-texts${shown.length ? "" : " empty"}`} data-texts-of=${row.name}>
    <td colspan=${RANK_COLUMNS.length}>
      <dl class="rank-texts-list">
        ${RANK_TEXTS.map(
          ([key, title]) => html`<div class=${texts[key] === "-" ? "none" : ""}>
            <dt>${title}</dt>
            <dd data-col=${key}><${Breakable} text=${texts[key]} /></dd>
          </div>`,
        )}
      </dl>
    </td>
  </tr>`;
}

// The size distance as sizes are written (69B): an abbreviation of the exact number, which is
// its title (the tooltip).
function DistanceCell({ value }) {
  const { text, exact } = sizeText(value);
  return html`<td data-col="distance">
    ${exact !== null && exact !== text ? html`<abbr title=${exact}>${text}</abbr>` : text}
  </td>`;
}

function isSelected(row, selected) {
  return selected !== null && row.name === selected.name && row.scope === selected.scope;
}

// --- placement (rules §20.8): the entry and the AcceleratorClass of each component -------------

const COMPONENTS = ["engine", "decoder"];

const PLACEMENT_COLUMNS = [
  ["component", "COMPONENT"],
  ["class", "CLASS"],
  ["reason", "REASON"],
  ["error", "ERROR"],
  ["from", "FROM"],
  ["policy", "POLICY"],
  ["score", "SCORE"],
  ["known", "KNOWN"],
  ["others", "OTHERS"],
  ["config", "ACCELERATOR CONFIG"],
  ["node-selector", "NODE SELECTOR"],
  ["resources", "RESOURCES"],
];

// Strings as list items, or `-` for none: what the pods get, one line each.
function Items({ items }) {
  if (!items || items.length === 0) {
    return "-";
  }
  return html`<ul class="items">
    ${items.map((item) => html`<li>${item}</li>`)}
  </ul>`;
}

// A field path that may break after its dots only (`spec.acceleratorSelector.` / `policy`).
function Dotted({ text }) {
  return text.split(/(?<=\.)/).map((part, index) => (index ? [html`<wbr />`, part] : part));
}

function PlacementEntry({ entry }) {
  if (!entry) {
    return html`<div><dt>Entry</dt><dd id="placement-entry">none</dd></div>`;
  }
  return html`
    <div><dt>Entry</dt><dd id="placement-entry">supportedModelFormats[${entry.index}]</dd></div>
    <div><dt>Entry name</dt><dd id="placement-entry-name">${cell(entry.name)}</dd></div>
    <div><dt>Entry score</dt><dd id="placement-entry-score">${cell(entry.score)}</dd></div>
    <div>
      <dt>Entry defined in</dt>
      <dd id="placement-entry-defined-in">${entry.definedIn || "the selected runtime"}</dd>
    </div>
  `;
}

// Green: a class the pods get for certain; red: an error.
function classStyle(component) {
  if (component.error) {
    return "no";
  }
  return component.known && component.acceleratorClass ? "yes" : "";
}

function ComponentRow({ name, component }) {
  const config = component.acceleratorConfig;
  return html`<tr data-component=${name}>
    <th scope="row" data-col="component">${name}</th>
    <td data-col="class" class=${classStyle(component)}>${classText(component)}</td>
    <td data-col="reason" class=${component.reason ? "text" : ""}>${cell(component.reason)}</td>
    <td data-col="error" class=${component.error ? "text no" : ""}>
      ${placementErrorText(component.error)}
    </td>
    <td data-col="from" class="path"><${Dotted} text=${cell(component.from)} /></td>
    <td data-col="policy">${cell(component.policy)}</td>
    <td data-col="score">${scoreText(component.score)}</td>
    <td data-col="known">${cell(component.known)}</td>
    <td data-col="others" class=${component.others.length ? "text" : ""}>
      <${Items} items=${component.others.map((other) => `${other.name}: ${cell(other.reason)}`)} />
    </td>
    <td data-col="config" class=${config ? "wrap" : ""}>
      ${config ? html`<code>${JSON.stringify(config)}</code>` : "-"}
    </td>
    <td data-col="node-selector" class="wrap">
      <${Items} items=${component.nodeSelector && pairsText(component.nodeSelector)} />
    </td>
    <td data-col="resources" class="wrap">
      <${Items} items=${component.resources && resourcesText(component.resources)} />
    </td>
  </tr>`;
}

function Placement({ placement }) {
  if (!placement) {
    return null; // nothing selected: OME goes no further (rules §20.8)
  }
  const components = COMPONENTS.filter((name) => placement[name]);
  return html`<section class="placement" id="placement" aria-labelledby="placement-title">
    <h3 id="placement-title">Placement</h3>
    <p class="quiet">
      After the runtime, OME applies one of its supportedModelFormats entries and gives each
      component at most one AcceleratorClass.
    </p>
    <dl class="summary">
      <${PlacementEntry} entry=${placement.entry} />
      <div>
        <dt>OME's event</dt>
        <dd id="placement-event" class="text">${eventText(placement.event)}</dd>
      </div>
    </dl>
    ${components.length === 0
      ? html`<p class="empty" id="placement-no-component">
          No engine and no decoder: without an InferenceService that sets${" "}
          <code>spec.engine</code> or <code>spec.decoder</code> no class is given.
        </p>`
      : html`<${Scroll} label="Placement">
          <table id="placement-table" class="placement-table">
            <caption>
              The AcceleratorClass each component's pods get. FROM: the field that decided.
              OTHERS: every other listed class and why it lost. NODE SELECTOR and RESOURCES:
              what the class adds to the pods.
            </caption>
            <thead>
              <tr>
                ${PLACEMENT_COLUMNS.map(
                  ([key, title]) => html`<th scope="col" data-col=${key}>${title}</th>`,
                )}
              </tr>
            </thead>
            <tbody>
              ${components.map(
                (name) => html`<${ComponentRow} name=${name} component=${placement[name]} />`,
              )}
            </tbody>
          </table>
        <//>`}
  </section>`;
}

function Ranking({ answer, entries }) {
  const { model, selected } = answer;
  return html`<div class="ranking">
    <dl class="summary">
      <div>
        <dt>Model</dt>
        <dd>
          <span id="model-name">${model.name}</span>
          <span class="quiet"> (${model.kind}, ${scopeWhere(model.namespace)})</span>
        </dd>
      </div>
      <div><dt>Target namespace</dt><dd id="target-namespace">${answer.namespace}</dd></div>
      <div><dt>OME version</dt><dd id="ome-version">${answer.omeVersion}</dd></div>
      <div>
        <dt>Selected runtime</dt>
        <dd>
          <strong id="selected-name">${selected ? selected.name : "none"}</strong>
          ${selected
            ? html`<span class="quiet">
                ${" "}(${selected.scope}, score ${cell(selected.score)},
                ${selected.explicit ? " named explicitly" : " auto-selected"})
              </span>`
            : null}
        </dd>
      </div>
      <div><dt>OME's message</dt><dd id="ranking-message" class="text">${answer.message}</dd></div>
    </dl>
    <${Scroll} label="Runtime ranking">
      <table id="ranking-table" class="ranking-table">
        <caption>
          Every candidate runtime in OME's order${selected ? "; the selected one is marked" : ""}.
          WHY HERE: the rule that put a runtime below the one above it. Under a runtime, REASON:
          why it does not qualify; TO COME FIRST: what would put it first; WAY OUT: the changes
          to a runtime that does not qualify that would make it qualify.
        </caption>
        <thead>
          <tr>
            ${RANK_COLUMNS.map(([key, title]) => html`<th scope="col" data-col=${key}>${title}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${answer.runtimes.map((row, index) => {
            const chosen = isSelected(row, selected);
            const texts = {
              reason: cell(row.reason),
              "to-win": toWinText(row, answer, entries),
              "way-out": wayOutText(row, entries),
            };
            return html`<tr class=${chosen ? "selected" : ""} data-runtime=${row.name}>
                <th scope="row" data-col="runtime">
                  ${row.name}${chosen ? html`<span class="marker" aria-label="selected"> ✓</span>` : null}
                </th>
                <td data-col="scope">${cell(row.scope)}</td>
                <td data-col="compatible" class=${row.compatible ? "yes" : "no"}>${cell(row.compatible)}</td>
                <td data-col="priority">${cell(row.priority)}</td>
                <td data-col="weight">${cell(row.weight)}</td>
                <td data-col="score">${cell(row.score)}</td>
                <${DistanceCell} value=${row.distance} />
                <td data-col="order">${decidedByText(row, index > 0 ? answer.runtimes[index - 1] : null)}</td>
              </tr>
              <${RankTexts} row=${row} texts=${texts} />`;
          })}
        </tbody>
      </table>
    <//>
    ${answer.summary
      ? html`<p id="ranking-summary" class="text">${answer.summary}</p>`
      : null}
    <${Placement} placement=${answer.placement} />
    <${Messages} id="warnings" title="Warnings" items=${answer.warnings} />
    <${Messages} id="notes" title="Notes" items=${answer.notes} />
    <${Ignored} items=${answer.ignored} />
  </div>`;
}

// --- views -----------------------------------------------------------------------------------

// The columns of `GET /v1/fleet`'s `inferenceServices` (rules §21), each with the words of its
// links and the outcome of the selections view it opens. REFUSED, CLASS UNKNOWN and CLASS ERROR
// open the selections unfiltered: a selections row does not say whether lint would refuse its
// InferenceService, nor tell a class that is unknown or failing from no class at all.
const FLEET_COLUMNS = [
  { key: "total", title: "INFERENCESERVICES", words: "", outcome: "" },
  { key: "selected", title: "SELECTED", words: " selected by OME", outcome: "selected" },
  { key: "explicit", title: "EXPLICIT", words: " with an explicit runtime", outcome: "explicit" },
  { key: "noRuntime", title: "NO RUNTIME", words: " without a runtime", outcome: "noRuntime" },
  { key: "refused", title: "REFUSED", words: " that lint would refuse", outcome: null },
  { key: "classUnknown", title: "CLASS UNKNOWN", words: " with a class unknown", outcome: null },
  { key: "classError", title: "CLASS ERROR", words: " with a class error", outcome: null },
];

// A cluster's count of one outcome: a link into its selections with that outcome when there
// is any; its accessible name says what it counts and where it leads.
function FleetCount({ cluster, column, count }) {
  if (!count) {
    return html`<td data-col=${column.key} class="count">${cell(count)}</td>`;
  }
  const where = column.outcome === null ? " (opens every selection, unfiltered)" : "";
  const label = `${counted(count, "InferenceService")}${column.words} in ${cluster}${where}`;
  const params = column.outcome ? { outcome: column.outcome } : {};
  return html`<td data-col=${column.key} class="count">
    <a href=${selectionsHash(cluster, params)} aria-label=${label}>${count}</a>
  </td>`;
}

// A cluster's row: its name, generation, last sync and counts, each count a link when above 0.
function FleetRow({ cluster, age }) {
  const counts = cluster.inferenceServices || {};
  const synced = syncAgeSeconds(cluster);
  const title = `synced ${cluster.syncedAt || "never"}; last changed ${cluster.updatedAt}`;
  return html`<tr data-cluster=${cluster.name}>
    <${ClusterHeader} name=${cluster.name} />
    <td data-col="generation" class="count">${cell(cluster.generation)}</td>
    <td data-col="synced">
      <time datetime=${cluster.syncedAt || cluster.updatedAt} title=${title}>
        ${synced === null ? "never" : ageText(age(synced))}
      </time>
    </td>
    ${FLEET_COLUMNS.map(
      (column) => html`<${FleetCount}
        cluster=${cluster.name}
        column=${column}
        count=${counts[column.key]}
      />`,
    )}
  </tr>`;
}

// Seconds since a cluster's last sync as the service's clock reads them: its `ageSeconds`
// (from `updatedAt`) less the time from `updatedAt` to `syncedAt`, both the service's; null for
// a catalog no sync replaced.
function syncAgeSeconds(cluster) {
  if (!cluster.syncedAt) {
    return null;
  }
  const later = (Date.parse(cluster.syncedAt) - Date.parse(cluster.updatedAt)) / 1000;
  return Math.max(0, cluster.ageSeconds - Math.floor(later));
}

function FleetTable({ answer, age }) {
  const { clusters, totals } = answer;
  return html`<${Scroll} label="Fleet">
    <table id="fleet-table" class="fleet-table" aria-describedby="fleet-how">
      <caption>
        ${counted(clusters.length, "cluster")}: InferenceServices by outcome, as the catalog
        stored at each generation gives them.
      </caption>
      <thead>
        <tr>
          <th scope="col" data-col="name">CLUSTER</th>
          <th scope="col" data-col="generation" class="count">GENERATION</th>
          <th scope="col" data-col="synced">SYNCED</th>
          ${FLEET_COLUMNS.map(
            (column) => html`<th scope="col" data-col=${column.key} class="count">${column.title}</th>`,
          )}
        </tr>
      </thead>
      <tbody>
        ${clusters.map((cluster) => html`<${FleetRow} cluster=${cluster} age=${age} />`)}
      </tbody>
      <tfoot>
        <tr data-totals="">
          <th scope="row" data-col="name">Total</th>
          <td data-col="generation"></td>
          <td data-col="synced"></td>
          ${FLEET_COLUMNS.map(
            (column) => html`<td data-col=${column.key} class="count">${cell(totals[column.key])}</td>`,
          )}
        </tr>
      </tfoot>
    </table>
  <//>`;
}

// The landing view: `GET /v1/fleet`, one row per cluster the token may read. "Refresh" asks
// again with the answer's ETag (If-None-Match): a 304 keeps the table, and the ages go on from
// the answer's `ageSeconds` by the time since it came (the browser's clock is never compared
// with the service's).
class FleetView extends Component {
  // result: the last request's answer; held: the last fleet answered (a 304 keeps it), its
  // ETag and when it came; checks: how many answers came (data-checks, for whoever waits).
  state = { result: null, held: null, checks: 0, busy: false };

  componentDidMount() {
    this.ask();
    // The ages move on between two answers: written again each half minute.
    this.ticker = setInterval(() => this.forceUpdate(), 30000);
  }

  componentWillUnmount() {
    this.gone = true;
    clearInterval(this.ticker);
  }

  ask = async () => {
    if (this.state.busy) {
      return;
    }
    this.setState({ busy: true });
    const { held } = this.state;
    const headers = held && held.etag ? { "If-None-Match": held.etag } : {};
    const result = await call("GET", "/v1/fleet", { headers });
    if (this.gone) {
      return;
    }
    let kept = result.ok ? held : null;
    if (result.ok && result.status !== 304) {
      kept = { answer: result.data, etag: result.etag, at: performance.now() };
    }
    this.setState(({ checks }) => ({ busy: false, result, held: kept, checks: checks + 1 }));
  };

  age = (seconds) => {
    const since = Math.floor((performance.now() - this.state.held.at) / 1000);
    return seconds === null || seconds === undefined ? seconds : seconds + since;
  };

  checked() {
    const { result, checks, busy } = this.state;
    if (busy) {
      return result === null ? "Loading the fleet…" : "Asking the service again…";
    }
    if (result === null || !result.ok || checks < 2) {
      return "";
    }
    return result.status === 304
      ? "Unchanged since the last answer (304 Not Modified): the table is kept."
      : "Changed since the last answer: the table is the new one.";
  }

  render({ open }, { result, held, checks, busy }) {
    let body = null;
    if (result !== null && !result.ok) {
      body = html`<${ErrorBox} error=${result.error} status=${result.status} />`;
    } else if (held !== null && held.answer.clusters.length === 0) {
      body = html`<${NoClusters} open=${open} again=${this.ask} />
        <${NotReadable} count=${held.answer.notReadable} />`;
    } else if (held !== null) {
      body = html`<${FleetTable} answer=${held.answer} age=${this.age} />
        <${NotReadable} count=${held.answer.notReadable} />`;
    }
    return html`<section class="fleet" data-checks=${checks}>
      <h1 id="view-title" tabindex="-1">Fleet</h1>
      <p class="lead">
        ${open ? "Every stored cluster" : "Every stored cluster this token may read"}, with its
        catalog's generation, when it was synced, and its InferenceServices by outcome${" "}
        (<code>GET /v1/fleet</code>). A count opens the cluster's selections with that outcome.
      </p>
      <p class="quiet" id="fleet-how">
        SELECTED (by OME), EXPLICIT (named by the InferenceService) and NO RUNTIME split a
        cluster's InferenceServices; REFUSED (by lint), CLASS UNKNOWN and CLASS ERROR count some
        of them again, and open the selections unfiltered: a selection does not say which.
      </p>
      <div class="actions">
        <button type="button" id="fleet-refresh" onClick=${this.ask} aria-disabled=${busy}>
          Refresh
        </button>
        <span class="quiet" id="fleet-checked" role="status">${this.checked()}</span>
      </div>
      ${body}
    </section>`;
  }
}

class ClustersView extends Component {
  state = { attempt: 0 };

  again = () => {
    this.setState(({ attempt }) => ({ attempt: attempt + 1 }));
  };

  render({ open }, { attempt }) {
    return html`<section>
      <h1 id="view-title" tabindex="-1">Clusters</h1>
      <p class="lead">
        ${open ? "The stored catalogs" : "The stored catalogs this token may read"}${" "}
        (<code>GET /v1/clusters</code>). Open one to see which runtime each InferenceService gets.
      </p>
      <${Fetch}
        key=${attempt}
        label="clusters"
        request=${() => call("GET", "/v1/clusters")}
        show=${(data) =>
          data.clusters.length === 0
            ? html`<${NoClusters} open=${open} again=${this.again} />`
            : html`<${ClusterTable} clusters=${data.clusters} />`}
      />
    </section>`;
  }
}

// No cluster yet. With a token: none this token may read. Without access control (the local
// quick start): none stored, and how to store the example or try manifests without storing.
function NoClusters({ open, again }) {
  if (!open) {
    return html`<p class="empty" id="no-clusters">No cluster that this token may read.</p>`;
  }
  const server = window.location.origin;
  const example = "examples/cluster.yaml";
  const curl = [
    `curl -X PUT ${server}/v1/clusters/demo`,
    "curl -X PUT -H 'Content-Type: application/yaml' \\",
    `  --data-binary @${example} \\`,
    `  ${server}/v1/clusters/demo/objects`,
  ].join("\n");
  const command = `ome-ranker push demo -f ${example} --server ${server} --create`;
  return html`<div class="empty next-steps" id="no-clusters">
    <p><strong>No cluster is stored yet.</strong></p>
    <p>
      To look around, store the example cluster: the seed example's model and runtimes with two
      InferenceServices, as <code>kubectl get … -A -o yaml</code> prints them. From a checkout of
      ome-ranker, create the cluster <code>demo</code> and push its objects:
    </p>
    <pre class="commands" id="push-curl" tabindex="0" aria-label="curl commands"><code>${curl}</code></pre>
    <p>
      or with the command line (<code>.venv/bin/python -m app.cli</code> in a checkout where it is
      not installed):
    </p>
    <pre class="commands" id="push-cli" tabindex="0" aria-label="ome-ranker command"><code>${command}</code></pre>
    <p>
      Then <button type="button" id="clusters-again" onClick=${again}>look again</button>.
      Or rank manifests without storing anything: <a href="#/try" id="no-clusters-try">Try it</a>.
    </p>
  </div>`;
}

function ClusterTable({ clusters }) {
  const kinds = Object.keys(clusters[0].counts || {});
  return html`<${Scroll} label="Clusters">
    <table id="clusters-table" class="clusters-table">
      <thead>
        <tr>
          <th scope="col">CLUSTER</th>
          <th scope="col">DESCRIPTION</th>
          <th scope="col">OME VERSION</th>
          <th scope="col">MODEL CACHE PROVIDER</th>
          <th scope="col">GENERATION</th>
          <th scope="col">UPDATED</th>
          <th scope="col">OBJECTS</th>
          <th scope="col">TRY IT</th>
        </tr>
      </thead>
      <tbody>
        ${clusters.map(
          (cluster) => html`<tr data-cluster=${cluster.name}>
            <${ClusterHeader} name=${cluster.name} />
            <td data-col="description" class="text">${cell(cluster.description)}</td>
            <td data-col="omeVersion">${cell(cluster.omeVersion)}</td>
            <td data-col="modelCacheProvider">${cell(cluster.modelCacheProvider)}</td>
            <td data-col="generation">${cell(cluster.generation)}</td>
            <td data-col="updatedAt">${cell(cluster.updatedAt)}</td>
            <td data-col="counts">
              <ul class="kind-counts">
                ${kinds.map(
                  (kind) => html`<li data-kind=${kind}>
                    <span class="count">${cell(cluster.counts[kind])}</span> ${kind}
                  </li>`,
                )}
              </ul>
            </td>
            <td data-col="try"><a href=${tryHash({ cluster: cluster.name })}>Try manifests against it</a></td>
          </tr>`,
        )}
      </tbody>
    </table>
  <//>`;
}

// The selections view's outcome filter: with a runtime, or one of the three outcomes that split
// a cluster's InferenceServices as `GET /v1/fleet` counts them (rules §21), under its names.
const OUTCOMES = [
  ["", "Every outcome"],
  ["runtime", "With a runtime"],
  ["selected", "Selected by OME"],
  ["explicit", "Explicit runtime"],
  ["noRuntime", "No runtime"],
];

function outcomeOf(row, outcome) {
  if (outcome === "runtime") {
    return row.runtime !== null;
  }
  if (outcome === "selected") {
    return row.runtime !== null && row.runtime.explicit !== true;
  }
  if (outcome === "explicit") {
    return row.runtime !== null && row.runtime.explicit === true;
  }
  if (outcome === "noRuntime") {
    return row.runtime === null;
  }
  return true;
}

// The address's outcome: one of OUTCOMES (`none`, its earlier name, is `noRuntime`), else every
// outcome.
function outcomeParam(params) {
  const asked = params.get("outcome") || "";
  const outcome = asked === "none" ? "noRuntime" : asked;
  return OUTCOMES.some(([value]) => value === outcome) ? outcome : "";
}

class SelectionsView extends Component {
  constructor(props) {
    super(props);
    this.state = {
      namespace: props.params.get("namespace") || "",
      outcome: outcomeParam(props.params),
      model: "",
      modelNamespace: "",
    };
  }

  remember(changes) {
    this.setState(changes, () => {
      const { namespace, outcome } = this.state;
      // The history's page size, as the address asks, stays in it.
      const asked = this.props.params.get("historyLimit");
      // replaceState: the filters go into the address without a new route (and no refetch).
      window.history.replaceState(
        null,
        "",
        selectionsHash(this.props.cluster, { namespace, outcome, historyLimit: asked }),
      );
    });
  }

  rankModel = (event) => {
    event.preventDefault();
    const { model, modelNamespace } = this.state;
    if (model) {
      window.location.hash = rankHash(this.props.cluster, { model, namespace: modelNamespace });
    }
  };

  render({ cluster, params }, { model, modelNamespace }) {
    return html`<section>
      <p class="crumbs"><a href="#/clusters">Clusters</a> › ${cluster}</p>
      <h1 id="view-title" tabindex="-1">Selections in ${cluster}</h1>
      <p class="lead">
        Every stored InferenceService with the runtime OME gives it
        (<code>GET /v1/clusters/${cluster}/selections</code>). Open one to see its ranking.
      </p>
      <${Fetch}
        label="selections"
        request=${() => call("GET", `${clusterPath(cluster)}/selections`)}
        show=${(data) => this.table(data)}
      />
      <form class="inline-form" id="rank-model-form" onSubmit=${this.rankModel}>
        <h2>Rank a model of ${cluster}</h2>
        <div class="fields">
          <label for="rank-model">Model name</label>
          <input
            id="rank-model"
            value=${model}
            required
            onInput=${(event) => this.setState({ model: event.currentTarget.value })}
          />
          <label for="rank-namespace">Namespace</label>
          <input
            id="rank-namespace"
            value=${modelNamespace}
            placeholder="default"
            onInput=${(event) => this.setState({ modelNamespace: event.currentTarget.value })}
          />
          <button type="submit">Rank</button>
        </div>
      </form>
      <${ClusterHistory}
        cluster=${cluster}
        limit=${historyLimit(params, CLUSTER_PAGE)}
        rankHash=${rankHash}
      />
    </section>`;
  }

  table(data) {
    const { cluster } = this.props;
    const { namespace, outcome } = this.state;
    if (data.selections.length === 0) {
      return html`<${NoSelections} cluster=${cluster} />`;
    }
    const namespaces = [...new Set(data.selections.map((row) => row.namespace))];
    if (namespace && !namespaces.includes(namespace)) {
      namespaces.push(namespace); // named in the address, but holds no InferenceService
    }
    const inNamespace = data.selections.filter((row) => !namespace || row.namespace === namespace);
    const shown = inNamespace.filter((row) => outcomeOf(row, outcome));
    const numberOf = (wanted) => inNamespace.filter((row) => outcomeOf(row, wanted)).length;
    const counts = {
      total: namespace ? inNamespace.length : data.count,
      runtime: numberOf("runtime"),
      selected: numberOf("selected"),
      explicit: numberOf("explicit"),
      none: numberOf("noRuntime"),
    };
    return html`<div>
      <dl class="counts" id="selection-counts">
        <div><dt>InferenceServices</dt><dd data-count="total">${counts.total}</dd></div>
        <div><dt>With a runtime</dt><dd data-count="runtime">${counts.runtime}</dd></div>
        <div><dt>Selected by OME</dt><dd data-count="selected">${counts.selected}</dd></div>
        <div><dt>Explicit runtime</dt><dd data-count="explicit">${counts.explicit}</dd></div>
        <div><dt>No runtime</dt><dd data-count="none">${counts.none}</dd></div>
      </dl>
      <p class="quiet">
        Generation ${data.generation}${namespace ? `, namespace ${namespace}` : ", every namespace"}.
      </p>
      <div class="filters">
        <div>
          <label for="filter-namespace">Namespace</label>
          <select
            id="filter-namespace"
            value=${namespace}
            onChange=${(event) => this.remember({ namespace: event.currentTarget.value })}
          >
            <option value="">Every namespace</option>
            ${namespaces.map((name) => html`<option value=${name}>${name}</option>`)}
          </select>
        </div>
        <div>
          <label for="filter-outcome">Outcome</label>
          <select
            id="filter-outcome"
            value=${outcome}
            onChange=${(event) => this.remember({ outcome: event.currentTarget.value })}
          >
            ${OUTCOMES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        </div>
        <p class="quiet" id="shown-count" role="status">
          Showing ${shown.length} of ${inNamespace.length}.
        </p>
      </div>
      <${Scroll} label="Selections">
        <table id="selections-table">
          <thead>
            <tr>
              <th scope="col">NAMESPACE</th>
              <th scope="col">INFERENCESERVICE</th>
              <th scope="col">MODEL</th>
              <th scope="col">RUNTIME</th>
              <th scope="col">SCOPE</th>
              <th scope="col">EXPLICIT</th>
              <th scope="col">MESSAGE</th>
            </tr>
          </thead>
          <tbody>
            ${shown.map((row) => {
              const link = row.name
                ? rankHash(cluster, { inferenceService: `${row.namespace}/${row.name}` })
                : rankHash(cluster, { model: row.model, namespace: row.namespace });
              return html`<tr data-isvc=${`${row.namespace}/${row.name}`}>
                <td data-col="namespace">${row.namespace}</td>
                <th scope="row" data-col="name"><a href=${link}>${cell(row.name)}</a></th>
                <td data-col="model">${cell(row.model)}</td>
                <td data-col="runtime">${cell(row.runtime && row.runtime.name)}</td>
                <td data-col="scope">${cell(row.runtime && row.runtime.scope)}</td>
                <td data-col="explicit">${cell(row.runtime && row.runtime.explicit)}</td>
                <td data-col="message" class="text">
                  ${row.message}${row.error ? html` <span class="badge">${row.error}</span>` : null}
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      <//>
    </div>`;
  }
}

// A catalog without InferenceServices has no selection to list: its models can still be ranked
// by name (the ranking view by model), so the page lists them.
function NoSelections({ cluster }) {
  return html`<div class="empty" id="no-selections">
    <p>
      <strong>${cluster} holds no InferenceService</strong>, so there is no selection to list. To
      see which runtime a model would get, rank the model by name instead: pick one of the
      cluster's models below, or type its name under “Rank a model of ${cluster}”.
    </p>
    <${Fetch}
      label="the cluster's models"
      request=${() => storedModels(cluster)}
      show=${(models) =>
        models.length === 0
          ? html`<p id="no-models">${cluster} holds no model either.</p>`
          : html`<ul id="cluster-models">
              ${models.map(
                (model) => html`<li>
                  <a href=${rankHash(cluster, modelQuestion(model))}>
                    Rank ${model.metadata.name}
                  </a>
                  <span class="quiet">
                    ${" "}(${model.kind}, ${scopeWhere(model.metadata.namespace)})
                  </span>
                </li>`,
              )}
            </ul>`}
    />
  </div>`;
}

function modelQuestion(model) {
  return model.kind === "ClusterBaseModel"
    ? { model: model.metadata.name, modelKind: "ClusterBaseModel" }
    : { model: model.metadata.name, namespace: model.metadata.namespace, modelKind: "BaseModel" };
}

// The cluster's BaseModels and ClusterBaseModels (GET …/objects?kind=), as one answer.
async function storedModels(cluster) {
  const answers = await Promise.all(
    ["BaseModel", "ClusterBaseModel"].map((kind) =>
      call("GET", withQuery(`${clusterPath(cluster)}/objects`, { kind })),
    ),
  );
  const failed = answers.find((answer) => !answer.ok);
  return failed || { ok: true, data: answers.flatMap((answer) => answer.data.items || []) };
}

// The runtimes' supportedModelFormats, for naming the entries of toWin and wayOut: the stored runtimes of
// the ranking's scopes (GET …/objects?kind=), by `<scope>|<name>`. Empty when they cannot be had
// (the page then numbers the entries).
async function storedEntries(cluster, answer) {
  const entries = new Map();
  const scopes = new Set(
    answer.runtimes.filter((row) => row.toWin || row.wayOut).map((row) => row.scope),
  );
  await Promise.all(
    [...scopes].map(async (scope) => {
      const query =
        scope === "Cluster"
          ? { kind: "ClusterServingRuntime" }
          : { kind: "ServingRuntime", namespace: answer.namespace };
      const listed = await call("GET", withQuery(`${clusterPath(cluster)}/objects`, query));
      const items = listed.ok && Array.isArray(listed.data.items) ? listed.data.items : [];
      for (const item of items) {
        const formats = item.spec ? item.spec.supportedModelFormats : null;
        entries.set(`${scope}|${item.metadata.name}`, Array.isArray(formats) ? formats : null);
      }
    }),
  );
  return entries;
}

// A model asked by name that the catalog holds in other namespaces (the 404's `namespaces`):
// the same question asked there, one link each.
function Elsewhere({ cluster, question, error }) {
  if (error.code !== "ModelNotFound" || !Array.isArray(error.namespaces) || !question.model) {
    return null;
  }
  return html`<p class="error-elsewhere" id="model-elsewhere">
    Rank it in${" "}
    ${error.namespaces.map(
      (namespace, index) => html`${index ? ", " : ""}<a href=${rankHash(cluster, { ...question, namespace })}
        >${namespace}</a
      >`,
    )}
  </p>`;
}

// `?inferenceService=<namespace>/<name>` as the API reads it: the namespace before the last `/`,
// else `?namespace=`, else `default`; null without a name (the ranking says what is wrong).
function inferenceServiceOf(question) {
  const cut = question.inferenceService.lastIndexOf("/");
  const name = question.inferenceService.slice(cut + 1);
  const namespace =
    question.inferenceService.slice(0, Math.max(cut, 0)) || question.namespace || "default";
  return name ? { namespace, name } : null;
}

function RankView({ cluster, params }) {
  const question = {
    inferenceService: params.get("inferenceService") || "",
    model: params.get("model") || "",
    namespace: params.get("namespace") || "",
    modelKind: params.get("modelKind") || "",
  };
  const isvc = question.inferenceService ? inferenceServiceOf(question) : null;
  const subject = question.inferenceService
    ? `InferenceService ${question.inferenceService}`
    : `model ${question.model}${question.namespace ? ` in ${question.namespace}` : ""}`;
  return html`<section>
    <p class="crumbs">
      <a href="#/clusters">Clusters</a> › <a href=${selectionsHash(cluster)}>${cluster}</a> › ranking
    </p>
    <h1 id="view-title" tabindex="-1">Ranking for ${subject}</h1>
    <p class="lead">
      What OME would do in ${cluster} (<code>GET /v1/clusters/${cluster}/rank</code>), as${" "}
      <code>kubectl ome runtime explain</code> prints it.
    </p>
    <${Fetch}
      label="the ranking"
      request=${async () => {
        const ranked = await call("GET", withQuery(`${clusterPath(cluster)}/rank`, question));
        if (!ranked.ok) {
          return ranked;
        }
        const entries = await storedEntries(cluster, ranked.data);
        return { ...ranked, data: { answer: ranked.data, entries } };
      }}
      show=${({ answer, entries }) => html`<${Ranking} answer=${answer} entries=${entries} />`}
      after=${(error) => html`<${Elsewhere} cluster=${cluster} question=${question} error=${error} />`}
    />
    ${isvc
      ? html`<${InferenceServiceHistory}
          cluster=${cluster}
          namespace=${isvc.namespace}
          name=${isvc.name}
          limit=${historyLimit(params, TIMELINE_PAGE)}
        />`
      : null}
  </section>`;
}

function Lint({ answer }) {
  return html`<div class="lint">
    <dl class="counts">
      <div><dt>Admitted</dt><dd id="lint-admitted">${cell(answer.admitted)}</dd></div>
      ${Object.entries(answer.counts || {}).map(
        ([severity, count]) =>
          html`<div><dt>${severity}</dt><dd data-count=${severity}>${count}</dd></div>`,
      )}
    </dl>
    ${answer.findings.length === 0
      ? html`<p class="empty" id="no-findings">No findings: kubectl apply would print nothing.</p>`
      : html`<${Scroll} label="Findings">
          <table id="lint-table">
            <thead>
              <tr>
                <th scope="col">SEVERITY</th>
                <th scope="col">KIND</th>
                <th scope="col">NAME</th>
                <th scope="col">FIELD</th>
                <th scope="col">CODE</th>
                <th scope="col">MESSAGE</th>
              </tr>
            </thead>
            <tbody>
              ${answer.findings.map(
                (finding) => html`<tr class=${`severity-${finding.severity}`}>
                  <td data-col="severity">${finding.severity}</td>
                  <td data-col="kind">${cell(finding.kind)}</td>
                  <td data-col="name">${qualifiedName(finding.namespace, finding.name)}</td>
                  <td data-col="field" class="wrap">${cell(finding.field)}</td>
                  <td data-col="code">${cell(finding.code)}</td>
                  <td data-col="message" class="text">${finding.message}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        <//>`}
    <${Messages} id="lint-warnings" title="Warnings" items=${answer.warnings} />
    <${Ignored} items=${answer.ignored} />
  </div>`;
}

function runtimeText(outcome) {
  return cell(outcome.runtime && outcome.runtime.name);
}

// The rows of one cluster's impact (a change's `changes`), as the per-cluster impact and each
// cluster of the fleet's show them; `id` for the one cluster's table.
function ImpactTable({ changes, cluster, id, label }) {
  return html`<${Scroll} label=${label}>
    <table id=${id} class="impact-table">
      <thead>
        <tr>
          <th scope="col">NAMESPACE</th>
          <th scope="col">INFERENCESERVICE</th>
          <th scope="col">MODEL</th>
          <th scope="col">BEFORE</th>
          <th scope="col">AFTER</th>
          <th scope="col">MESSAGE BEFORE</th>
          <th scope="col">MESSAGE AFTER</th>
        </tr>
      </thead>
      <tbody>
        ${changes.map(
          (change) => html`<tr>
            <td data-col="namespace">${change.namespace}</td>
            <th scope="row" data-col="name">
              <a href=${rankHash(cluster, { inferenceService: `${change.namespace}/${change.name}` })}
                >${change.name}</a
              >
            </th>
            <td data-col="model">${cell(change.model)}</td>
            <td data-col="before">${runtimeText(change.before)}</td>
            <td data-col="after">${runtimeText(change.after)}</td>
            <td data-col="message-before" class="text">${change.before.message}</td>
            <td data-col="message-after" class="text">${change.after.message}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  <//>`;
}

function Impact({ answer, cluster }) {
  return html`<div class="impact">
    <p id="impact-summary">
      Checked ${answer.checked} InferenceServices of ${cluster}; ${answer.count} would change.
    </p>
    ${answer.changes.length === 0
      ? null
      : html`<${ImpactTable}
          changes=${answer.changes}
          cluster=${cluster}
          id="impact-table"
          label="Changed InferenceServices"
        />`}
  </div>`;
}

// Cluster names, each a link to its selections: `fleet-c, fleet-d`.
function ClusterLinks({ names }) {
  return names.map(
    (name, index) => html`${index ? ", " : ""}<a href=${selectionsHash(name)}>${name}</a>`,
  );
}

// `POST /v1/fleet/impact`'s answer (rules §19, "Fleet impact"): its summary; a section for each
// cluster the change moves something in, with that cluster's rows in the per-cluster table; the
// clusters it moves nothing in on one line; and how many clusters the token may not read (the
// answer counts them and never names them).
function FleetImpact({ answer }) {
  const moved = answer.clusters.filter((part) => part.count > 0);
  const unmoved = answer.clusters.filter((part) => part.count === 0).map((part) => part.cluster);
  return html`<div class="impact fleet-impact">
    <p id="fleet-impact-summary" class="fleet-summary">${answer.summary}</p>
    ${moved.map(
      (part) => html`<section
        class="fleet-cluster"
        data-cluster=${part.cluster}
        aria-labelledby=${`fleet-${part.cluster}-title`}
      >
        <h3 id=${`fleet-${part.cluster}-title`}>
          <a href=${selectionsHash(part.cluster)}>${part.cluster}</a>
        </h3>
        <p class="quiet fleet-cluster-counts">
          Generation ${part.generation}: checked ${counted(part.checked, "InferenceService")};
          ${" "}${part.count} would change.
        </p>
        <${ImpactTable}
          changes=${part.changes}
          cluster=${part.cluster}
          label=${`Changed InferenceServices in ${part.cluster}`}
        />
      </section>`,
    )}
    ${unmoved.length
      ? html`<p id="fleet-unchanged">No change in <${ClusterLinks} names=${unmoved} />.</p>`
      : null}
    <${NotReadable} count=${answer.notReadable} />
  </div>`;
}

// Streams larger than this (characters) are cut into objects once typing pauses.
const LARGE_STREAM = 256 * 1024;

// The seed example, as the service ships it (the same bytes as tests/fixtures/seed_example.yaml).
const SEED_EXAMPLE = "/ui/examples/seed_example.yaml";

const RESULT_TITLES = {
  rank: "Ranking of the pasted manifests",
  lint: "What kubectl apply would answer",
  impact: "InferenceServices this change would move",
  fleet: "InferenceServices this change would move in every cluster",
};

// The impact's choice of "every cluster" (POST /v1/fleet/impact), in the select and in the
// address (`#/try?cluster=*`): no cluster is named `*` (a DNS-1123 label), and a token's read
// list writes every cluster so.
const EVERY = "*";

// JSON as JSON (an object, a kind: List, an array of manifests); anything else as YAML.
function mediaTypeOf(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" ? "application/json" : "application/yaml";
  } catch {
    return "application/yaml";
  }
}

class TryView extends Component {
  constructor(props) {
    super(props);
    this.state = {
      text: "",
      namespace: "",
      omeVersion: "",
      cluster: props.params.get("cluster") || "",
      clusters: null,
      clustersError: null,
      busy: false,
      notice: null,
      result: null,
      pick: "",
      loading: false,
    };
  }

  // The pasted stream cut into objects, and the models and InferenceServices to choose from
  // when it holds several: read again when the text changes, a large one once typing pauses
  // (`now`: at once).
  reading(now = false) {
    const { text } = this.state;
    if (this.read === undefined || this.read.text !== text) {
      clearTimeout(this.readLater);
      if (!now && text.length > LARGE_STREAM) {
        this.readLater = setTimeout(() => {
          if (!this.gone) {
            this.reading(true);
            this.forceUpdate();
          }
        }, 300);
        return { text, stream: null, choices: null };
      }
      const stream = readStream(text);
      this.read = { text, stream, choices: choicesOf(stream) };
    }
    return this.read;
  }

  // The choice made, or the one the command line would make unasked.
  chosen() {
    const { choices } = this.reading();
    if (choices === null) {
      return null;
    }
    const { pick } = this.state;
    return (
      choices.choices.find((choice) => choice.key === pick) ||
      choices.choices.find((choice) => choice.key === choices.preferred)
    );
  }

  loadSeed = async () => {
    this.setState({ loading: true, notice: null });
    const text = await fetchText(SEED_EXAMPLE);
    if (this.gone) {
      return;
    }
    if (text === null) {
      const notice = "The seed example could not be read from the service.";
      this.setState({ loading: false, notice });
    } else {
      this.setState({ loading: false, text });
    }
  };

  componentDidMount() {
    this.loadClusters();
  }

  componentDidUpdate(previous) {
    // A new token: other clusters to compare with; what was pasted stays.
    if (previous.tokens !== this.props.tokens) {
      this.loadClusters();
    }
  }

  loadClusters() {
    call("GET", "/v1/clusters").then((answer) => {
      if (this.gone) {
        return;
      }
      if (answer.ok) {
        const clusters = answer.data.clusters.map((cluster) => cluster.name);
        this.setState({ clusters, clustersError: null });
      } else {
        this.setState({ clusters: [], clustersError: answer });
      }
    });
  }

  componentWillUnmount() {
    this.gone = true;
    clearTimeout(this.readLater);
  }

  readFile = (event) => {
    const file = event.currentTarget.files[0];
    if (file) {
      file.text().then((text) => this.setState({ text }));
    }
  };

  async send(asked) {
    const { text, namespace, omeVersion, cluster, busy } = this.state;
    if (busy) {
      return;
    }
    if (asked === "impact" && !cluster) {
      this.setState({ notice: "Choose a cluster to compare with first." });
      return;
    }
    const action = asked === "impact" && cluster === EVERY ? "fleet" : asked;
    let path;
    let sent = { body: text, contentType: mediaTypeOf(text) };
    const { stream } = this.reading(true);
    let choice = null;
    if (action === "rank") {
      path = withQuery("/v1/rank", { namespace, omeVersion });
      // One model and at most one InferenceService per ranking: the chosen ones, as typed.
      choice = this.chosen();
      if (choice) {
        sent = streamBody(stream.format, chosenObjects(stream, choice));
      }
    } else if (action === "lint") {
      path = withQuery("/v1/lint", { omeVersion });
    } else if (action === "fleet") {
      path = withQuery("/v1/fleet/impact", { omeVersion });
    } else {
      path = withQuery(`${clusterPath(cluster)}/impact`, { omeVersion });
    }
    this.setState({ busy: true, notice: null });
    const answer = await call("POST", path, sent);
    if (this.gone) {
      return;
    }
    // `number` tells one answer from the next (data-answer), for whoever waits for it.
    const number = (this.state.result ? this.state.result.number : 0) + 1;
    const result = { action, cluster, answer, stream, choice, number };
    this.setState({ busy: false, result }, () => {
      const heading = document.getElementById("result-title");
      if (heading) {
        heading.focus();
      }
    });
  }

  chooseCluster = (event) => {
    const cluster = event.currentTarget.value;
    this.setState({ cluster });
    window.history.replaceState(null, "", tryHash({ cluster }));
  };

  render(_, state) {
    const { text, namespace, omeVersion, cluster, clusters, clustersError, busy, notice } = state;
    const { choices } = this.reading();
    return html`<section>
      <h1 id="view-title" tabindex="-1">Try it</h1>
      <p class="lead">
        Paste manifests (YAML or JSON, as <code>kubectl apply -f</code> takes them) or read a
        local file, then rank them, lint them, or see which InferenceServices of a stored
        cluster, or of every one, they would move. Nothing is stored.
      </p>
      <div class="try-form">
        <label for="manifests">Manifests</label>
        <textarea
          id="manifests"
          rows="14"
          spellcheck="false"
          autocomplete="off"
          value=${text}
          onInput=${(event) => this.setState({ text: event.currentTarget.value })}
        ></textarea>
        <div class="fields">
          <label for="manifest-file">Or read a local file</label>
          <input
            id="manifest-file"
            type="file"
            accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml,text/plain"
            onChange=${this.readFile}
          />
          <button
            type="button"
            id="load-seed"
            onClick=${this.loadSeed}
            aria-disabled=${state.loading}
            aria-describedby="load-seed-what"
          >
            Load the seed example
          </button>
          <span class="quiet" id="load-seed-what">
            a BaseModel and four runtimes (OME's runtime selection scoring page)
          </span>
        </div>
        ${choices ? this.picker(choices) : null}
        <div class="fields">
          <label for="try-namespace">Namespace (optional)</label>
          <input
            id="try-namespace"
            value=${namespace}
            onInput=${(event) => this.setState({ namespace: event.currentTarget.value })}
          />
          <label for="try-ome-version">OME version (optional)</label>
          <input
            id="try-ome-version"
            value=${omeVersion}
            placeholder="1.3"
            onInput=${(event) => this.setState({ omeVersion: event.currentTarget.value })}
          />
        </div>
        <div class="actions">
          <button type="button" id="do-rank" onClick=${() => this.send("rank")} aria-disabled=${busy}>
            Rank
          </button>
          <button type="button" id="do-lint" onClick=${() => this.send("lint")} aria-disabled=${busy}>
            Lint
          </button>
        </div>
        <div class="fields impact-fields">
          <label for="impact-cluster">Cluster for impact</label>
          <select id="impact-cluster" value=${cluster} onChange=${this.chooseCluster}>
            <option value="">Choose a cluster</option>
            <option value=${EVERY}>Every cluster</option>
            ${(clusters || []).map((name) => html`<option value=${name}>${name}</option>`)}
            ${cluster && cluster !== EVERY && clusters && !clusters.includes(cluster)
              ? html`<option value=${cluster}>${cluster}</option>`
              : null}
          </select>
          <button
            type="button"
            id="do-impact"
            onClick=${() => this.send("impact")}
            aria-disabled=${!cluster || busy}
          >
            Impact${cluster === EVERY ? " on every cluster" : cluster ? ` on ${cluster}` : ""}
          </button>
        </div>
        ${clustersError
          ? html`<p class="quiet" id="clusters-unavailable">
              No stored cluster to compare with: ${clustersError.error.message}
            </p>`
          : null}
        ${busy ? html`<p class="status" role="status">Asking the service…</p>` : null}
        ${notice ? html`<p class="notice" id="try-notice" role="alert">${notice}</p>` : null}
      </div>
      ${state.result ? this.result(state.result) : null}
    </section>`;
  }

  picker(choices) {
    const chosen = this.chosen();
    const services = choices.choices.filter((choice) => choice.kind === "InferenceService");
    const models = choices.choices.filter((choice) => choice.kind !== "InferenceService");
    return html`<div class="pick" id="pick">
      <div class="fields">
        <label for="rank-pick">Model or InferenceService to rank</label>
        <select
          id="rank-pick"
          value=${chosen.key}
          aria-describedby="pick-why"
          onChange=${(event) => this.setState({ pick: event.currentTarget.value })}
        >
          ${services.length
            ? html`<optgroup label="InferenceServices (with their model)">
                ${services.map(
                  (choice) => html`<option value=${choice.key}>
                    ${choice.label}${choice.model === null ? "" : ` (model ${choice.model})`}
                  </option>`,
                )}
              </optgroup>`
            : null}
          <optgroup label="Models (alone)">
            ${models.map(
              (choice) => html`<option value=${choice.key}>${choice.label} (${choice.kind})</option>`,
            )}
          </optgroup>
        </select>
      </div>
      <p class="quiet" id="pick-why">
        The manifests hold ${counted(choices.services, "InferenceService")} and
        ${" "}${counted(choices.models, "model")}; a ranking is of one model and at most one
        InferenceService. Rank sends the chosen one (an InferenceService with its model), every
        runtime and the objects of other kinds, as <code>ome-ranker rank --inference-service</code>${" "}
        or <code>--model</code> would; Lint and Impact send everything.
      </p>
    </div>`;
  }

  result({ action, cluster, answer, stream, choice, number }) {
    let body;
    if (!answer.ok) {
      body = html`<${ErrorBox} error=${answer.error} status=${answer.status} />`;
    } else if (action === "rank") {
      const entries = entriesOf(stream, answer.data.namespace);
      body = html`<${Ranking} answer=${answer.data} entries=${entries} />`;
    } else if (action === "lint") {
      body = html`<${Lint} answer=${answer.data} />`;
    } else if (action === "fleet") {
      body = html`<${FleetImpact} answer=${answer.data} />`;
    } else {
      body = html`<${Impact} answer=${answer.data} cluster=${cluster} />`;
    }
    return html`<section
      class="result"
      id=${`result-${action}`}
      data-answer=${number}
      aria-labelledby="result-title"
    >
      <h2 id="result-title" tabindex="-1">
        ${RESULT_TITLES[action]}${action === "impact" ? ` (${cluster})` : ""}
        ${choice ? `: ${choice.kind} ${choice.label}` : ""}
      </h2>
      ${body}
    </section>`;
  }
}

function MissingView() {
  return html`<section>
    <h1 id="view-title" tabindex="-1">No such view</h1>
    <p><a href="#/">Back to the fleet</a></p>
  </section>`;
}

// --- the token and the page ---------------------------------------------------------------------

class TokenForm extends Component {
  state = { draft: "" };

  save = (event) => {
    event.preventDefault();
    this.props.onChange(this.state.draft.trim());
    this.setState({ draft: "" });
  };

  forget = () => {
    this.props.onChange("");
    this.setState({ draft: "" });
  };

  render({ hasToken }, { draft }) {
    return html`<form class="token" id="token-form" onSubmit=${this.save}>
      <label for="token">API token</label>
      <input
        id="token"
        type="password"
        autocomplete="off"
        spellcheck="false"
        value=${draft}
        onInput=${(event) => this.setState({ draft: event.currentTarget.value })}
      />
      <button type="submit" id="token-use">Use token</button>
      <button type="button" id="token-forget" onClick=${this.forget}>Forget</button>
      <span id="token-state" class="quiet" role="status">
        ${hasToken ? "A token is set for this tab." : "No token."}
      </span>
    </form>`;
  }
}

const TITLES = {
  fleet: "Fleet",
  clusters: "Clusters",
  selections: "Selections",
  rank: "Ranking",
  try: "Try it",
  missing: "No such view",
};

// "open" when the service runs without access control (OME_RANKER_AUTH=none): no token then.
const OPEN = document.querySelector('meta[name="ome-ranker-access"]')?.content === "open";

class App extends Component {
  state = { route: parseRoute(window.location.hash), tokens: 0, hasToken: Boolean(getToken()) };

  componentDidMount() {
    window.addEventListener("hashchange", this.followHash);
    this.title();
  }

  componentWillUnmount() {
    window.removeEventListener("hashchange", this.followHash);
  }

  followHash = () => {
    this.setState({ route: parseRoute(window.location.hash) }, () => {
      this.title();
      focusHeading();
    });
  };

  title() {
    const { route } = this.state;
    const where = route.cluster ? ` · ${route.cluster}` : "";
    document.title = `${TITLES[route.view]}${where} · ome-ranker`;
  }

  changeToken = (token) => {
    setToken(token);
    this.setState(({ tokens }) => ({ tokens: tokens + 1, hasToken: Boolean(token) }));
  };

  skip = () => {
    focusHeading();
  };

  view() {
    const { route, tokens } = this.state;
    const key = `${route.view}|${route.cluster || ""}|${tokens}`;
    switch (route.view) {
      case "fleet":
        return html`<${FleetView} key=${key} open=${OPEN} />`;
      case "clusters":
        return html`<${ClustersView} key=${key} open=${OPEN} />`;
      case "selections":
        return html`<${SelectionsView} key=${key} cluster=${route.cluster} params=${route.params} />`;
      case "rank":
        return html`<${RankView}
          key=${`${key}|${route.params.toString()}`}
          cluster=${route.cluster}
          params=${route.params}
        />`;
      case "try":
        // Not remounted for a new token: what was pasted stays.
        return html`<${TryView} key="try" tokens=${tokens} params=${route.params} />`;
      default:
        return html`<${MissingView} />`;
    }
  }

  render(_, { route, hasToken }) {
    const current = (view) => (route.view === view ? "page" : undefined);
    return html`<div class="page">
      <header class="top">
        <button type="button" class="skip" onClick=${this.skip}>Skip to content</button>
        <p class="brand"><a href="#/">ome-ranker</a></p>
        <nav aria-label="Views">
          <ul>
            <li><a href="#/" id="nav-fleet" aria-current=${current("fleet")}>Fleet</a></li>
            <li><a href="#/clusters" id="nav-clusters" aria-current=${current("clusters")}>Clusters</a></li>
            <li><a href="#/try" id="nav-try" aria-current=${current("try")}>Try it</a></li>
            <li><a href="/docs">API docs</a></li>
          </ul>
        </nav>
        ${OPEN ? null : html`<${TokenForm} hasToken=${hasToken} onChange=${this.changeToken} />`}
      </header>
      <main id="main">${this.view()}</main>
    </div>`;
  }
}

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
