// The text notation of a match (docs/notation.md), read in the browser: parseMatch(text) gives
// the export exactly as GET /api/matches/{id}/export?format=json would (an ExportedMatch), and
// asRecord(export) the shape the replay page plays (a record's hands, as /record gives them).
// Pure: no DOM, no network. A Node test (tests/js/notation.mjs) reads what the Python formatter
// (server/wire/notation.py) wrote for recorded matches and compares.

const GAME = "Gin Rummy";
const TAG = /^\[([a-z][a-z0-9_]*) ("(?:[^"\\]|\\.)*")\]$/;
const ACTION = /^(\d+)\. ([01]) (take|pass|stock|pile|discard|knock)(?: ([A2-9TJQK][cdhs]))?$/;
const CARD = /^[A2-9TJQK][cdhs]$/;
const INT = /^-?(?:0|[1-9][0-9]*)$/;

const MATCH_TAGS = [
  "game", "match_id", "status", "seat", "rules", "deal", "seed", "first_starter", "player0", "player0_kind",
  "player1", "player1_kind", "created_at", "updated_at", "scores", "outcome", "totals0", "totals1",
];
const DEAL_TAGS = ["hand", "starter", "seed", "deal_commitment", "hand0", "hand1", "upcard", "stock"];
const RESULT_TAGS = [
  "result", "winner", "knocker", "points", "deadwood", "final0", "final1", "melds0", "melds1",
  "unmatched0", "unmatched1", "layoffs", "breakdown",
];

function fail(line, message) {
  throw new Error(line ? `line ${line}: ${message}` : message);
}

function section(line) {
  return { line, tags: {}, where: {}, actions: [] };
}

function need(sec, name) {
  if (!(name in sec.tags)) fail(sec.line, `missing tag '${name}'`);
  return sec.tags[name];
}

function ints(sec, name, count) {
  const text = need(sec, name);
  const parts = text ? text.split(" ") : [];
  if (!parts.every((p) => INT.test(p))) fail(sec.where[name], `${name} must be integers separated by single spaces`);
  if (count !== undefined && parts.length !== count) fail(sec.where[name], `${name} must be ${count} integer${count === 1 ? "" : "s"}`);
  return parts.map(Number);
}

function seatOrNone(sec, name) {
  const text = need(sec, name);
  if (text === "-") return null;
  if (text !== "0" && text !== "1") fail(sec.where[name], `${name} must be 0, 1 or -`);
  return Number(text);
}

function cards(sec, name, text = need(sec, name)) {
  const list = text ? text.split(" ") : [];
  if (!list.every((c) => CARD.test(c))) fail(sec.where[name], `${name} must be card codes separated by single spaces`);
  return list;
}

function readAction(line, seat, verb, card) {
  if ((verb === "discard" || verb === "knock" || verb === "pile") && !card) fail(line, `${verb} must name its card`);
  if (verb === "pass" && card) fail(line, "pass names no card");
  const drawn = card || null;
  switch (verb) {
    case "take":
      return { seat, action: { kind: "take_upcard" }, drawn };
    case "pass":
      return { seat, action: { kind: "pass" }, drawn: null };
    case "stock":
    case "pile":
      return { seat, action: { kind: "draw", source: verb === "stock" ? "stock" : "discard" }, drawn };
    default:
      return { seat, action: { kind: verb, card }, drawn: null };
  }
}

function readResult(sec) {
  if (!RESULT_TAGS.some((t) => t in sec.tags)) return null;
  const melds = [0, 1].map((s) => {
    const text = need(sec, `melds${s}`);
    return text ? text.split(" ").map((m) => cards(sec, `melds${s}`, m.split("-").join(" "))) : [];
  });
  const layoffText = need(sec, "layoffs");
  const layoffs = (layoffText ? layoffText.split(" ") : []).map((item) => {
    const [card, meld] = item.split(">");
    if (!CARD.test(card || "") || !INT.test(meld || "")) fail(sec.where.layoffs, "a layoff is CARD>MELD");
    return { card, meld: Number(meld) };
  });
  return {
    kind: need(sec, "result"),
    winner: seatOrNone(sec, "winner"),
    points: ints(sec, "points", 1)[0],
    knocker: seatOrNone(sec, "knocker"),
    deadwood: ints(sec, "deadwood"),
    hands: [cards(sec, "final0"), cards(sec, "final1")],
    melds,
    unmatched: [cards(sec, "unmatched0"), cards(sec, "unmatched1")],
    layoffs,
    breakdown: need(sec, "breakdown"),
  };
}

