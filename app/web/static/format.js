// How the page writes the API's fields. Values are shown as the API gives them: nothing here
// computes a number, an order or a reason; it only puts the answer's own fields into words.

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

// toWin: what it would take for this row to come first among its scope's qualifying runtimes.
export function toWinText(row) {
  const advice = row.toWin;
  let text = "";
  if (advice && advice.autoSelect === true) {
    text = `autoSelect: true on entry ${advice.entry} would make it eligible`;
  } else if (advice && advice.priority !== undefined && advice.priority !== null) {
    text = `priority ${advice.priority} on entry ${advice.entry} would make it first`;
  }
  if (row.toWinNote) {
    text = text ? `${text} (${row.toWinNote})` : `(${row.toWinNote})`;
  }
  return text || "-";
}

export function scopeWhere(namespace) {
  return namespace === null || namespace === undefined ? "cluster scope" : namespace;
}

export function qualifiedName(namespace, name) {
  return namespace ? `${namespace}/${name}` : name;
}
