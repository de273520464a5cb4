"""The table says this hand's facts as the view gives them: the knock limit from
``view.hand.knock_limit`` (it may differ from the preset's and from hand to hand; 0 is gin
only), a note when ``view.hand.multiplier`` makes the hand count more, the preset's label from
``view.rules.label``, and the cards from ``view.hand.cards``.

The views are the real server's, changed on their way to the page (Playwright's WebSocket
routing): the server has no preset with such hands yet, and the point is that the table follows
the view, not the preset."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import WebSocketRoute, expect

from .conftest import DESKTOP
from .table import hand_cards, not_busy, start_vs_computer, status_line

pytestmark = pytest.mark.browser


def rewrite_views(page, change: Callable[[dict], None]) -> None:
    """Pass every message between the page and the server's /ws, applying ``change`` to the
    view of each ``state`` message."""

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state":
                change(msg["view"])
                message = json.dumps(msg)
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(server.send)

    page.route_web_socket(re.compile(r"/ws$"), route)


def a_hand_of(*, knock_limit: int | None = None, multiplier: int | None = None) -> Callable[[dict], None]:
    def change(view: dict) -> None:
        hand = view.get("hand") or {}
        hand.pop("hand", None)  # the deprecated copy of the cards: the table must not need it
        view.get("rules", {})["label"] = "Made-up rules"
        if knock_limit is not None:
            hand["knock_limit"] = knock_limit
            # The server's preset allows knocks up to 10; take them away, so every card's hint
            # states the limit (a card that can knock says "you can knock" instead).
            hand["legal_actions"] = [a for a in hand.get("legal_actions", []) if a["kind"] != "knock"]
        if multiplier is not None:
            hand["multiplier"] = multiplier

    return change


def select_a_card_in_my_discard(page) -> str:
    """Pass or draw until it is this player's discard; select a card; return the hint."""
    status = status_line(page)
    next_hand = page.get_by_role("button", name="Next hand")
    deadline = time.monotonic() + 30
    # In about one deal in forty the computer knocks on its first turn: then the next hand.
    while "Your turn: discard" not in status.inner_text():
        assert time.monotonic() < deadline, status.inner_text()
        try:
            if next_hand.is_visible():
                next_hand.click(timeout=3000)
            elif "take the upcard or pass" in status.inner_text():
                page.get_by_role("button", name="Pass", exact=True).click(timeout=3000)
            elif "Your turn: draw" in status.inner_text():
                page.get_by_role("button", name=re.compile(r"^Stock")).click(timeout=3000)
            else:
                page.wait_for_timeout(50)
                continue
        except PlaywrightError:
            continue  # the result dialog opened meanwhile: look again
        not_busy(page)
    hand = page.get_by_role("group", name=re.compile(r"^Your hand"))
    hand.get_by_role("button", name=re.compile(r"^(?!.*cannot be discarded)")).first.click()
    return page.locator("#hand-hint").inner_text()


@pytest.mark.parametrize(
    ("limit", "words"),
    [(7, "(a knock needs 7 or less)"), (0, "(gin only this hand)")],
)
def test_the_knock_limit_shown_is_this_hands_from_the_view(server, new_page, limit, words):
    page = new_page(**DESKTOP)
    rewrite_views(page, a_hand_of(knock_limit=limit))
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    expect(hand_cards(page)).to_have_count(10)  # read from hand.cards (hand.hand is removed)
    expect(page.locator(".match-meta")).to_contain_text("Made-up rules")
    hint = select_a_card_in_my_discard(page)
    assert re.search(r"leaves \d+ deadwood " + re.escape(words), hint), hint


def test_a_hand_that_scores_double_says_so_and_an_ordinary_hand_does_not(server, new_page):
    double = new_page(**DESKTOP)
    rewrite_views(double, a_hand_of(multiplier=2))
    start_vs_computer(double, server, name="Ada", difficulty="Easy", rules="Classic rules")
    expect(double.locator(".scorebar")).to_contain_text("This hand scores double")

    ordinary = new_page(**DESKTOP)
    rewrite_views(ordinary, a_hand_of(multiplier=1))
    start_vs_computer(ordinary, server, name="Bea", difficulty="Easy", rules="Classic rules")
    expect(ordinary.locator(".match-meta")).to_contain_text("Made-up rules")
    expect(ordinary.get_by_text("scores double")).to_have_count(0)


@pytest.mark.parametrize(
    ("limit", "note"), [(4, "Knock with 4 or less this hand"), (0, "Gin only this hand"), (10, None)]
)
def test_the_top_bar_names_a_knock_limit_unlike_the_presets(server, new_page, limit, note):
    page = new_page(**DESKTOP)
    rewrite_views(page, a_hand_of(knock_limit=limit))
    start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="House rules")
    expect(page.locator(".match-meta")).to_contain_text("Made-up rules")
    if note is None:  # the preset's own limit (10): nothing to point out
        expect(page.locator(".scorebar .hand-note")).to_have_count(0)
    else:
        expect(page.locator(".scorebar")).to_contain_text(note)


def test_an_oklahoma_match_shows_the_knock_limit_its_upcard_set(server, new_page):
    page = new_page(**DESKTOP)
    seen: list[dict] = []
    rewrite_views(page, lambda view: seen.append(view))
    start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="Oklahoma")
    expect(page.locator(".match-meta")).to_contain_text("Oklahoma")
    first = seen[0]["hand"]
    assert first["knock_limit"] in range(11) and first["multiplier"] in (1, 2)
    if seen[-1]["hand_number"] == 1:  # (the computer may end hand 1 at once: then nothing to check)
        bar = page.locator(".scorebar")
        if first["knock_limit"] == 0:
            expect(bar).to_contain_text("Gin only this hand")
        elif first["knock_limit"] < 10:
            expect(bar).to_contain_text(f"Knock with {first['knock_limit']} or less this hand")
        if first["multiplier"] == 2:
            expect(bar).to_contain_text("This hand scores double")
