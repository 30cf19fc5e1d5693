// How the page writes the API's fields. Values are shown as the API gives them: nothing here
// computes a number, an order or a reason; it only puts the answer's own fields into words.

// `1 cluster`, `3 clusters`: a number with its noun, as the answers count.
export const counted = (number, noun) => `${number} ${noun}${number === 1 ? "" : "s"}`;

// A cell of the explain table, exactly as the API's text table (Accept: text/plain) prints it.
export function cell(value) {
  if (value === null || value === undefined) {
    return "-";
  }
  if (value === true) {
    return "Yes";
  }
  if (value === false) {
    return "No";
  }
  return String(value);
}

// decidedBy names the first ordering rule that put a row below the row above it.
const RULE_WORDS = { score: "score", distance: "size", scope: "scope", name: "name" };

export function decidedByText(row, above) {
  if (!row.decidedBy) {
    return "-";
  }
  const rule = RULE_WORDS[row.decidedBy] || row.decidedBy;
  return above ? `below ${above.name} on ${rule}` : `on ${rule}`;
}

// A size as OME users write one (`69B`, `1.5B`, `700M`: the suffixes OME strips), with the exact
// number for a tooltip; `≈` when four significant digits do not hold all of it.
const SIZE_UNITS = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
];

export function sizeText(value) {
  if (value === null || value === undefined) {
    return { text: "-", exact: null };
  }
  const exact = String(value);
  for (const [unit, suffix] of SIZE_UNITS) {
    if (Math.abs(value) >= unit) {
      const scaled = value / unit;
      const shown = Number(scaled.toPrecision(4));
      return { text: `${shown === scaled ? "" : "≈"}${shown}${suffix}`, exact };
    }
  }
  return { text: exact, exact };
}

function ordinal(number) {
  const tens = number % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[number % 10] || "th";
  return `${number}${suffix}`;
}

function formatName(entry) {
  const format = entry && typeof entry === "object" ? entry.modelFormat : null;
  return format && typeof format === "object" && typeof format.name === "string" && format.name
    ? format.name
    : null;
}

function entryName(entry) {
  return entry && typeof entry === "object" && typeof entry.name === "string" && entry.name
    ? entry.name
    : null;
}

// A supportedModelFormats entry named as its runtime's manifest names it: its `name`, else its
// format; its index too when another entry reads the same. `entries`: the runtime's list, when
// the page has it.
export function entryText(index, entries) {
  const entry = Array.isArray(entries) ? entries[index] : undefined;
  const name = entryName(entry);
  const format = formatName(entry);
  let text;
  let twins;
  if (name) {
    text = `entry "${name}"`;
    twins = entries.filter((other) => entryName(other) === name).length;
  } else if (format) {
    text = `the ${format} entry`;
    twins = entries.filter((other) => formatName(other) === format).length;
  } else {
    return `entry ${index} (the ${ordinal(index + 1)} supportedModelFormats item)`;
  }
  return twins > 1 ? `${text} (supportedModelFormats[${index}])` : text;
}

// toWin: what it would take for this row to come first among its scope's qualifying runtimes;
// toWinNote: why even that would not get it selected (then the selected runtime stays so).
// `entries`: each runtime's supportedModelFormats by `<scope>|<name>`, when the page has them.
export function toWinText(row, answer, entries) {
  const advice = row.toWin;
  const listed = entries ? entries.get(`${row.scope}|${row.name}`) : null;
  const entry = (index) => entryText(index, listed);
  let text = "";
  if (advice && advice.autoSelect === true) {
    text = `autoSelect: true on ${entry(advice.entry)} would make it eligible`;
  } else if (advice && advice.priority !== undefined && advice.priority !== null) {
    const among =
      row.scope === "Cluster"
        ? "the ClusterServingRuntimes"
        : `the ServingRuntimes in ${answer.namespace}`;
    text = `priority ${advice.priority} on ${entry(advice.entry)} would make it first`;
    text += ` among ${among}`;
    if (!row.toWinNote) {
      text += ", so OME would select it";
    }
  }
  if (row.toWinNote) {
    const selected = answer.selected;
    let outcome = "it would still not be selected";
    if (selected && selected.name === row.name && selected.scope === row.scope) {
      outcome = "it is the selected runtime all the same";
    } else if (selected) {
      outcome = `${selected.name} would still be selected`;
    }
    text = text ? `${text}; ${outcome} (${row.toWinNote})` : `(${row.toWinNote})`;
  }
  return text || "-";
}

// wayOut: the changes to this runtime alone that make this No row qualify (a value, or null to
// remove the field); wayOutNote: why no change to the runtime alone can.
export function wayOutText(row, entries) {
  if (!row.wayOut) {
    return row.wayOutNote ? `none: ${row.wayOutNote}` : "-";
  }
  const listed = entries ? entries.get(`${row.scope}|${row.name}`) : null;
  return row.wayOut
    .map((change) => {
      const what =
        change.change === null
          ? `remove ${change.field}`
          : `${change.field}: ${JSON.stringify(change.change)}`;
      return change.entry === null ? what : `${what} on ${entryText(change.entry, listed)}`;
    })
    .join("; ");
}

export function scopeWhere(namespace) {
  return namespace === null || namespace === undefined ? "cluster scope" : namespace;
}

export function qualifiedName(namespace, name) {
  return namespace ? `${namespace}/${name}` : name;
}