function readHand(sec) {
  const t = sec.tags;
  return {
    number: ints(sec, "hand", 1)[0],
    starter: ints(sec, "starter", 1)[0],
    seed: t.seed ?? null,
    deal_commitment: t.deal_commitment ?? null,
    hands: [0, 1].map((s) => (`hand${s}` in t ? cards(sec, `hand${s}`) : null)),
    upcard: cards(sec, "upcard")[0] ?? fail(sec.where.upcard, "upcard must be a card"),
    stock: "stock" in t ? cards(sec, "stock") : null,
    actions: sec.actions,
    result: readResult(sec),
  };
}

/** The export written as `text` (docs/notation.md); throws an Error "line N: …" when it is not. */
export function parseMatch(text) {
  const header = section(1);
  const hands = [];
  let current = header;
  String(text).split("\n").forEach((raw, i) => {
    const number = i + 1;
    const line = raw.replace(/\r$/, "");
    if (!line.trim() || line.startsWith(";")) return;
    const tag = TAG.exec(line);
    if (tag) {
      const name = tag[1];
      let value;
      try {
        value = JSON.parse(tag[2]);
      } catch {
        fail(number, "a tag's value must be a JSON string");
      }
      if (name === "hand") {
        current = section(number);
        hands.push(current);
      }
      const allowed = current === header ? MATCH_TAGS : [...DEAL_TAGS, ...RESULT_TAGS];
      if (!allowed.includes(name)) fail(number, `unknown tag '${name}' here`);
      if (current !== header && current.actions.length && DEAL_TAGS.includes(name)) fail(number, `tag '${name}' must come before the hand's actions`);
      if (name in current.tags) fail(number, `tag '${name}' given twice`);
      current.tags[name] = value;
      current.where[name] = number;
      return;
    }
    const act = ACTION.exec(line);
    if (!act) fail(number, `neither a tag nor an action: ${JSON.stringify(line.slice(0, 60))}`);
    if (current === header) fail(number, 'an action before the first [hand "N"] tag');
    if (RESULT_TAGS.some((t) => t in current.tags)) fail(number, "an action after the hand's result");
    if (Number(act[1]) !== current.actions.length + 1) fail(number, `action number ${act[1]}, expected ${current.actions.length + 1}`);
    current.actions.push(readAction(number, Number(act[2]), act[3], act[4]));
  });
  if (header.tags.game !== GAME) fail(1, `the text must begin with [game "${GAME}"]`);
  const t = header.tags;
  let outcome = null;
  if ("outcome" in t) {
    const [winner, reason] = t.outcome.split(" ");
    if (winner !== "0" && winner !== "1") fail(header.where.outcome, "outcome is WINNER REASON");
    outcome = {
      winner: Number(winner),
      reason,
      totals: [0, 1].map((s) => {
        const [points, box_bonus, game_bonus, total] = ints(header, `totals${s}`, 4);
        return { points, box_bonus, game_bonus, total };
      }),
    };
  }
  return {
    match_id: need(header, "match_id"),
    status: need(header, "status"),
    seat: ints(header, "seat", 1)[0],
    rules: need(header, "rules"),
    deal: need(header, "deal"),
    seed: t.seed ?? null,
    first_starter: ints(header, "first_starter", 1)[0],
    players: [0, 1].map((s) => ({ seat: s, name: t[`player${s}`] ?? null, kind: need(header, `player${s}_kind`) })),
    created_at: need(header, "created_at"),
    updated_at: need(header, "updated_at"),
    scores: ints(header, "scores"),
    outcome,
    hands: hands.map(readHand),
  };
}

/** A parsed export as the replay page plays it: a record whose hands each show every card.
 * Hands the export keeps hidden in part (a hand in play, one cut short) are left out; `hidden`
 * counts them. */
export function asRecord(exported) {
  const whole = exported.hands.filter((h) => h.hands[0] && h.hands[1] && h.stock);
  return {
    match_id: exported.match_id,
    seat: exported.seat,
    rules: exported.rules,
    deal: exported.deal,
    seed: exported.seed,
    first_starter: exported.first_starter,
    players: exported.players,
    outcome: exported.outcome,
    hands: whole.map((h) => ({
      number: h.number,
      starter: h.starter,
      seed: h.seed,
      hands: h.hands,
      upcard: h.upcard,
      stock: h.stock,
      actions: h.actions.map(({ seat, action }) => ({ seat, action })),
      result: h.result,
      deal_commitment: h.deal_commitment,
    })),
    hidden: exported.hands.length - whole.length,
  };
}
