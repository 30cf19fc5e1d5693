// A pasted stream of manifests, cut into its objects: where each one starts and ends, its kind,
// namespace and name, and the few fields the page names (an InferenceService's model, a
// runtime's supportedModelFormats). The page never ranks what it reads here: to rank one of
// several models or InferenceServices it sends the chosen objects *as they were typed* (each
// object's own lines, or its JSON), and the service reads them as it reads any body.
//
// JSON is read with JSON.parse. YAML is read as far as manifests use it: block mappings and
// sequences, plain, quoted and block scalars, one-line (or bracketed multi-line) flow
// collections, comments, `---` between documents. Anything else (anchors, aliases, tags,
// complex keys, tabs in indentation) makes readStream answer null: the page then sends the
// stream whole, as before, and the service says what it thinks of it.

class Unsupported extends Error {}

const MODEL_KINDS = ["BaseModel", "ClusterBaseModel"];
const RUNTIME_KINDS = ["ServingRuntime", "ClusterServingRuntime"];
const ISVC_KIND = "InferenceService";
const CLUSTER_MODEL_KIND = "ClusterBaseModel";

// --- YAML, as manifests write it ------------------------------------------------------------

function isBlank(line) {
  return line.text === "" || line.text.startsWith("#");
}

function isSeqItem(text) {
  return text === "-" || text.startsWith("- ");
}

// Calls `visit(char, index)` for each character of `text` outside quotes ('…' or "…" with
// backslash escapes); stops early, returning the index, when `visit` returns true. Returns -1 at
// the end, or -2 when a quote is still open there.
function scanUnquoted(text, visit) {
  let quote = null;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quote) {
      if (char === "\\" && quote === '"') {
        index += 1;
      } else if (char === quote) {
        quote = null;
      }
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (visit(char, index)) {
      return index;
    }
  }
  return quote === null ? -1 : -2;
}

// The text before a comment (`#` at the start or after a space), outside quotes.
function withoutComment(text) {
  const at = scanUnquoted(
    text,
    (char, index) => char === "#" && (index === 0 || text[index - 1] === " "),
  );
  return (at >= 0 ? text.slice(0, at) : text).trimEnd();
}

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const TRUES = new Set(["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"]);
const FALSES = new Set(["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"]);
const INTEGER = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+\.[0-9]*)([eE][-+]?[0-9]+)?$/;

