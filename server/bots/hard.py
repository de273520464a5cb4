"""Hard: reads the opponent and simulates the rest of the hand.

How it decides:

- It tracks every card it has seen (:mod:`.knowledge`): a card the opponent took is known (and
  surely melds in its hand); a card it discarded or declined would not have made a meld with
  it; it has improved its hand every turn; and it would have knocked if it could.
- Before a discard it samples ``worlds`` complete hidden states consistent with all that (the
  opponent's unknown cards, then the stock order; :meth:`.knowledge.Knowledge.sample`).
- Discards are first scored by a quick evaluation: the expected deadwood after the next draw
  (so a card that keeps two ways to make a meld is worth more than a lone one), plus ``feed``
  points times the chance the opponent can meld the card. The best ``candidates`` (none more
  than ``margin`` worse than the best) are then compared by playing the rest of the hand out
  greedily for both seats (:func:`.rollout.play_hand`), on the same samples for every candidate so
  that they meet the same luck: every candidate plays half the samples, and only the best
  ``keep`` play the other half (0: all play all). A candidate's value is its average points,
  less ``blend``/100 times its quick-score gap to the best (playouts are noisy at this budget;
  the quick score carries the opponent model).
- Knocking is a candidate too: its value is the exact settlement against each sampled opponent
  hand (layoffs and undercuts included), plus ``knock_bias`` points (-3). So it knocks while the
  opponent is far away, waits for gin when a knock would likely be undercut, and plays on when
  the simulations say it pays.
- The opponent's knocking in the playouts (:meth:`HardBot.opp_knock_at`): at its first chance
  while it has discarded fewer than ``opp_gin_after`` (3) times; after that, by default
  (``opp_mix`` 0, since issue 17's eighth round), only with gin, as MARJJ does (a gin-holder).
  ``opp_mix`` 2 (the default before): a world whose guessed opponent hand could already have
  knocked, and did not, holds a gin-holder, and in the other worlds it still knocks at its
  first chance (as Normal or the simple bot would); 1: every other world a gin-holder.
  ``clue_turns``: the sampler's "it would have knocked if it could" holds only over the
  opponent's first that many discards. ``improve`` (percent, 100): the share of the opponent's
  thrown-away cards the sampler replays as draws that improve its guessed hand (all of them
  make a guess 5-6 points of deadwood stronger than the true hand mid-hand: a pessimism Hard
  plays well with; explained play values with 50, which matched the true hands).
- ``match_bonus`` (``house`` only, where just the match counts): points past the target are
  worth nothing, and reaching it is worth that many points more, for either seat; the view's
  ``scores`` say how far each seat is from the target.
- Playing for gin as MARJJ does (``gin_weight``, tenths of a point per point): the quick score
  adds that weight times the mean deadwood after the best ``gin_draws`` draws from the unseen
  cards (:func:`.sim.best_draws_deadwood`), so of two discards it keeps the hand with more
  ways to gin; ``gin_decay`` (percent, 100: none, the default) multiplies that weight once for
  every turn after its first, as MARJJ's 0.9 does. ``early_knock``: within its first that many
  turns of the hand it knocks as soon as it can (the opponent is seldom close yet).
  ``knock_risk`` (percent; 0, off, by default): after those turns it knocks only when at most
  that share of the sampled opponent hands would undercut the knock, and otherwise plays on for
  gin (the simulated knock value is then not used). ``knock_cap`` (percent; 0, off): with
  ``knock_risk`` off, a knock that more than that share of the sampled hands would undercut is
  not made, and the others are weighed by value.
- A discard that cannot lower its deadwood is never taken; one that completes a new meld always
  is; any other is taken when it melds with the hand or lets it knock at once. (Simulating
  those draws was measured no better.)
- ``discard_style`` 1, the default (0: the discards above, the style before issue 17's fourth
  round, with ``knock_bias=0 strength_weight=100`` as it was): draws and discards as the
  MARJJ-style player does, with the knock after the early turns weighed by simulation,
  ``tie_band`` near-ties of its score broken by playouts and ``strength_weight`` (50: half of
  MARJJ's) / ``strength_decay`` its best-draws weight (:mod:`.marjj_plus`).
  ``marjj_take`` 1: MARJJ's draw rule with either discard style. ``playout_style`` (0, off): in
  the playouts the opponent (1) or both seats (2) throw as a gin player would
  (:func:`.sim.gin_thrown_card`) when not knocking. ``playout_model`` (2, the default since
  issue 17's eighth round; 0, off): with ``discard_style`` 1 the playouts' opponent (1) or both
  seats (2) draw by MARJJ's rule and throw as a gin player (:mod:`.rollout`).
  ``playout_knock`` (bits; 1 by default, 0 off) and ``late_knock``: when each seat knocks in
  those playouts (:func:`.marjj_plus.knock_windows`). ``draw_search`` (0, off; measured no
  better): the draw weighed by those playouts (:func:`.marjj_plus.searched_take`). The defaults
  ``tie_band=8 worlds=80 blend=50 playout_model=2 playout_knock=1 opp_mix=0`` won 56.8% of
  3,000 fresh matches against the MARJJ-style player (issue 17's eighth round).
  Options measured no better and removed since: ``match_equity``, ``knock_sure``,
  ``style_feed``, ``close_weight``/``close_need``, ``own_take`` and ``sample_style``
  (``docs/strength.md`` keeps what they measured).
- A won hand is worth the box bonus more than its points (``classic``, ``oklahoma``).
- The hand's own knock limit and multiplier (the view's ``knock_limit`` and ``multiplier``) and
  the rules' scoring hooks drive every knock, playout and settlement: in ``oklahoma`` it waits
  for gin under an ace and plays for more under a spade without knowing the variant's name.

It sees only its seat's view; everything hidden is a guess drawn from its own generator, seeded
from the bot's seed and the view. The budget is fixed (never time-based), so the same seed and
view give the same action. ``worlds``, ``candidates``, ``keep`` and ``lookahead`` (0: no
expected-draw term in the quick score) trade strength for speed: tests use small values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from server.rules import Discard, Knock, SeatView
from server.rules.cards import DECK, VALUES
from server.rules.melds import discard_deadwoods, min_deadwood

from .base import Bot, own_mask, taken_index, top_of_pile
from .knowledge import Knowledge
from .marjj_plus import knock_value, marjj_plus_take, marjj_plus_values, searched_take
from .rollout import PlayoutSettings, play_hand
from .sim import (
    DISCARD,
    DRAW,
    Memo,
    best_draws_deadwood,
    greedy_take,
    own_turns,
    settle_points,
)


class HardBot(Bot):
    difficulty = "hard"
    WORLDS = 80
    """Worlds sampled for a discard decision (half of them for a draw) at full strength."""

    def __init__(
        self,
        seed: int | str = 0,
        *,
        worlds: int = WORLDS,
        candidates: int = 4,
        feed: int = 10,
        blend: int = 50,
        lookahead: int = 1,
        margin: int = 8,
        knock_bias: int = -3,
        keep: int = 2,
        clue_turns: int = 3,
        opp_gin_after: int = 3,
        match_bonus: int = 0,
        opp_mix: int = 0,
        gin_weight: int = 10,
        gin_draws: int = 6,
        early_knock: int = 3,
        knock_risk: int = 0,
        gin_decay: int = 100,
        knock_cap: int = 0,
        discard_style: int = 1,
        tie_band: int = 8,
        strength_weight: int = 50,
        strength_decay: int = 90,
        marjj_take: int = 0,
        playout_style: int = 0,
        playout_model: int = 2,
        playout_knock: int = 1,
        late_knock: int = 0,
        draw_search: int = 0,
        draw_margin: int = 1,
        improve: int = 100,
    ) -> None:
        super().__init__(seed)
        if worlds < 1 or candidates < 1:
            raise ValueError("worlds and candidates must be at least 1")
        self.worlds = worlds
        self.candidates = candidates
        self.feed = feed
        self.blend = blend / 100
        self.lookahead = lookahead
        self.margin = margin
        self.knock_bias = knock_bias
        self.keep = keep
        self.clue_turns = clue_turns
        self.improve = improve / 100
        self.opp_gin_after = opp_gin_after
        self.match_bonus = match_bonus
        self.opp_mix = opp_mix
        self.gin_weight = gin_weight / 10
        self.gin_draws = gin_draws
        self.early_knock = early_knock
        self.knock_risk = knock_risk / 100
        self.gin_decay = gin_decay / 100
        self.knock_cap = knock_cap / 100
        self.discard_style = discard_style
        self.tie_band = tie_band
        self.strength_weight = strength_weight / 100
        self.strength_decay = strength_decay / 100
        self.marjj_take = marjj_take
        self.playout_style = playout_style
        self.playout_model = playout_model
        self.playout_knock = playout_knock
        self.late_knock = late_knock
        self.draw_search = draw_search
        self.draw_margin = draw_margin

    def __repr__(self) -> str:
        return f"HardBot({self.seed!r}, worlds={self.worlds}, candidates={self.candidates})"

    # --- the picture of the hand --------------------------------------------------------------

    def sample_worlds(self, view: SeatView, k: Knowledge, worlds: int) -> list[tuple[int, list[int]]]:
        """``worlds`` guesses at the hidden cards: (opponent's hand, stock top first)."""
        weights = k.weights()
        turns = None if self.clue_turns >= 99 else self.clue_turns
        return [
            k.sample(self.rng, weights, view.knock_limit, knock_turns=turns, improve=self.improve)
            for _ in range(worlds)
        ]

    # --- draw ---------------------------------------------------------------------------------

    def take_discard(self, view: SeatView) -> bool:
        if self.discard_style and self.draw_search:
            return searched_take(self, view)
        if self.discard_style or self.marjj_take:
            return marjj_plus_take(view)
        hand = own_mask(view)
        top = top_of_pile(view)
        with_top = hand | 1 << top
        dd = discard_deadwoods(with_top)
        best_after = min(v for i, v in dd.items() if i != top)
        dw = min_deadwood(hand)
        if best_after >= dw:
            return False  # taking it cannot lower the deadwood: never worth showing the card
        if dw + VALUES[top] - min_deadwood(with_top) > VALUES[top]:
            return True  # it completes a new meld with two loose cards: always worth it
        return greedy_take(hand, top, view.knock_limit)

    # --- discard ------------------------------------------------------------------------------

    def discard(self, view: SeatView) -> Discard | Knock:
        if self.discard_style:
            return self.knock_at_once(view) or self.pick(*marjj_plus_values(self, view))
        return self.knock_at_once(view) or self.pick(*self.discard_values(view))

    def knock_at_once(self, view: SeatView) -> Knock | None:
        """The knocks Hard makes without weighing anything: gin, and any knock within its first
        ``early_knock`` turns of the hand (the opponent is seldom close yet)."""
        options = dict(view.discard_deadwood)
        least = min(options.values())
        if least == 0:
            # Gin: nothing scores more. Throw the card that feeds the opponent least.
            return Knock(max((c for c, dw in options.items() if dw == 0), key=lambda c: (VALUES[c.index], c)))
        if least <= view.knock_limit and own_turns(view) <= self.early_knock:
            # With the card that leaves the least deadwood (the highest of those).
            return Knock(
                max((c for c, dw in options.items() if dw == least), key=lambda c: (VALUES[c.index], c))
            )
        return None

    def discard_values(
        self, view: SeatView, *, every: bool = False, only: Collection[tuple[str, int]] | None = None
    ) -> tuple[dict[tuple[str, int], float], dict[int, float], dict[int, float]]:
        """Hard's evaluation of a DISCARD decision: ``({(kind, card index): value}, quick
        scores, {knock card index: undercut risk})``, each value in expected points of the hand
        for this seat (box bonus counted); the risk (the share of sampled opponent hands that
        would undercut) for the knocks leaving the least deadwood.

        Hard plays the best of these. Normally only its few best discards by the quick score are
        simulated (and only the best ``keep`` on every sample); ``every``: every legal discard
        and knock is simulated on all the samples (the analysis of a decision, which must value
        the card the player threw too). The random draws are the same either way, so ``every``
        changes no value of a candidate Hard would have simulated on all its samples. ``only``
        (with ``every``): just these of them (the analysis checking two actions again).
        """
        rules = view.rules
        limit = view.knock_limit
        options = dict(view.discard_deadwood)
        least = min(options.values())
        hand = own_mask(view)
        k = Knowledge.from_view(view)
        memo = Memo()
        probs = k.opp_probabilities()
        scored = self._quick_scores(view, hand, k, probs, memo)
        ranked = sorted(scored, key=lambda i: scored[i])
        # Simulate only the few best by the quick score, and none that is clearly worse.
        cut = scored[ranked[0]] + self.margin
        if every:
            candidates = ranked if only is None else [c for c in ranked if ("discard", c) in only]
        else:
            candidates = [c for c in ranked[: self.candidates] if scored[c] <= cut]
            if len(candidates) == 1 and least > limit:
                return {("discard", candidates[0]): 0.0}, scored, {}
        worlds = self.sample_worlds(view, k, self.worlds)
        me = view.seat
        assert me is not None
        opp_knock = self.opp_knock_at(len(k.opp_discards), worlds, limit, memo)
        settings = PlayoutSettings(rules, limit, view.multiplier, gin_seats=self.gin_seats(me))
        worth = self.worth(view)

        def play(c: int, lo: int, hi: int) -> float:
            total = 0.0
            rest = hand & ~(1 << c)
            for j in range(lo, hi):
                opp_hand, stock = worlds[j]
                if len(stock) > 2:  # else a plain discard now ends the hand: dead, 0
                    total += worth(
                        play_on(me, rest, opp_hand, stock, [*k.pile, c], opp_knock[j], settings, memo)
                    )
            return total

        # Playouts are noisy at this budget; the quick score carries the opponent model (feeding)
        # and the draw odds, so it steadies the ranking of discards.
        base = min((scored[c] for c in candidates), default=0.0)
        penalty = {c: self.blend * (scored[c] - base) for c in candidates}
        values: dict[tuple[str, int], float] = {}
        n = len(worlds)
        if not every and self.keep and len(candidates) > self.keep and n > 1:
            # Every candidate plays half the samples; only the best few play the other half (this
            # caps the slowest decisions, which set the response time, at little cost).
            half = n // 2
            sums = {c: play(c, 0, half) for c in candidates}
            first = {c: sums[c] / half - penalty[c] for c in candidates}
            best = sorted(candidates, key=lambda c: (-first[c], scored[c], c))[: self.keep]
            for c in candidates:
                values[("discard", c)] = (
                    (sums[c] + play(c, half, n)) / n - penalty[c] if c in best else first[c]
                )
        else:
            for c in candidates:
                values[("discard", c)] = play(c, 0, n) / n - penalty[c]
        risk: dict[int, float] = {}
        if least <= limit:
            # The knock's own discard never reaches the opponent; only the ten cards left count.
            for kc in (c.index for c, dw in options.items() if dw <= (limit if every else least)):
                if only is not None and ("knock", kc) not in only:
                    continue
                left = hand & ~(1 << kc)
                points = [
                    settle_points(left, opp_hand, rules, limit, view.multiplier) for opp_hand, _ in worlds
                ]
                values[("knock", kc)] = knock_value(self, points, rules.box_bonus, worth)
                if options[DECK[kc]] == least:
                    risk[kc] = sum(p < 0 for p in points) / n
        return values, scored, risk

    def opp_knock_at(
        self, discards: int, worlds: list[tuple[int, list[int]]], limit: int, memo: Memo
    ) -> list[int]:
        """The deadwood at which the opponent knocks in each world's playouts (0: only with gin).

        At its first chance while it has discarded fewer than ``opp_gin_after`` times; after that
        only with gin (a player who knocks early, then holds out for gin), except: with
        ``opp_mix`` 1 every other world still knocks at once (a mixture of both kinds of player);
        with ``opp_mix`` 2 a world holds a gin-holder only when its guessed hand could have
        knocked already and did not, and otherwise the opponent knocks at its first chance (so
        against a player who knocks as soon as it can, who would have, the playouts still fear
        its knock).
        """
        if discards < self.opp_gin_after:
            return [limit] * len(worlds)
        if self.opp_mix == 2:
            return [0 if memo.deadwood(hand) <= limit else limit for hand, _ in worlds]
        return [limit if self.opp_mix and j % 2 else 0 for j in range(len(worlds))]

    def pick(
        self, values: dict[tuple[str, int], float], scored: dict[int, float], risk: dict[int, float]
    ) -> Discard | Knock:
        """Hard's discard from its evaluation (:meth:`discard_values`)."""
        if risk and self.knock_risk:
            # Past the early turns: knock only when few sampled hands would undercut it,
            # otherwise play for gin.
            kc = min(risk, key=lambda c: (risk[c], -values[("knock", c)], c))
            if risk[kc] <= self.knock_risk:
                return Knock(DECK[kc])
            values = {key: v for key, v in values.items() if key[0] != "knock"}
        elif risk and self.knock_cap:
            # Knock only by value, and never when too many sampled hands would undercut.
            values = {
                key: v
                for key, v in values.items()
                if key[0] != "knock" or risk.get(key[1], 0.0) <= self.knock_cap
            }
        (kind, card), _ = max(
            values.items(), key=lambda kv: (kv[1], kv[0][0] == "knock", -scored.get(kv[0][1], 0.0), kv[0][1])
        )
        return Knock(DECK[card]) if kind == "knock" else Discard(DECK[card])

    def gin_seats(self, me: int) -> int:
        """The seats that throw as gin players in the playouts (``playout_style``), as bits."""
        return {0: 0, 1: 1 << (1 - me)}.get(self.playout_style, 3)

    def worth(self, view: SeatView) -> Callable[[int], float]:
        """What a hand's points (for this seat; negative: for the opponent) are worth in this
        match. With ``match_bonus`` and no box bonus (``house``: only winning the match counts),
        points past the target are worth nothing and reaching it is worth ``match_bonus`` more;
        otherwise points are points."""
        me = view.seat
        if not self.match_bonus or view.rules.box_bonus or me is None:
            return float
        target = view.rules.target
        mine, theirs = target - view.scores[me], target - view.scores[1 - me]
        bonus = self.match_bonus

        def worth(points: int) -> float:
            if points >= 0:
                return min(points, mine) + (bonus if points >= mine else 0)
            return -(min(-points, theirs) + (bonus if -points >= theirs else 0))

        return worth

    def _quick_scores(
        self, view: SeatView, hand: int, k: Knowledge, probs: dict[int, float], memo: Memo
    ) -> dict[int, float]:
        """Lower is better: expected deadwood after the next draw, plus the feeding penalty."""
        taken = taken_index(view)
        stock_w = [(c, 1.0 - p) for c, p in probs.items() if p < 1.0]
        w_total = sum(w for _, w in stock_w) or 1.0
        p_opp = k.opp_holding(probs)
        out: dict[int, float] = {}
        gin_weight = self.gin_weight * self.gin_decay ** max(0, own_turns(view) - 1)
        for c, _dw in ((c.index, dw) for c, dw in view.discard_deadwood):
            if c == taken:
                continue
            rest = hand & ~(1 << c)
            dw = memo.deadwood(rest)
            # the highest card the ten could throw (what a useless draw lets it swap out)
            loose = dw - memo.discards(rest)[0][1]
            near = near_mask(rest)
            expected = 0.0
            for x, w in stock_w if self.lookahead else ():
                if near >> x & 1:
                    expected += w * memo.discards(rest | 1 << x)[0][1]
                else:
                    expected += w * (dw - max(0, loose - VALUES[x]))
            expected = expected / w_total if self.lookahead else dw
            out[c] = expected + self.feed * feed_chance(c, p_opp)
            if gin_weight:
                out[c] += gin_weight * best_draws_deadwood(rest, k.unseen, memo, self.gin_draws)
        return out


def with_box(points: int, box_bonus: int) -> int:
    """A hand's points for its winner's side, counting the box bonus a won hand earns at the
    end of the match (25 in ``classic`` and ``oklahoma``, 0 in ``house``)."""
    if points > 0:
        return points + box_bonus
    if points < 0:
        return points - box_bonus
    return 0


def play_on(
    me: int,
    mine: int,
    theirs: int,
    stock: list[int],
    pile: list[int],
    opp_knock: int,
    settings: PlayoutSettings,
    memo: Memo,
    mine_first: int = 0,
) -> int:
    """Points for seat ``me`` (box bonus included) of playing one sampled world out from the
    opponent's next draw (:func:`.rollout.play_hand`, with the decision's ``settings``):
    ``mine`` and ``theirs`` are the two hands, ``stock`` is top first (left untouched), ``pile``
    bottom first (consumed); ``me`` knocks at the hand's limit, the opponent at ``opp_knock``
    deadwood. ``mine_first``: ``me`` plays first instead, 1: to discard having taken the top of
    ``pile`` (still on it), 2: to draw from the stock."""
    limit = settings.limit
    hands = [mine, theirs] if me == 0 else [theirs, mine]
    knock_at = (limit, opp_knock) if me == 0 else (opp_knock, limit)
    to_act, phase, taken = 1 - me, DRAW, -1
    if mine_first == 1:
        to_act, phase, taken = me, DISCARD, pile.pop()
        hands[me] |= 1 << taken
    elif mine_first == 2:
        to_act = me
    knocker, points = play_hand(
        hands, stock[::-1], pile, to_act, phase, taken, knock_at, settings, memo, stock_only=mine_first == 2
    )
    return with_box(points if knocker == me else -points, settings.rules.box_bonus)


def near_mask(hand: int) -> int:
    """Cards that could meld with some card of ``hand``: same rank, or within two in a suit.
    A card outside it cannot join a meld with the hand."""
    out = 0
    m = hand
    while m:
        low = m & -m
        i = low.bit_length() - 1
        out |= _NEAR[i]
        m ^= low
    return out & ~hand


def _near(i: int) -> int:
    suit, r = divmod(i, 13)
    m = 0
    for s in range(4):
        m |= 1 << (s * 13 + r)
    for d in (-2, -1, 1, 2):
        if 0 <= r + d < 13:
            m |= 1 << (suit * 13 + r + d)
    return m


_NEAR = tuple(_near(i) for i in range(52))


def feed_chance(card: int, p_opp: dict[int, float]) -> float:
    """Chance that the opponent holds two cards making a meld with ``card`` (independent guess)."""
    suit, r = divmod(card, 13)
    same = [p_opp.get(s * 13 + r, 0.0) for s in range(4) if s != suit]
    a, b, c = same
    p_set = a * b + a * c + b * c - 2 * a * b * c

    def p(rank: int) -> float:
        return p_opp.get(suit * 13 + rank, 0.0) if 0 <= rank < 13 else 0.0

    m2, m1, p1, p2 = p(r - 2), p(r - 1), p(r + 1), p(r + 2)
    p_run = 1.0 - (1.0 - m2 * m1) * (1.0 - m1 * p1) * (1.0 - p1 * p2)
    return 1.0 - (1.0 - p_set) * (1.0 - p_run)


__all__ = ["HardBot", "feed_chance"]
