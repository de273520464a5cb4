"""Hands written out card by card for the bots' tactical tests.

Each builder deals explicit cards with ``new_hand`` and plays a scripted history on the real
rules engine, then hands back the state; the tests give the bot only ``state.view(seat)``.
"""

from __future__ import annotations

from server.rules import RULES, Action, HandState, new_hand

PASS = {"kind": "pass"}
TAKE_UPCARD = {"kind": "take_upcard"}
DRAW_STOCK = {"kind": "draw", "source": "stock"}
DRAW_DISCARD = {"kind": "draw", "source": "discard"}
ALL_CARDS = [r + s for s in "cdhs" for r in "A23456789TJQK"]


def discard(card: str) -> dict:
    return {"kind": "discard", "card": card}


def scripted(
    hands: tuple[str, str], upcard: str, stock: list[str], script: list[dict], starter: int = 0
) -> HandState:
    """A house hand from explicit cards (the stock top first, padded with every card not dealt),
    after the wire actions in ``script``."""
    used = set(hands[0].split()) | set(hands[1].split()) | {upcard} | set(stock)
    stock = [*stock, *(c for c in ALL_CARDS if c not in used)]
    state = new_hand(RULES["house"], starter=starter, hands=hands, upcard=upcard, stock=stock)
    for wire in script:
        state.apply(Action.from_wire(wire))
    return state


# The bot's cards in the knock scenarios: three melds (Ac 2c 3c, 6d 7d 8d, Jc Jh Js) and Kd; it
# draws Ts last, so it may knock with 10 (throwing Kd or Ts).
BOT_MELDED = "Ac 2c 3c 6d 7d 8d Jh Jc Js Kd"


def undercut_risk() -> HandState:
    """Seat 1 (the bot) may knock with 10, but the opponent (seat 0) has taken three of its
    discards (5c, 9h, Qd), each making a set in its hand (5d 5h, 9s 9d, Qs Qc; deadwood 2): a
    knock would be undercut. Gin is one card away (4c, 5d, 9d, Jd, Ts...)."""
    bot = "Ac 2c 3c 6d 7d Jh Jc 5c 9h Qd"
    opp = "5d 5h 9s 9d Qs Qc 2s Kc Kh 4h"
    script = [
        PASS, PASS, DRAW_STOCK, discard("Kc"),
        DRAW_STOCK, discard("5c"),
        DRAW_DISCARD, discard("Kh"),
        DRAW_STOCK, discard("9h"),
        DRAW_DISCARD, discard("8h"),
        DRAW_STOCK, discard("Qd"),
        DRAW_DISCARD, discard("4h"),
        DRAW_STOCK,
    ]  # fmt: skip
    return scripted((opp, bot), "3h", ["8h", "8d", "Js", "Ts", "Kd"], script)


def late_knock() -> HandState:
    """The bot (seat 1) may knock with 10 with three cards left in the stock: if it does not,
    the opponent gets the last turn and the hand dies. The opponent (seat 0) has only drawn
    from the stock and thrown what it drew: it still holds its dealt junk (no meld)."""
    opp = "Kc Qh 9c 6c 2h 4s 8s Th 5h Ks"
    draws = [c for c in ALL_CARDS if c not in set((BOT_MELDED + " " + opp + " 3h Ts").split())][:27]
    script: list[dict] = [PASS, PASS]
    for card in draws:
        script += [DRAW_STOCK, discard(card)]
    script.append(DRAW_STOCK)  # the bot draws Ts
    return scripted((opp, BOT_MELDED), "3h", [*draws, "Ts"], script)


def upcard_completes_a_meld() -> HandState:
    """The starter (seat 0, the bot) holds 7h 8h; the upcard 9h makes the run."""
    bot = "7h 8h Qs Jd 2c 5s Kc 4d 9s Tc"
    opp = "Ac 3c 6d Ad 2s 3s Kd Qc 6h Jh"
    return scripted((bot, opp), "9h", [], [])


def discard_completes_a_meld() -> HandState:
    """The bot (seat 1) holds 4s 4d; the opponent has just thrown 4c on the discard pile."""
    opp = "4c Kh Qc 9d 2h 6s Ts Jc 8h 3d"
    bot = "4s 4d Ks Qd 9c 7h As 5c Jh 2d"
    return scripted((opp, bot), "6c", ["Td"], [PASS, PASS, DRAW_STOCK, discard("4c")])


def picked_up_8s() -> HandState:
    """The opponent (seat 0) took the upcard 8s; the bot (seat 1) has drawn 9d and holds two
    loose nines, 9s (next to the 8s) and 9d, alike in every other way."""
    opp = "7s 6s Kc Qh 2h 3d Jc 5h 4c Td"
    bot = "Ac 2c 3c Jd Jh Js 9s 4d 7h 2d"
    return scripted((opp, bot), "8s", ["9d"], [TAKE_UPCARD, discard("Kc"), DRAW_STOCK])


def queens_pair(dead: bool) -> HandState:
    """The bot (seat 1) must throw Jc or one of its pair of queens (all 10 points). With
    ``dead``, the other two queens lie in the discard pile (the upcard Qh, and Qc thrown by the
    opponent), so the pair can never become a set."""
    opp = "Kc Kd 9h 7s 5c 8c Th 4s 6h Qc"
    bot = "Ac 2c 3c 4d 5d 6d Jc Qs Qd 2h"
    upcard, thrown = ("Qh", "Qc") if dead else ("8s", "9h")
    return scripted((opp, bot), upcard, ["Ks", "3s"], [PASS, PASS, DRAW_STOCK, discard(thrown), DRAW_STOCK])