function plainValue(text) {
  if (NULLS.has(text)) {
    return null;
  }
  if (TRUES.has(text)) {
    return true;
  }
  if (FALSES.has(text)) {
    return false;
  }
  if (INTEGER.test(text) || FLOAT.test(text) || /^0x[0-9a-fA-F]+$/.test(text)) {
    return Number(text);
  }
  if (/^[&*!%@`|>?]/.test(text)) {
    throw new Unsupported(`YAML beyond manifests: ${text.slice(0, 20)}`);
  }
  return text;
}

const ESCAPES = { n: "\n", t: "\t", r: "\r", 0: "\0", "\\": "\\", '"': '"', "/": "/", " ": " " };

// A quoted scalar at the start of `text`: [value, the rest after the closing quote], or null when
// the quote does not close in `text`.
function quoted(text) {
  const quote = text[0];
  let value = "";
  let index = 1;
  const special = quote === "'" ? /'/g : /["\\]/g;
  for (;;) {
    special.lastIndex = index;
    const found = special.exec(text);
    if (found === null) {
      return null;
    }
    value += text.slice(index, found.index);
    index = found.index;
    if (quote === "'") {
      if (text[index + 1] === "'") {
        value += "'";
        index += 2;
        continue;
      }
      return [value, text.slice(index + 1)];
    }
    if (text[index] === '"') {
      return [value, text.slice(index + 1)];
    }
    const next = text[index + 1];
    if (next === "u" || next === "x") {
      const size = next === "u" ? 4 : 2;
      value += String.fromCharCode(parseInt(text.slice(index + 2, index + 2 + size), 16));
      index += 2 + size;
    } else if (next === "\n") {
      index += 2; // an escaped line break joins the lines
    } else {
      value += ESCAPES[next] ?? next;
      index += 2;
    }
  }
}

// The flow collections of `{a: b, c: [d]}` and `["a", 'b']`.
function flow(text) {
  let index = 0;
  const space = () => {
    while (index < text.length && /\s/.test(text[index])) {
      index += 1;
    }
  };
  const scalar = (inMapping) => {
    space();
    const char = text[index];
    if (char === '"' || char === "'") {
      const found = quoted(text.slice(index));
      if (found === null) {
        throw new Unsupported("an unclosed quote");
      }
      index = text.length - found[1].length;
      return found[0];
    }
    const start = index;
    while (index < text.length) {
      const here = text[index];
      if (here === "," || here === "]" || here === "}") {
        break;
      }
      if (inMapping && here === ":" && /[\s,\]}]/.test(text[index + 1] || " ")) {
        break;
      }
      index += 1;
    }
    return plainValue(text.slice(start, index).trim());
  };
  const node = (inMapping) => {
    space();
    if (text[index] === "[") {
      index += 1;
      const items = [];
      space();
      while (text[index] !== "]") {
        items.push(node(false));
        space();
        if (text[index] === ",") {
          index += 1;
          space();
        } else if (text[index] !== "]") {
          throw new Unsupported("a flow sequence");
        }
      }
      index += 1;
      return items;
    }
    if (text[index] === "{") {
      index += 1;
      const mapping = {};
      space();
      while (text[index] !== "}") {
        const key = scalar(true);
        space();
        let value = null;
        if (text[index] === ":") {
          index += 1;
          value = node(true);
        }
        mapping[String(key)] = value;
        space();
        if (text[index] === ",") {
          index += 1;
          space();
        } else if (text[index] !== "}") {
          throw new Unsupported("a flow mapping");
        }
      }
      index += 1;
      return mapping;
    }
    return scalar(inMapping);
  };
  const value = node(false);
  space();
  if (index < text.length) {
    throw new Unsupported("text after a flow collection");
  }
  return value;
}

// Whether a flow collection's brackets close in `text` (quotes respected).
function balanced(text) {
  let depth = 0;
  const end = scanUnquoted(text, (char) => {
    if (char === "[" || char === "{") {
      depth += 1;
    } else if (char === "]" || char === "}") {
      depth -= 1;
    }
    return false;
  });
  return depth <= 0 && end === -1;
}

// `key: rest` → [key, rest]; null when the line is no mapping key.
function splitKey(text) {
  if (text.startsWith("? ") || text === "?") {
    throw new Unsupported("a complex key");
  }
  if (text[0] === '"' || text[0] === "'") {
    const found = quoted(text);
    if (found && /^\s*:(\s|$)/.test(found[1])) {
      return [found[0], found[1].replace(/^\s*:/, "").trim()];
    }
    return null;
  }
  const match = /^([^#[\]{},][^#]*?)\s*:(\s+|$)(.*)$/.exec(text);
  if (!match || match[1].includes(": ")) {
    return null;
  }
  return [match[1], match[3]];
}

// One YAML document's lines (each {raw, indent, text}) into a value; every sequence's items keep
// their line span (`spans`) so that a List's items can be cut out as they were typed.
class Reader {
  constructor(lines) {
    this.lines = lines;
    this.pos = 0;
    this.spans = new Map();
  }

  skipBlank() {
    while (this.pos < this.lines.length && isBlank(this.lines[this.pos])) {
      this.pos += 1;
    }
  }

  current() {
    this.skipBlank();
    return this.pos < this.lines.length ? this.lines[this.pos] : null;
  }

  // The node that starts on the current line, if it is indented more than `parent`.
  block(parent) {
    const line = this.current();
    if (line === null || line.indent <= parent) {
      return null;
    }
    if (isSeqItem(line.text)) {
      return this.sequence(line.indent);
    }
    if (line.text[0] !== "[" && line.text[0] !== "{" && splitKey(line.text) !== null) {
      return this.mapping(line.indent);
    }
    this.pos += 1;
    return this.inline(line.text, parent);
  }

  mapping(indent) {
    const value = {};
    for (;;) {
      const line = this.current();
      if (line === null || line.indent < indent) {
        return value;
      }
      if (line.indent > indent || isSeqItem(line.text)) {
        throw new Unsupported(`line ${line.number}: unexpected indentation`);
      }
      const pair = splitKey(line.text);
      if (pair === null) {
        throw new Unsupported(`line ${line.number}: not a key`);
      }
      const [key, rest] = pair;
      this.pos += 1;
      const content = withoutComment(rest);
      if (content === "") {
        const next = this.current();
        if (next !== null && next.indent === indent && isSeqItem(next.text)) {
          value[key] = this.sequence(indent);
        } else {
          value[key] = this.block(indent);
        }
      } else {
        value[key] = this.inline(rest, indent);
      }
    }
  }

  sequence(indent) {
    const items = [];
    const spans = [];
    for (;;) {
      const line = this.current();
      if (line === null || line.indent !== indent || !isSeqItem(line.text)) {
        if (line !== null && line.indent > indent) {
          throw new Unsupported(`line ${line.number}: unexpected indentation`);
        }
        this.spans.set(items, spans);
        return items;
      }
      const start = this.pos;
      const rest = line.text.slice(1);
      const content = withoutComment(rest).trim();
      let column = indent + 2;
      if (content === "") {
        this.pos += 1;
        items.push(this.block(indent));
      } else {
        column = indent + 1 + (rest.length - rest.trimStart().length);
        // The item's first line as if it started at its content's column.
        this.lines[this.pos] = { ...line, indent: column, text: rest.trimStart() };
        items.push(this.block(column - 1));
      }
      spans.push({ start, end: this.pos, column });
    }
  }

  // A scalar or flow collection that starts with `rest` (on the line just read) and goes on over
  // the lines it needs.
  inline(rest, parent) {
    let text = rest.trim();
    if (text[0] === "|" || text[0] === ">") {
      return this.blockScalar(text, parent);
    }
    if (text[0] === "&" || text[0] === "*" || text[0] === "!") {
      throw new Unsupported("anchors, aliases and tags");
    }
    if (text[0] === "[" || text[0] === "{") {
      while (!balanced(text) && this.pos < this.lines.length) {
        text += ` ${this.lines[this.pos].text}`;
        this.pos += 1;
      }
      return flow(withoutComment(text));
    }
    if (text[0] === '"' || text[0] === "'") {
      let found = quoted(text);
      while (found === null && this.pos < this.lines.length) {
        const next = this.lines[this.pos].raw.trim();
        text += next === "" ? "\n" : text.endsWith("\n") ? next : ` ${next}`;
        this.pos += 1;
        found = quoted(text);
      }
      if (found === null || withoutComment(found[1]).trim() !== "") {
        throw new Unsupported("a quoted scalar");
      }
      return found[0];
    }
    let value = withoutComment(text);
    // A plain scalar may go on over more indented lines.
    while (this.pos < this.lines.length) {
      const next = this.lines[this.pos];
      if (next.text === "" || next.indent <= parent || next.text.startsWith("#")) {
        break;
      }
      value += ` ${withoutComment(next.text)}`;
      this.pos += 1;
    }
    return plainValue(value);
  }

  blockScalar(header, parent) {
    const indicators = withoutComment(header).slice(1);
    if (/[0-9]/.test(indicators)) {
      throw new Unsupported("an indentation indicator");
    }
    const lines = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.raw.trim() !== "" && line.indent <= parent) {
        break;
      }
      lines.push(line.raw);
      this.pos += 1;
    }
    const filled = lines.filter((raw) => raw.trim() !== "");
    const indent = Math.min(...filled.map((raw) => raw.length - raw.trimStart().length));
    const body = lines.map((raw) => (raw.trim() === "" ? "" : raw.slice(indent)));
    let trailing = 0;
    while (body.length && body[body.length - 1] === "") {
      body.pop();
      trailing += 1;
    }
    let value = "";
    if (header[0] === "|") {
      value = body.join("\n");
    } else {
      // Folded: lines join with a space; blank lines and more indented lines keep their breaks.
      body.forEach((line, index) => {
        if (index > 0) {
          const previous = body[index - 1];
          const kept = line === "" || previous === "" || /^\s/.test(line) || /^\s/.test(previous);
          value += kept ? "\n" : " ";
        }
        value += line;
      });
      value = value.replace(/\n(\n+)/g, (_, breaks) => breaks).replace(/\n(?=\s)/g, "\n");
    }
    if (body.length === 0) {
      return indicators.includes("+") ? "\n".repeat(trailing) : "";
    }
    if (indicators.includes("-")) {
      return value;
    }
    return indicators.includes("+") ? `${value}\n${"\n".repeat(trailing)}` : `${value}\n`;
  }
}

function linesOf(text) {
  return text.split(/\r?\n/).map((raw, index) => {
    const indent = raw.length - raw.replace(/^ +/, "").length;
    if (raw[indent] === "\t" && raw.trim() !== "") {
      throw new Unsupported("a tab in indentation");
    }
    return { raw, indent, text: raw.slice(indent).trimEnd(), number: index + 1 };
  });
}

// The documents of a YAML stream, each as its lines.
function documentsOf(text) {
  const documents = [[]];
  for (const line of linesOf(text)) {
    if (line.indent === 0 && /^---(\s|$)/.test(line.text)) {
      if (withoutComment(line.text.slice(3)).trim() !== "") {
        throw new Unsupported("content on a --- line");
      }
      documents.push([]);
    } else if (line.indent === 0 && /^\.\.\.(\s|$)/.test(line.text)) {
      documents.push([]);
    } else if (line.indent === 0 && line.text.startsWith("%")) {
      throw new Unsupported("a YAML directive");
    } else {
      documents[documents.length - 1].push(line);
    }
  }
  return documents;
}

// The lines of a List item as a document of its own: its content moved to column 0.
function itemSource(lines, span) {
  const out = [];
  for (let index = span.start; index < span.end; index += 1) {
    const raw = lines[index].raw;
    if (index === span.start) {
      out.push(raw.slice(span.column));
    } else if (raw.trim() === "") {
      out.push("");
    } else if (raw.length - raw.trimStart().length >= span.column) {
      out.push(raw.slice(span.column));
    } else if (raw.trim().startsWith("#")) {
      continue;
    } else {
      throw new Unsupported("a List item's lines");
    }
  }
  return out.join("\n").trimEnd();
}

// --- objects ----------------------------------------------------------------------------------

function text(value) {
  return typeof value === "string" ? value : null;
}

// `source`: what is sent of the object (its JSON, or a function that cuts out its YAML lines,
// called only for the objects sent).
function objectOf(value, source) {
  const metadata = value.metadata && typeof value.metadata === "object" ? value.metadata : {};
  let cut = null;
  return {
    kind: value.kind,
    name: text(metadata.name),
    namespace: text(metadata.namespace),
    value,
    get source() {
      if (typeof source !== "function") {
        return source;
      }
      cut = cut ?? source();
      return cut;
    },
  };
}

function isList(value) {
  if (value === null || typeof value !== "object" || value.kind !== "List") {
    return false;
  }
  if ((value.apiVersion ?? "v1") !== "v1" || !Array.isArray(value.items ?? [])) {
    throw new Unsupported("a List the service refuses");
  }
  return true;
}

function jsonObjects(value, out, top = false) {
  if (top && Array.isArray(value)) {
    value.forEach((item) => jsonObjects(item, out));
  } else if (isList(value)) {
    (value.items ?? []).forEach((item) => jsonObjects(item, out));
  } else if (value !== null && typeof value === "object" && typeof value.kind === "string") {
    out.push(objectOf(value, value));
  } else if (value !== null || top) {
    throw new Unsupported("not a Kubernetes object");
  }
}

function yamlObjects(value, reader, lines, source, out) {
  if (value === null) {
    return;
  }
  if (isList(value)) {
    const items = value.items ?? [];
    const spans = reader.spans.get(items);
    if (items.length && !spans) {
      throw new Unsupported("a List whose items are a flow sequence");
    }
    items.forEach((item, index) => {
      yamlObjects(item, reader, lines, () => itemSource(lines, spans[index]), out);
    });
  } else if (typeof value === "object" && !Array.isArray(value) && typeof value.kind === "string") {
    out.push(objectOf(value, source));
  } else {
    throw new Unsupported("not a Kubernetes object");
  }
}

// The stream's objects, Lists flattened, in order: {kind, namespace, name, value, source}; the
// format ("json" or "yaml") says what `source` is. Null when the page cannot read the stream.
export function readStream(pasted) {
  try {
    try {
      const value = JSON.parse(pasted);
      if (value !== null && typeof value === "object") {
        const objects = [];
        jsonObjects(value, objects, true);
        return { format: "json", objects };
      }
    } catch (error) {
      if (error instanceof Unsupported) {
        throw error;
      }
    }
    const objects = [];
    for (const lines of documentsOf(pasted)) {
      const reader = new Reader(lines);
      const value = reader.block(-1);
      if (reader.current() !== null) {
        throw new Unsupported(`line ${reader.current().number}: unexpected text`);
      }
      const source = () =>
        lines
          .map((line) => line.raw)
          .join("\n")
          .trim();
      yamlObjects(value, reader, lines, source, objects);
    }
    return { format: "yaml", objects };
  } catch (error) {
    if (error instanceof Unsupported) {
      return null;
    }
    throw error;
  }
}

// A body of some of the stream's objects, each as it was typed.
export function streamBody(format, objects) {
  if (format === "json") {
    return {
      body: JSON.stringify(objects.map((item) => item.source)),
      contentType: "application/json",
    };
  }
  return {
    body: `${objects.map((item) => item.source).join("\n---\n")}\n`,
    contentType: "application/yaml",
  };
}

// --- which model, which InferenceService (as the command line's --model, --inference-service) ---

const identity = (item) => `${item.kind}|${item.namespace || ""}|${item.name || ""}`;

// The last object of each identity, as the service keeps them.
function distinct(objects) {
  const seen = new Map();
  for (const item of objects) {
    seen.delete(identity(item));
    seen.set(identity(item), item);
  }
  return [...seen.values()];
}

// OME's lookup: a BaseModel of that name in the namespace, else the ClusterBaseModel.
function findModel(models, name, namespace, kind) {
  const named = models.filter((m) => m.name === name && (kind == null || m.kind === kind));
  const local = named.filter(
    (m) => m.kind !== CLUSTER_MODEL_KIND && (m.namespace === namespace || m.namespace === null),
  );
  return local.length ? local : named.filter((m) => m.kind === CLUSTER_MODEL_KIND);
}

function serviceModel(service) {
  const spec = service.value.spec;
  const model = spec && typeof spec === "object" ? spec.model : null;
  return model && typeof model === "object" ? model : {};
}

export const serviceName = (service) => `${service.namespace || "default"}/${service.name}`;

export function modelName(model) {
  return model.namespace ? `${model.namespace}/${model.name}` : model.name;
}

// The questions a stream can be asked, when it holds several models or InferenceServices (and
// /v1/rank takes one model and at most one InferenceService): each InferenceService (with its
// model), then each model (alone). Null when the stream can go whole. `preferred`: the choice
// the command line makes unasked (a single InferenceService among several models).
export function choicesOf(stream) {
  if (stream === null) {
    return null;
  }
  const models = distinct(stream.objects.filter((item) => MODEL_KINDS.includes(item.kind)));
  const services = distinct(stream.objects.filter((item) => item.kind === ISVC_KIND));
  if (models.length <= 1 && services.length <= 1) {
    return null;
  }
  const choices = [];
  for (const service of services) {
    const reference = serviceModel(service);
    const where = service.namespace || "default";
    const found =
      typeof reference.name === "string"
        ? findModel(models, reference.name, where, reference.kind)
        : [];
    choices.push({
      key: `service|${identity(service)}`,
      kind: ISVC_KIND,
      label: serviceName(service),
      model: typeof reference.name === "string" ? reference.name : null,
      keep: [service, ...found],
    });
  }
  for (const model of models) {
    choices.push({
      key: `model|${identity(model)}`,
      kind: model.kind,
      label: modelName(model),
      keep: [model],
    });
  }
  return {
    models: models.length,
    services: services.length,
    choices,
    preferred: choices[0].key,
  };
}

// The objects a choice sends: its model (and InferenceService), every runtime, every object of
// another kind; the other models and InferenceServices left out.
export function chosenObjects(stream, choice) {
  const keep = new Set(choice.keep.map(identity));
  return stream.objects.filter(
    (item) =>
      (!MODEL_KINDS.includes(item.kind) && item.kind !== ISVC_KIND) || keep.has(identity(item)),
  );
}

// A runtime's supportedModelFormats, by the ranking's scope and name (the last one of each, as
// the service keeps them; a ServingRuntime of the target namespace, or of none).
export function entriesOf(stream, namespace) {
  const found = new Map();
  if (stream === null) {
    return found;
  }
  for (const item of stream.objects) {
    if (!RUNTIME_KINDS.includes(item.kind) || item.name === null) {
      continue;
    }
    const cluster = item.kind === "ClusterServingRuntime";
    if (!cluster && item.namespace !== null && item.namespace !== namespace) {
      continue;
    }
    const spec = item.value.spec;
    const entries = spec && typeof spec === "object" ? spec.supportedModelFormats : null;
    const key = `${cluster ? "Cluster" : "Namespaced"}|${item.name}`;
    found.set(key, Array.isArray(entries) ? entries : null);
  }
  return found;
}
