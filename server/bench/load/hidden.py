"""The hidden-card check: replay a finished match's record to the point of every state message
and list the cards it named that its seat could not know then."""

from __future__ import annotations

from typing import Any


def hidden_card_leaks(record: dict[str, Any], messages: list[dict[str, Any]], seat: int | None) -> list[str]:
    """Replay ``record`` to the point of every state message and list the cards each names that
    ``seat`` (None: a watcher) could not know then: the stock, and the other hand except cards
    it took face up (a watcher: both hands). Results are exempt (they reveal hands once the
    hand is over) but may never name a stock card. Also a problem: a message for another seat,
    a seat shown a hand that is not its own, a watcher shown a hand or legal actions."""
    from server.rules import RULES, Action, new_hand

    rules = RULES[record["rules"]]
    problems: list[str] = []
    replayed: dict[int, tuple[Any, int]] = {}  # hand number -> (the hand so far, actions applied)
    for msg in messages:
        if msg.get("type") != "state":
            continue
        view = msg["view"]
        version = msg["version"]
        if view["seat"] != seat:
            problems.append(f"version {version}: a message for seat {view['seat']} sent to seat {seat}")
        if view["status"] == "waiting":
            continue
        hv = view["hand"]
        number = view["hand_number"]
        deal = record["hands"][number - 1]
        history = hv["history"]
        if deal["stock"] is None or None in deal["hands"]:
            problems += _unfinished_leaks(deal, view, seat)
            continue
        truth, applied = replayed.get(number, (None, 0))
        if truth is None or applied > len(history):
            truth, applied = (
                new_hand(rules, deal["starter"], tuple(deal["hands"]), deal["upcard"], deal["stock"]),
                0,
            )
        for entry in deal["actions"][applied : len(history)]:
            truth.apply(Action.from_wire(entry["action"]), entry["seat"])
        replayed[number] = (truth, len(history))
        public = {e["card"] for e in history if "card" in e}
        stock = {c.code for c in truth.stock_order()}
        hidden = set(stock)
        if truth.result is None:
            for s in (0, 1):
                if s != seat:
                    hidden |= {c.code for c in truth.hand(s)} - public
        if seat is not None:
            own = {c.code for c in truth.hand(seat)}
            if set(hv["hand"]) != own:
                problems.append(f"version {version}: the seat's hand is not its own")
            hidden -= own
        elif hv["hand"] or hv["legal_actions"]:
            problems.append(f"version {version}: a watcher was shown a hand or legal actions")
        # Everything but results and static rule text; the match id is random text.
        visible = _cards({k: v for k, v in hv.items() if k != "result"})
        visible |= _cards(
            {k: v for k, v in view.items() if k not in ("hand", "last_result", "rules", "match_id")}
        )
        if hv.get("result") is not None:
            visible |= _cards(hv["result"]) & stock
        leaked = visible & hidden
        if leaked:
            problems.append(f"version {version}: seat {seat} saw hidden {sorted(leaked)}")
    return problems


def _unfinished_leaks(deal: dict[str, Any], view: dict[str, Any], seat: int | None) -> list[str]:
    """The check for a hand the record keeps hidden (left unfinished: its stock and the other
    hand are not in the record). Every card a message names must be public by then (the upcard,
    a card some action named), or the seat's own: dealt to it, or in its hand now, and of these
    at most as many as it drew from the stock."""
    hv, version = view["hand"], view.get("version")
    done = deal["actions"][: len(hv["history"])]
    public = {deal["upcard"]} | {a["action"]["card"] for a in done if "card" in a["action"]}
    own = set(deal["hands"][seat] or []) if seat is not None else set()
    drawn = sum(1 for a in done if a["seat"] == seat and a["action"].get("source") == "stock")
    problems = []
    if seat is None and (hv["hand"] or hv["legal_actions"]):
        problems.append(f"version {version}: a watcher was shown a hand or legal actions")
    unknown = set(hv["hand"]) - own - public
    if len(unknown) > drawn:
        problems.append(f"version {version}: seat {seat} holds {sorted(unknown)}, more than it drew")
    visible = _cards({k: v for k, v in hv.items() if k not in ("hand", "result")})
    visible |= _cards(
        {k: v for k, v in view.items() if k not in ("hand", "last_result", "rules", "match_id")}
    )
    leaked = visible - public - own - set(hv["hand"])
    if leaked:
        problems.append(f"version {version}: seat {seat} saw hidden {sorted(leaked)}")
    return problems


_CARD_CODES = {r + s for r in "A23456789TJQK" for s in "cdhs"}


def _cards(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        found.update(w for w in value.replace(",", " ").replace(":", " ").split() if w in _CARD_CODES)
    elif isinstance(value, dict):
        for k, v in value.items():
            found |= _cards(k) | _cards(v)
    elif isinstance(value, list):
        for v in value:
            found |= _cards(v)
    return found
