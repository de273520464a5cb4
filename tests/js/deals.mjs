// A second implementation of docs/deals.md checks recorded matches: the browser's own module
// (clients/web/js/verify.js, Web Crypto as Node 20 provides it: globalThis.crypto.subtle)
// re-derives every deal of each record. Input: a JSON file {vectors: [...], records: [...]}
// (docs/deals.md's test vectors and match records as GET /api/matches/{id}/record gives them).
// Output, last line: a JSON report {vectors, hands, failures}; exit 1 when anything failed.

import { readFileSync } from "node:fs";
import { checkHand, dealDeck, sha256Hex, verifyRecord } from "../../clients/web/js/verify.js";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const failures = [];
let hands = 0;

for (const v of input.vectors) {
  const seed = await sha256Hex(`${v.match_seed}:${v.hand}`);
  if (seed !== v.hand_seed) failures.push({ vector: v.hand, what: "hand seed", got: seed });
  const commitment = await sha256Hex(seed);
  if (commitment !== v.commitment) failures.push({ vector: v.hand, what: "commitment", got: commitment });
  const deck = (await dealDeck(seed)).join(" ");
  if (deck !== v.deck) failures.push({ vector: v.hand, what: "deck", got: deck });
}

for (const record of input.records) {
  const report = await verifyRecord(record, (input.seen || {})[record.match_id] || {});
  if (!report.ok) failures.push({ match: record.match_id, what: "record", report });
  for (const hand of record.hands) {
    if (hand.seed == null) continue;
    hands++;
    // Also deal it from scratch, to compare with the record as a whole.
    const deck = await dealDeck(hand.seed);
    const dealt = [deck.slice(0, 10).sort(), deck.slice(10, 20).sort(), deck[20], deck.slice(21)];
    const recorded = [[...hand.hands[0]].sort(), [...hand.hands[1]].sort(), hand.upcard, hand.stock];
    if (JSON.stringify(dealt) !== JSON.stringify(recorded)) failures.push({ match: record.match_id, hand: hand.number, what: "deal" });
    if (!(await checkHand(hand)).verified) failures.push({ match: record.match_id, hand: hand.number, what: "check" });
  }
}

// Tampering must be caught: a record changed after the fact, or a record whose commitment is
// not the one shown during play (`changed`: {match id: {hand number: commitment}}).
for (const record of input.tampered || []) {
  const report = await verifyRecord(record);
  if (report.ok) failures.push({ match: record.match_id, what: "tampered record verified" });
}
for (const record of input.records) {
  const changed = (input.changed || {})[record.match_id];
  if (changed && (await verifyRecord(record, changed)).ok) failures.push({ match: record.match_id, what: "changed commitment verified" });
}

console.log(JSON.stringify({ vectors: input.vectors.length, hands, failures }));
process.exit(failures.length ? 1 : 0);
