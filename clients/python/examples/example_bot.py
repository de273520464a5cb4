"""An example bot: joins a friend's match through its invite and plays it to the end.

    python examples/example_bot.py --server http://127.0.0.1:8080 --invite 'INVITE_URL_OR_MATCH:CODE'

Its whole brain is ``choose``: given the view of its seat, it returns one of
``view.legal_actions``. Replace it with your own and you have your own Gin Rummy bot.
"""

import argparse
import asyncio

from ginrummy_client import Action, GinRummyClient, MatchView, deadwood


def choose(view: MatchView) -> Action:
    hand = view.hand
    legal = view.legal_actions
    left = hand.discard_deadwood  # for each legal discard: the deadwood it would leave
    knocks = [a for a in legal if a.kind == "knock"]
    if knocks:  # going out scores: knock (or gin) as soon as the rules allow
        return min(knocks, key=lambda a: left[a.card])
    discards = [a for a in legal if a.kind == "discard"]
    if discards:  # keep the ten cards with the least deadwood
        return min(discards, key=lambda a: left[a.card])
    # Drawing: take the face-up card only if it leaves less deadwood than we hold now.
    top = hand.top_discard
    for a in legal:
        if a.kind == "take_upcard" or a.source == "discard":
            after = min(deadwood(c for c in [*hand.hand, top] if c != out) for out in hand.hand)
            if after < hand.deadwood:
                return a
    return next(a for a in legal if a.kind in ("pass", "draw") and a.source != "discard")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--invite", required=True, help="the invite URL, or MATCH_ID:CODE")
    parser.add_argument("--match", help="the match id, if the invite does not name it")
    parser.add_argument("--name", default="Example bot")
    args = parser.parse_args()

    client = GinRummyClient(args.server)
    me = await client.create_player(args.name)
    ticket = await client.join_invite(args.invite, args.match)
    print(f"{me.name} joined match {ticket.match_id} in seat {ticket.seat}", flush=True)
    async with client.connect(ticket) as conn:
        final = await conn.play(choose)  # every turn: choose(view), send it, wait for the ack
    mine, theirs = final.scores[final.seat], final.scores[1 - final.seat]
    verdict = "won" if final.outcome and final.outcome.winner == final.seat else "lost"
    print(f"{verdict} {mine} to {theirs} after {final.hand_number} hands", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
