// Checking a finished match's deals ourselves, with Web Crypto (crypto.subtle.digest): each
// finished hand of a record reveals its seed; SHA-256 of the seed must be the commitment the
// views showed from the deal, and the documented shuffle (docs/deals.md) run on the seed must
// deal exactly the record's hands, upcard and stock. No DOM here (Node runs this module too:
// tests/js/deals.mjs); `dealBadge` is the one element it makes, given the page's `h`.

const RANKS = "A23456789TJQK";
const SUITS = "cdhs";
/** Card k of the scheme: Ac 2c .. Kc Ad .. Ks. */
export const CARDS = Array.from({ length: 52 }, (_, k) => RANKS[k % 13] + SUITS[Math.floor(k / 13)]);

const encoder = new TextEncoder();

async function sha256(text) {
  return new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(text) {
  return hex(await sha256(text));
}

/** The deck (card codes, first dealt first) that `seed` deals under the sha256 scheme. */
export async function dealDeck(seed) {
  const deck = Array.from({ length: 52 }, (_, k) => k);
  let block = 0;
  let bytes = new Uint8Array(0);
  let at = 0;
  const next = async () => {
    if (at === bytes.length) {
      bytes = await sha256(`${seed}:${block++}`);
      at = 0;
    }
    return bytes[at++];
  };
  for (let i = 51; i > 0; i--) {
    const m = i + 1;
    const limit = 256 - (256 % m);
    let b = await next();
    while (b >= limit) b = await next();
    const j = b % m;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck.map((k) => CARDS[k]);
}

const sameSet = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** One hand of a record: { number, verified, problems, skipped }. */
export async function checkHand(hand) {
  const number = hand.number;
  if (hand.seed == null) return { number, verified: false, problems: [], skipped: "unfinished" };
  const problems = [];
  if (!hand.deal_commitment || (await sha256Hex(hand.seed)) !== hand.deal_commitment) {
    problems.push("the seed does not match the commitment");
  } else {
    const deck = await dealDeck(hand.seed);
    for (const seat of [0, 1]) {
      if (!sameSet(hand.hands[seat], deck.slice(seat * 10, seat * 10 + 10))) problems.push(`seat ${seat}'s hand is not the one dealt`);
    }
    if (hand.upcard !== deck[20]) problems.push("the upcard is not the one dealt");
    if (hand.stock.join() !== deck.slice(21).join()) problems.push("the stock is not the one dealt");
  }
  return { number, verified: problems.length === 0, problems, skipped: null };
}

// The commitments this browser saw while playing or watching, per match and hand, so that the
// record is checked against what was shown before the cards were played (not only against
// itself). The first one seen for a hand is kept; the last 100 matches are remembered.
const SEEN_KEY = "ginrummy.deals";
const SEEN_MATCHES = 100;

function readSeen() {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(SEEN_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** Remember `view.hand.deal_commitment` for the match's current hand (called on every view). */
export function rememberCommitment(matchId, view) {
  const commitment = view?.hand?.deal_commitment;
  if (!matchId || !commitment) return;
  const seen = readSeen();
  const hands = seen[matchId] || {};
  if (hands[view.hand_number]) return;
  hands[view.hand_number] = commitment;
  delete seen[matchId]; // re-inserted last: the oldest matches are the first keys
  seen[matchId] = hands;
  const ids = Object.keys(seen);
  for (const id of ids.slice(0, Math.max(0, ids.length - SEEN_MATCHES))) delete seen[id];
  try {
    globalThis.localStorage?.setItem(SEEN_KEY, JSON.stringify(seen));
  } catch {
    // Storage full or disabled: the record is still checked against itself.
  }
}

/** The commitments this browser saw for `matchId`: {hand number: commitment}. */
export function seenCommitments(matchId) {
  return readSeen()[matchId] || {};
}

/**
 * Every hand of a record: { scheme, ok, hands }. `ok`: sha256, and every finished hand verified.
 * `seen` ({hand number: commitment}, those shown during play) must agree with the record.
 */
export async function verifyRecord(record, seen = {}) {
  const scheme = record.deal || "legacy";
  if (scheme !== "sha256") return { scheme, ok: false, hands: [] };
  const hands = await Promise.all(
    (record.hands || []).map(async (hand) => {
      const x = await checkHand(hand);
      const shown = seen[hand.number];
      if (shown && shown !== hand.deal_commitment) {
        x.verified = false;
        x.problems.push("the commitment differs from the one shown during play");
      }
      return x;
    }),
  );
  const checked = hands.filter((x) => !x.skipped);
  return { scheme, ok: checked.length > 0 && checked.every((x) => x.verified), hands };
}

/** The words for a hand's (or a whole record's, `hand` null) check. */
export function dealWords(report, number = null) {
  if (report.scheme !== "sha256") return { state: "legacy", text: "Deal not verifiable (an older match)" };
  if (number == null) {
    const checked = report.hands.filter((x) => !x.skipped);
    const bad = checked.filter((x) => !x.verified).map((x) => x.number);
    if (report.ok) {
      const n = checked.length;
      return { state: "verified", text: `Deal verified: ${n} hand${n === 1 ? "" : "s"} re-derived from ${n === 1 ? "its seed" : "their seeds"} in this browser` };
    }
    return { state: "failed", text: bad.length ? `Deal NOT verified: hand ${bad.join(", ")}` : "Deal NOT verified: no finished hand" };
  }
  const x = report.hands.find((y) => y.number === number);
  if (!x || x.skipped) return { state: "skipped", text: "Deal not revealed (hand unfinished)" };
  return x.verified
    ? { state: "verified", text: `Deal verified: hand ${number} re-derived from its seed in this browser` }
    : { state: "failed", text: `Deal NOT verified: ${x.problems.join("; ")}` };
}

/** A small status element for the record's check (hand `number`, or all hands when null). */
export function dealBadge(h, report, number = null) {
  const { state, text } = dealWords(report, number);
  const mark = state === "verified" ? "\u2713 " : state === "failed" ? "\u2717 " : "";
  return h(
    "span",
    { class: `deal-badge deal-${state}`, "data-deal": state, title: "Checked in this browser: the seed matches the commitment shown during play, and the documented shuffle deals these cards (docs/deals.md)" },
    mark + text,
  );
}

/**
 * The page hook: `const deal = dealStatus(h, record)` gives `deal.el` (a status line to place on
 * the page) and `deal.show(number)`: the check of hand `number`, or of every hand when null. It
 * reads "Checking the deal…" until this browser has re-derived the deals.
 */
export function dealStatus(h, record) {
  const el = h("p", { class: "deal-check", role: "status" }, "Checking the deal\u2026");
  let report = null;
  let showing = null;
  const render = () => report && el.replaceChildren(dealBadge(h, report, showing));
  verifyRecord(record, seenCommitments(record.match_id)).then(
    (r) => {
      report = r;
      render();
    },
    () => el.replaceChildren("Could not check the deal in this browser (no Web Crypto here)"),
  );
  return {
    el,
    show(number = null) {
      showing = number;
      render();
    },
  };
}
