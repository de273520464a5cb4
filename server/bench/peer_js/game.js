// The boardgame.io side of the peer benchmark: a minimal draw-and-discard card game with secret
// hands, pinned here so both servers play a comparable game. Each turn a player draws one card
// (from the stock or the discard pile) and discards one; when the stock is down to two cards the
// cards are dealt again. It never ends: a match lives as long as the run. The stock order and the
// other hand are secret: playerView gives a seat only its own hand and the stock's size.
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const DECK = [];
for (const suit of 'cdhs') for (const rank of 'A23456789TJQK') DECK.push(rank + suit);

function deal(random) {
  const deck = random.Shuffle(DECK);
  return {
    hands: { 0: deck.slice(0, 10), 1: deck.slice(10, 20) },
    discard: [deck[20]],
    stock: deck.slice(21),
    drawn: false,
    deals: 1,
  };
}

function draw({ G, playerID }, source) {
  const pile = source === 'discard' ? G.discard : G.stock;
  if (G.drawn || pile.length === 0) return INVALID_MOVE;
  G.hands[playerID].push(pile.pop());
  G.drawn = true;
}

function discard({ G, playerID, events, random }, card) {
  const hand = G.hands[playerID];
  const at = hand.indexOf(card);
  if (!G.drawn || at < 0) return INVALID_MOVE;
  hand.splice(at, 1);
  G.discard.push(card);
  G.drawn = false;
  if (G.stock.length <= 2) Object.assign(G, deal(random), { deals: G.deals + 1 });
  events.endTurn();
}

const GinLite = {
  name: 'gin-lite',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ random }) => deal(random),
  // client: false, as boardgame.io advises for secret state: a client holds only its seat's
  // view, so only the server runs a move.
  moves: {
    draw: { move: draw, client: false },
    discard: { move: discard, client: false },
  },
  playerView: ({ G, playerID }) => ({
    hand: playerID in G.hands ? G.hands[playerID] : [],
    discard: G.discard.slice(-1),
    stock: G.stock.length,
    drawn: G.drawn,
    deals: G.deals,
  }),
};

module.exports = { GinLite };
