// The browser's notation parser (clients/web/js/notation.js) against the Python formatter
// (server/wire/notation.py). Input: a JSON file {cases: [{text, export}], bad: [{text, line}]}:
// each text as GET /api/matches/{id}/export?format=text gave it and the JSON export of the same
// match; each bad text must be refused at its line. Output, last line: a JSON report
// {cases, hands, failures}; exit 1 when anything failed.

import { readFileSync } from "node:fs";
import { asRecord, parseMatch } from "../../clients/web/js/notation.js";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const failures = [];
let hands = 0;

// Key order is the formatter's business, not the parser's: compare with sorted keys.
const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v;

for (const { text, export: expected } of input.cases) {
  let parsed;
  try {
    parsed = parseMatch(text);
  } catch (e) {
    failures.push({ match: expected.match_id, what: "refused", message: e.message });
    continue;
  }
  if (JSON.stringify(canonical(parsed)) !== JSON.stringify(canonical(expected))) {
    failures.push({ match: expected.match_id, what: "differs", parsed });
  }
  const record = asRecord(parsed);
  hands += record.hands.length;
  if (record.hands.length + record.hidden !== expected.hands.length) failures.push({ match: expected.match_id, what: "asRecord" });
}

for (const { text, line } of input.bad || []) {
  try {
    parseMatch(text);
    failures.push({ what: "accepted", line });
  } catch (e) {
    if (!e.message.startsWith(`line ${line}:`)) failures.push({ what: "wrong line", line, message: e.message });
  }
}

console.log(JSON.stringify({ cases: input.cases.length, hands, failures }));
process.exit(failures.length ? 1 : 0);
