"""An unfinished match survives a page reload and a lost connection: the table comes back with
the same cards and the same turn, and a visible indicator says when it is reconnecting."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.live_server import free_port, live_server

from .conftest import DESKTOP, PHONE
from .table import hand_cards, hand_labels, not_busy, shot, start_vs_computer, status_line

pytestmark = pytest.mark.browser

STOCK = re.compile(r"^Stock, \d+ cards$")


def reach_my_discard(page, base_url: str) -> str:
    """Pass on the upcard if offered and draw from the stock: the middle of a turn. The deal is
    random: when the computer ends the hand before our first draw (it knocks at its first
    turn, now and then), a new match against it; returns the match id of the table reached."""
    status = status_line(page)
    for _ in range(5):
        expect(status).to_contain_text("Your turn")
        if "take the upcard or pass" in status.inner_text():
            page.get_by_role("button", name="Pass", exact=True).click()
            not_busy(page)
        try:
            expect(status).to_contain_text("Your turn: draw", timeout=5000)
            break
        except AssertionError:
            start_vs_computer(page, base_url, name="Ada", difficulty="Normal", rules="House rules")
    else:
        pytest.fail("five deals in a row ended before our first draw")
    page.get_by_role("button", name=STOCK).click()
    expect(status).to_contain_text("Your turn: discard")
    return page.url.rsplit("/", 1)[-1]


def table_snapshot(page) -> dict:
    return {
        # "just drawn" marks the card that came in this session; a reload forgets that mark.
        "hand": [label.replace(", just drawn", "") for label in hand_labels(page)],
        "stock": page.get_by_role("button", name=STOCK).get_attribute("aria-label"),
        "pile": page.get_by_role("button", name=re.compile(r"^Discard pile")).get_attribute("aria-label"),
        "status": status_line(page).inner_text(),
        "scores": page.locator(".scores").inner_text(),
    }


def test_a_reload_in_the_middle_of_a_hand_resumes_it_with_the_same_cards_and_turn(server, new_page):
    page = new_page(**PHONE)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    match_id = reach_my_discard(page, server)
    # The player's own order (sort by suit) is part of what should come back.
    page.get_by_role("button", name="Sort by suit").tap()
    before = table_snapshot(page)
    assert len(before["hand"]) == 11

    page.reload()

    expect(page).to_have_url(re.compile(f"#/play/{match_id}$"))
    expect(status_line(page)).to_contain_text("Your turn: discard")
    expect(hand_cards(page)).to_have_count(11)
    assert table_snapshot(page) == before
    expect(page.get_by_role("button", name="Sort by suit")).to_have_attribute("aria-pressed", "true")
    shot(page, "reload-resumed")

    # And the hand goes on from there.
    card = hand_cards(page).last
    card.tap()
    card.tap()
    not_busy(page)
    expect(hand_cards(page)).to_have_count(10)


def test_opening_the_start_page_again_offers_the_match_in_progress(server, new_page):
    page = new_page(**DESKTOP)
    match_id = start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="House rules")
    page.goto(server + "/")
    page.get_by_role("link", name="Back to your match").click()
    expect(page).to_have_url(re.compile(f"#/play/{match_id}$"))
    expect(status_line(page)).not_to_be_empty()


def test_a_lost_connection_shows_reconnecting_and_resumes_the_match(tmp_path, new_page, console):
    # Chromium itself reports each refused reconnection attempt while the server is down.
    console.allow(r"WebSocket connection to '.*' failed")
    port = free_port()
    page = new_page(**DESKTOP)
    with live_server(tmp_path, port=port) as base_url:
        start_vs_computer(page, base_url, name="Ada", difficulty="Normal", rules="House rules")
        reach_my_discard(page, base_url)
        before = table_snapshot(page)
    # The server is gone: the table says so, visibly and to screen readers (role=status).
    banner = page.get_by_role("status").filter(has_text=re.compile("reconnecting", re.I))
    expect(banner.first).to_be_visible()
    shot(page, "connection-lost")
    with live_server(tmp_path, port=port):
        expect(page.get_by_text("Connection lost: reconnecting")).to_be_hidden(timeout=20_000)
        expect(status_line(page)).to_contain_text("Your turn: discard")
        assert table_snapshot(page) == before
        card = hand_cards(page).last
        card.click()
        card.click()
        not_busy(page)
        expect(hand_cards(page)).to_have_count(10)
