// Drawing a finished hand (both hands, melds, layoffs, deadwood, the score in words and numbers)
// and a finished match (the scoreboard). Shared by the table, the history and the replay.
// `ctx` is anything with `players` and `seat` (a view, or a record with seat = the viewer).

import { cardName, cardShort, miniCard, rankIndex } from "./cards.js";
import { h } from "./dom.js";
import { breakdown, describeResult, KIND_TITLES, playerName, scoreLine, who } from "./words.js";

function cardRow(codes, cls = "", labelFor = null) {
  return h(
    "span",
    { class: `card-row ${cls}`.trim() },
    codes.map((c) => {
      const el = miniCard(c, cls);
      if (labelFor) el.setAttribute("aria-label", labelFor(c));
      return el;
    }),
  );
}

/** A knocker's meld with the cards laid off on it, in rank order (a run read low to high, the
 * laid-off cards where they extend it), each card marked as melded or laid off. */
function meldWithLayoffs(meld, laid, defenderName) {
  const cards = [...meld.map((c) => [c, false]), ...laid.map((c) => [c, true])];
  cards.sort((a, b) => rankIndex(a[0]) - rankIndex(b[0]));
  return h(
    "span",
    { class: "card-row melded" },
    cards.map(([c, isLaid]) => {
      const el = miniCard(c, isLaid ? "laid-off" : "melded");
      el.setAttribute("aria-label", isLaid ? `${cardName(c)}, laid off by ${defenderName}` : `${cardName(c)}, melded`);
      return el;
    }),
  );
}

/** One seat's final hand: melds (with any cards laid off on them) and deadwood. */
function seatHand(ctx, result, seat, level) {
  const melds = result.melds?.[seat] || [];
  const unmatched = result.unmatched?.[seat] || [];
  const layoffs = result.layoffs || [];
  const isKnocker = result.knocker === seat;
  const role =
    result.kind === "dead" ? "" : isKnocker ? (result.kind === "gin" ? "went gin" : "knocked") : "defended";
  const laidBySeat = !isKnocker && result.knocker !== null && result.knocker !== undefined ? layoffs : [];
  const defenderName = result.knocker === null || result.knocker === undefined ? "" : who(ctx, 1 - result.knocker);
  return h(
    "div",
    { class: "result-seat" },
    h(
      `h${level}`,
      {},
      who(ctx, seat),
      role ? h("span", { class: "role" }, ` ${role}`) : null,
      h("span", { class: "dw" }, ` \u00b7 deadwood ${result.deadwood?.[seat] ?? "?"}`),
    ),
    h(
      "div",
      { class: "melds" },
      melds.length ? null : h("span", { class: "muted" }, "No melds"),
      melds.map((meld, i) => {
        const laid = isKnocker ? layoffs.filter((l) => l.meld === i).map((l) => l.card) : [];
        return h(
          "span",
          { class: "meld-group", role: "group", "aria-label": `Meld: ${meld.map(cardName).join(", ")}` },
          laid.length ? meldWithLayoffs(meld, laid, defenderName) : cardRow(meld, "melded", (c) => `${cardName(c)}, melded`),
        );
      }),
    ),
    laidBySeat.length
      ? h(
          "p",
          { class: "layoff-line" },
          `Laid off: ${laidBySeat.map((l) => cardShort(l.card)).join(" ")}`,
          h("span", { class: "sr-only" }, ` (${laidBySeat.map((l) => cardName(l.card)).join(", ")})`),
        )
      : null,
    h(
      "div",
      { class: "deadwood-cards" },
      h("span", { class: "label" }, "Deadwood:"),
      unmatched.length ? cardRow(unmatched, "dead", (c) => `${cardName(c)}, deadwood`) : h("span", {}, " none"),
    ),
  );
}

/** A finished hand: the score line, a sentence, and both hands. */
export function resultBlock(ctx, result, { number, level = 4 } = {}) {
  const seats = ctx.seat === 1 ? [1, 0] : [0, 1];
  return h(
    "div",
    { class: `result kind-${result.kind}` },
    h(
      "p",
      { class: "score-line" },
      number ? h("span", { class: "muted" }, `Hand ${number}: `) : null,
      h("strong", {}, scoreLine(result)),
    ),
    h("p", { class: "result-words" }, describeResult(ctx, result)),
    h(
      "div",
      { class: "result-hands" },
      seats.map((s) => seatHand(ctx, result, s, level)),
    ),
  );
}

/** A short one-line summary of a hand, for lists. */
export function resultSummary(ctx, result) {
  if (result.kind === "dead") return "Dead hand: no score";
  const winner = who(ctx, result.winner);
  return `${KIND_TITLES[result.kind]} \u2014 ${winner} ${winner === "You" ? "score" : "scores"} ${breakdown(result)}`;
}

/** The end-of-match scoreboard: points, box and game bonuses, totals. */
export function scoreboard(ctx, outcome, rules) {
  const totals = outcome.totals || [];
  const bonuses =
    (rules && (rules.box_bonus || rules.game_bonus || rules.shutout_bonus)) ||
    totals.some((t) => t.box_bonus || t.game_bonus);
  const row = (label, key, extra = "") =>
    h(
      "tr",
      { class: extra },
      h("th", { scope: "row" }, label),
      seats.map((s) => h("td", {}, String(totals[s]?.[key] ?? 0))),
    );
  const winner = outcome.winner;
  const headline =
    winner === ctx.seat
      ? "You win the match!"
      : ctx.seat === 0 || ctx.seat === 1
        ? `You lost: ${playerName(ctx, winner)} wins the match.`
        : `${playerName(ctx, winner)} wins the match.`;
  const loser = who(ctx, 1 - winner);
  const reason = outcome.reason === "resign" ? ` ${loser} resigned.` : "";
  // The viewer's own column first, as in the score bar above the table.
  const seats = ctx.seat === 1 ? [1, 0] : [0, 1];
  return h(
    "div",
    { class: "scoreboard" },
    h("p", { class: "match-winner" }, headline + reason),
    h(
      "table",
      {},
      h("caption", {}, "Final score"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("td", {}),
          seats.map((s) => h("th", { scope: "col" }, who(ctx, s))),
        ),
      ),
      h(
        "tbody",
        {},
        row("Points from hands", "points"),
        bonuses ? row(`Box bonus (${rules?.box_bonus ?? 25} per hand won)`, "box_bonus") : null,
        bonuses ? row("Game bonus", "game_bonus") : null,
        row("Total", "total", "total"),
      ),
    ),
  );
}
