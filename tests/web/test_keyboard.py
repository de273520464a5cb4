"""A whole hand played with the keyboard only, against the real server: the shortcuts (S, P,
the position keys, D, K) and Enter for the result dialog; no mouse, no touch."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .scripted import knock_chance_view, open_scripted, view
from .table import hand_cards, not_busy, shot, start_vs_computer, status_line

pytestmark = pytest.mark.browser


def test_a_hand_played_with_the_keyboard_only(server, new_page):
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Kay", difficulty="Easy", rules="House rules")
    status = status_line(page)
    next_hand = page.get_by_role("button", name="Next hand")
    knock = page.get_by_role("button", name=re.compile(r"^(Knock|Gin)\b"))
    deadline = time.monotonic() + 150
    moves = 0
    while not next_hand.is_visible():
        assert time.monotonic() < deadline, f"still playing after {moves} moves: {status.inner_text()}"
        text = status.inner_text()
        if "take the upcard or pass" in text:
            page.keyboard.press("p")
        elif "Your turn: draw" in text:
            page.keyboard.press("s")
        elif "Your turn: discard" in text:
            if knock.is_enabled():
                page.keyboard.press("k")  # selects the best card for it
                expect(page.locator("#hand-hint")).to_contain_text(re.compile(r"you can (knock|go gin)"))
                page.keyboard.press("k")
            else:
                labels = hand_cards(page).evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
                index = max(i for i, label in enumerate(labels) if "cannot be discarded" not in label)
                page.keyboard.press("0-"[index - 9] if index >= 9 else str(index + 1))
                expect(hand_cards(page).nth(index)).to_have_attribute("aria-pressed", "true")
                page.keyboard.press("d")
        else:
            page.wait_for_timeout(40)
            continue
        moves += 1
        not_busy(page)
    expect(next_hand).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(page.locator("#status-line")).not_to_be_empty()
    assert moves >= 2


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_table_says_where_its_shortcuts_are_and_lists_them_on_a_question_mark(site, new_page, device):
    page = new_page(**device)
    script = open_scripted(page, site, view(), knock_chance_view())
    note = page.get_by_text("Press ? for keyboard shortcuts")
    if device is PHONE:
        expect(note).to_be_hidden()  # a touch screen: nothing to press
    else:
        expect(note).to_be_visible()
    # Each button with a shortcut names it to assistive technology.
    expect(page.get_by_role("button", name=re.compile("^Stock"))).to_have_attribute("aria-keyshortcuts", "S")
    expect(page.get_by_role("button", name="Sort by rank")).to_have_attribute("aria-keyshortcuts", "R")
    stock = page.get_by_role("button", name=re.compile("^Stock"))
    stock.focus()
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog.locator("dt")).to_have_count(8)
    expect(dialog).to_contain_text("draw from the stock")
    shot(page, f"shortcuts-{device['viewport']['width']}")
    page.keyboard.press("s")  # not a move while the list is open
    assert script.acts() == []
    page.get_by_role("button", name="Back to the table").click()
    expect(dialog).to_have_count(0)
    expect(stock).to_be_focused()
    page.keyboard.press("s")
    expect(page.locator("#hand-hint")).to_contain_text("You can knock")  # the next view came
    assert script.acts() == [{"kind": "draw", "source": "stock"}]
    # Open, then leave the table (the browser's Back): the list does not stay over the next page.
    page.keyboard.press("?")
    expect(dialog).to_be_visible()
    page.evaluate("location.hash = '#/rules'")
    expect(page.get_by_role("heading", name="How to play", exact=False).first).to_be_visible()
    expect(page.locator("dialog.shortcuts-dialog")).to_have_count(0)