// A placement score (BestFit, MostCapable) as the answer's reasons write scores: Python's
// repr of a double (`1.0`, `0.6971631205673758`, `5e-05`; rules §20.10 item 18), where
// String() would write `1` and `0.00005`.
export function scoreText(value) {
  if (value === null || value === undefined) {
    return "-";
  }
  const size = Math.abs(value);
  if (size >= 1e16 || (size > 0 && size < 1e-4)) {
    const [digits, exponent] = value.toExponential().split("e");
    const sign = exponent.startsWith("-") ? "-" : "+";
    return `${digits}e${sign}${exponent.replace(/^[-+]/, "").padStart(2, "0")}`;
  }
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

// The class a component's pods get: its name; `none`; `unknown` when it depends on classes the
// request does not hold; a name kept while classes are unknown is unverified (rules §20.10).
export function classText(component) {
  const name = component.acceleratorClass;
  if (name === null || name === undefined) {
    return component.known ? "none" : "unknown";
  }
  return component.known ? name : `${name} (unverified)`;
}

// A component's error (AcceleratorClassNotFound, BestFitWithoutConstraints), with the class
// OME code that fixes the BestFit failure picks.
export function placementErrorText(error) {
  if (!error) {
    return "-";
  }
  const text = `${error.code}: ${error.message}`;
  return "ifFixed" in error ? `${text}; OME with the fix picks ${error.ifFixed || "unknown"}` : text;
}

export function eventText(event) {
  return event ? `Warning ${event.reason}: ${event.message}` : "none";
}

// `{"a": "1"}` as `a=1` items; the resources' limits and requests as `limits: a=1, b=2`.
export function pairsText(map) {
  return Object.entries(map).map(([key, value]) => `${key}=${value}`);
}

export function resourcesText(resources) {
  return ["limits", "requests"]
    .filter((kind) => resources[kind] && Object.keys(resources[kind]).length)
    .map((kind) => `${kind}: ${pairsText(resources[kind]).join(", ")}`);
}

// A catalog's age, in whole seconds (the fleet's `ageSeconds`, aged by the page between two
// answers), as people say it: `under a minute ago`, `3 min ago`, `5 h ago`, `2 days ago`, in
// the largest unit it reaches, rounded down.
const AGE_UNITS = [
  [86400, (count) => `${count} ${count === 1 ? "day" : "days"} ago`],
  [3600, (count) => `${count} h ago`],
  [60, (count) => `${count} min ago`],
];

export function ageText(seconds) {
  if (seconds === null || seconds === undefined) {
    return "-";
  }
  for (const [unit, text] of AGE_UNITS) {
    if (seconds >= unit) {
      return text(Math.floor(seconds / unit));
    }
  }
  return "under a minute ago";
}

// --- the selection history (rules §17.1) ---------------------------------------------------------

// When a write was made, to the minute, on the service's clock in UTC whatever the browser's
// zone: `2026-12-01 09:12 UTC` (the entry's `at` itself goes in the <time>'s value and tooltip).
export function historyTimeText(at) {
  const moment = new Date(at);
  if (typeof at !== "string" || Number.isNaN(moment.getTime())) {
    return String(at);
  }
  return `${moment.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

// A side's runtime: its name, `none` for no runtime.
const runtimeName = (side) => (side.runtime === null ? "none" : side.runtime);

// What changed of the five fields besides the runtime's name, each `field before → after`.
const OTHER_FIELDS = [
  ["scope", "scope"],
  ["outcome", "outcome"],
  ["engineClass", "engine class"],
  ["decoderClass", "decoder class"],
];

// What one write did to one InferenceService: `vllm-llama → team-llama` (the runtime before →
// after, `none` for no runtime); `added → team-llama` and `vllm-llama → removed` for one only
// one catalog holds; with the runtime the same, what else of the entry moved
// (`engine class nvidia-h100 → nvidia-h200 (runtime srt-llama)`), or, when none of the five
// fields did, that the same runtime stays (its message or placement moved); a mark (a write
// whose changes were not worked out) as its `truncated` says.
export function historyChangeText(entry) {
  if (entry.truncated !== null && entry.truncated !== undefined) {
    return `changes not listed: ${entry.truncated}`;
  }
  const { before, after } = entry;
  if (before === null) {
    return `added → ${runtimeName(after)}`;
  }
  if (after === null) {
    return `${runtimeName(before)} → removed`;
  }
  if (before.runtime !== after.runtime) {
    return `${runtimeName(before)} → ${runtimeName(after)}`;
  }
  const moved = OTHER_FIELDS.filter(([key]) => before[key] !== after[key]).map(
    ([key, words]) => `${words} ${before[key] ?? "none"} → ${after[key] ?? "none"}`,
  );
  const runtime = before.runtime === null ? "no runtime" : `runtime ${before.runtime}`;
  return moved.length
    ? `${moved.join(", ")} (${runtime})`
    : `still ${runtimeName(before)} (OME's message or placement changed)`;
}

// The history's entries (newest first) in runs of one write each: its generation, time and
// entries, newest first.
export function historyGroups(changes) {
  const groups = [];
  for (const entry of changes) {
    const last = groups[groups.length - 1];
    if (last && last.generation === entry.generation) {
      last.entries.push(entry);
    } else {
      groups.push({ generation: entry.generation, at: entry.at, entries: [entry] });
    }
  }
  return groups;
}

// What a write did, after its generation and time in its heading: `3 InferenceServices changed`;
// `changes not listed` for a write recorded as a mark; `so far` when the write's older entries
// may be on the next page (`more`).
export function historyWriteText(group, more) {
  const changed = group.entries.filter((entry) => !entry.truncated).length;
  const what =
    changed === 0 ? "changes not listed" : `${counted(changed, "InferenceService")} changed`;
  return `${what}${more ? " so far" : ""}`;
}
