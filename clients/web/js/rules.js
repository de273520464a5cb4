// The rules page, in this client's own words, with tips for playing the computer. The rule
// presets and the computer's levels are the server's (their labels and descriptions).

import { shortcutList } from "./table/keys.js";
import { loadCatalog } from "./catalog.js";
import { h, replaceChildren } from "./dom.js";

const P = (...t) => h("p", {}, ...t);
const LI = (...t) => h("li", {}, ...t);

export function mountRules(root) {
  const presets = h("dl", { class: "presets" }, h("dd", { class: "muted" }, "Loading\u2026"));
  const levels = h("ul", {}, h("li", { class: "muted" }, "Loading\u2026"));
  loadCatalog().then(
    ({ rules, difficulties }) => {
      replaceChildren(presets, rules.map((r) => [h("dt", {}, r.label || r.name), h("dd", {}, r.description || "")]));
      replaceChildren(levels, difficulties.map((d) => LI(h("strong", {}, d.label || d.name), " \u2014 ", d.description || "")));
    },
    () => {
      const failed = "Could not be loaded from the server.";
      replaceChildren(presets, h("dd", { class: "muted" }, failed));
      replaceChildren(levels, h("li", { class: "muted" }, failed));
    },
  );
  replaceChildren(
    root,
    h(
      "article",
      { class: "rules panel" },
      h("h1", { tabindex: "-1" }, "How to play Gin Rummy"),
      P(
        "Two players, one ordinary 52-card deck, no jokers. Each of you gets ten cards. ",
        "Your job is to arrange your cards into combinations and get rid of the rest, ",
        "then end the hand before your opponent does.",
      ),

      h("h2", {}, "Melds and deadwood"),
      h(
        "ul",
        {},
        LI(h("strong", {}, "A set"), " is three or four cards of the same rank: 8\u2660 8\u2665 8\u2663."),
        LI(h("strong", {}, "A run"), " is three or more cards in sequence in one suit: 4\u2666 5\u2666 6\u2666 7\u2666."),
        LI("Aces are always low: A-2-3 is a run, Q-K-A is not."),
        LI("A card can only be used in one meld at a time."),
        LI(
          h("strong", {}, "Deadwood"),
          " is every card that is not in a meld. It counts against you: aces 1, number cards their number, jacks, queens and kings 10.",
        ),
      ),
      P(
        "You never have to work out your melds yourself: the table always sorts your hand into the arrangement with the least deadwood, ",
        "underlines the cards that are melded and puts the deadwood on the right.",
      ),

      h("h2", {}, "A hand, step by step"),
      h(
        "ol",
        {},
        LI("The dealer deals ten cards each and turns the next card face up: the upcard, which starts the discard pile. The rest is the stock."),
        LI(
          "The non-dealer (the starter) may take the upcard or pass. If they pass, the dealer gets the same choice. ",
          "If both pass, the starter draws from the stock.",
        ),
        LI("After that, every turn is the same: draw the top card of the stock or of the discard pile, then discard one card."),
        LI("You may not throw back the card you just took from the discard pile in the same turn."),
        LI(
          "If a discard leaves only two cards in the stock and nobody has knocked, the hand is dead: nobody scores and the next hand is dealt.",
        ),
      ),

      h("h2", {}, "Knocking and gin"),
      P(
        "Instead of simply discarding, you can knock to end the hand, as long as the ten cards you keep have ",
        h("strong", {}, "10 points of deadwood or less"),
        " (some rule sets below change this limit from hand to hand; the table always shows this hand's). Knocking with no deadwood at all is ",
        h("strong", {}, "gin"),
        ".",
      ),
      P(
        "When someone knocks, both hands are laid down. The other player (the defender) makes their own melds, and may then ",
        h("strong", {}, "lay off"),
        " loose cards onto the knocker's melds: the fourth card of a set, or cards that extend a run at either end. ",
        "Nothing can be laid off on a gin hand. The table works out the best melds and layoffs for both players for you.",
      ),

      h("h2", {}, "Scoring a hand"),
      h(
        "ul",
        {},
        LI(h("strong", {}, "Knock:"), " the knocker scores the difference between the two deadwood counts."),
        LI(h("strong", {}, "Gin:"), " 25 points plus all of the defender's deadwood."),
        LI(
          h("strong", {}, "Undercut:"),
          " if the defender ends with the same deadwood as the knocker or less, the defender scores 25 plus the difference. ",
          "For example, a knock with 8 against a defender who gets down to 5 is an undercut worth 25 + 8 \u2212 5 = 28.",
        ),
      ),

      h("h2", {}, "Winning the match"),
      P(
        "Scores carry over from hand to hand. The first player to reach the target score (shown at the top of the table) wins the match. ",
        "Each rule preset plays and scores a little differently:",
      ),
      presets,

      h("h2", {}, "Using this table"),
      h(
        "ul",
        {},
        LI("Tap a card to select it. Tap it again, or drag it onto the discard pile, to throw it away."),
        LI("Draw with the Stock or the Discard pile button. When the upcard is offered, use Take or Pass."),
        LI(
          "When you can knock or go gin, the hint says so and marks the cards you could throw away for it (K, or G for gin); the Knock / Gin button lights up and shows how much deadwood you would keep.",
        ),
        LI("Sort your hand by melds, rank or suit, or drag cards into your own order. With a keyboard: arrow keys move between cards, Shift with an arrow key moves a card."),
        LI("If the page reloads or the connection drops, the match picks up exactly where it was."),
      ),
      h("h3", { id: "keys" }, "Keyboard shortcuts at the table"),
      shortcutList(),
      P("Your hand is one stop for the Tab key: Tab reaches it, the arrow keys move between its cards, and Tab again goes on to the buttons."),

      h("h2", {}, "Tips for playing the computer"),
      h(
        "ul",
        {},
        LI("Throw away high cards you are not using (kings, queens, jacks) early: they are the most expensive to be caught with."),
        LI(
          "Watch what the computer picks up from the discard pile. If it takes a 9, think twice before discarding a card of the same rank or a card next to it in the same suit.",
        ),
        LI("Knocking early usually beats waiting for gin. Late in a hand, though, the computer's count is often low, which makes an undercut more likely."),
        LI("Cards that fit two possible melds (a 7\u2665 next to 6\u2665 and another 7) are worth keeping."),
        LI("The computer's levels:", levels),
      ),
      P(h("a", { class: "btn primary", href: "#/" }, "Start a match")),
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  return () => {};
}
