"""What a live match keeps per action: every client id it answered stays until the match ends
(docs/protocol.md, ``act``), so each is packed into a few bytes (:mod:`server.service.answers`):
not the id string, not a tuple per id."""

from __future__ import annotations

import sys

from server.rules import Action, Discard, Pass
from server.rules.cards import Card
from server.service import MatchService
from server.service.answers import SeatAnswers, _key
from server.storage import SqlStore

from .helpers import human_match

ANSWER_BYTES = 40
"""At most this many bytes per remembered id, its seat's containers included (18 packed, the
rest the arrays' spare room and headers); as strings in a table of (version, action) tuples
each took about 140 with its id."""


async def test_each_answered_id_costs_a_few_packed_bytes(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    ids = 0
    played: dict[str, tuple[int, int, Action]] = {}
    while ids < 60 and live.meta.status == "active":
        seat = live.state.to_act
        action = live.state.legal_actions(seat)[0]
        client_id = f"id-{ids}-{'x' * 30}"
        await service.act(live, seat, client_id, live.meta.version, action.to_wire())
        played[client_id] = (seat, live.meta.version, action)
        ids += 1
    assert sum(map(len, live.answers)) == ids
    for client_id, (seat, version, action) in played.items():
        assert live.answers[seat].get(client_id) == (version, action)
        assert live.answers[1 - seat].get(client_id) is None
    kept = sum(
        sys.getsizeof(seat) + sum(sys.getsizeof(getattr(seat, n)) for n in SeatAnswers.__slots__)
        for seat in live.answers
    )
    assert kept / ids <= ANSWER_BYTES
    await service.close()


def test_an_id_is_answered_with_its_version_and_action_and_a_new_one_with_none():
    book = SeatAnswers()
    draw, discard = Action.from_wire({"kind": "draw", "source": "stock"}), Discard(Card.parse("7h"))
    book.add("a", 5, draw)
    book.add("b", 7, discard)
    assert book.get("a") == (5, draw) and book.get("b") == (7, discard) and book.get("c") is None
    assert book.get("a")[1] is draw  # the rules' own value back
    book.add("a", 9, Pass())  # a second answer for an id replaces the first
    assert book.get("a") == (9, Pass()) and len(book) == 2


def test_a_key_is_only_found_where_an_entry_starts():
    book = SeatAnswers()
    for i in range(20):
        book.add(f"id{i}", i, Pass())
    keys = b"".join(_key(f"id{i}") for i in range(20))
    for offset in range(1, 8):  # the bytes across two neighbours are no entry
        straddling = keys[8 * 3 + offset : 8 * 4 + offset]
        assert book._find(straddling) == -1
    assert book._find(keys[8 * 3 : 8 * 4]) == 3


def test_update_adds_the_later_answers_and_equality_compares_them():
    one, two = SeatAnswers(), SeatAnswers()
    one.add("a", 1, Pass())
    two.add("a", 1, Pass())
    later = SeatAnswers()
    later.add("b", 2, Pass())
    later.add("a", 3, Pass())
    one.update(later)
    assert one.get("b") == (2, Pass()) and one.get("a") == (3, Pass()) and len(one) == 2
    assert one != two
    two.add("a", 3, Pass())
    two.add("b", 2, Pass())
    assert one == two
