"""Cards answer to the gestures the guides describe: drag a card onto the discard pile to
discard it, drag cards into your own order with a mouse or a finger, and do all of it from the
keyboard with a visible focus."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import hand_cards, hand_labels, not_busy, shot, start_vs_computer
from .test_resume import reach_my_discard

pytestmark = pytest.mark.browser


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def settled(page) -> None:
    """Wait until no card is moving: a card measured in flight (the one just drawn, on its way
    from the stock) is somewhere else by the time the pointer goes down, and the drag becomes a
    text selection across the table (seen in whole-suite runs, where pages animate slowly)."""
    # Polled from here: wait_for_function evaluates a string, which the page's CSP forbids.
    for _ in range(100):
        if page.evaluate("() => document.getAnimations().every((a) => a.playState !== 'running')"):
            return
        page.wait_for_timeout(50)
    pytest.fail("cards still moving after 5 s")


def mouse_drag(page, source, target) -> None:
    settled(page)
    x0, y0 = centre(source)
    x1, y1 = centre(target)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + (x1 - x0) / 4, y0 + (y1 - y0) / 4, steps=4)
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()


def touch_drag(page, source, target) -> None:
    """A finger drag, sent as real touch events (Chromium turns them into pointer events)."""
    cdp = page.context.new_cdp_session(page)
    settled(page)
    x0, y0 = centre(source)
    x1, y1 = centre(target)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 11):
        x, y = x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def name(label: str) -> str:
    return label.split(",")[0]


def test_dragging_a_card_onto_the_discard_pile_discards_it(server, new_page):
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    reach_my_discard(page, server)
    card = hand_cards(page).last
    thrown = name(card.get_attribute("aria-label"))
    mouse_drag(page, card, page.get_by_role("button", name=re.compile(r"^Discard pile")))
    not_busy(page)
    short = page.get_by_role("listitem").filter(has_text=re.compile(r"^You discarded "))
    ended = page.get_by_role("dialog")  # the computer knocked at once in reply (a random deal)
    expect(short.or_(ended)).not_to_have_count(0, timeout=15000)  # slow under the whole suite
    if not ended.count():
        expect(hand_cards(page)).to_have_count(10)
        assert thrown not in [name(label) for label in hand_labels(page)]
        expect(short).to_have_count(1)


def test_dragging_cards_with_the_mouse_puts_them_in_your_own_order(server, new_page):
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    # Once the computer is done: a new state could move the hand between measuring and dragging.
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    before = [name(label) for label in hand_labels(page)]
    mouse_drag(page, hand_cards(page).first, hand_cards(page).nth(4))
    after = [name(label) for label in hand_labels(page)]
    assert sorted(after) == sorted(before) and after != before
    assert after.index(before[0]) in (3, 4), (before, after)
    # No sort button is pressed any more: the hand is in the player's own order.
    for sort in ("Sort by melds", "Sort by rank", "Sort by suit"):
        expect(page.get_by_role("button", name=sort)).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_text("your order")).to_be_visible()
    # The order survives a reload.
    page.reload()
    expect(hand_cards(page)).to_have_count(len(before))
    assert [name(label) for label in hand_labels(page)] == after


def test_dragging_a_card_with_a_finger_reorders_the_hand_on_a_phone(server, new_page):
    page = new_page(**PHONE)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    # Once the computer is done: a new state could move the hand between measuring and dragging.
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    before = [name(label) for label in hand_labels(page)]
    touch_drag(page, hand_cards(page).first, hand_cards(page).nth(2))
    after = [name(label) for label in hand_labels(page)]
    assert sorted(after) == sorted(before) and after.index(before[0]) in (1, 2), (before, after)
    shot(page, "phone-own-order")


def test_the_whole_turn_can_be_played_from_the_keyboard(server, new_page):
    for _ in range(5):  # the deal is random: once in a while the computer knocks at its first turn
        # A fresh browser each time: a player who has played already is not asked for a name.
        page = new_page(**DESKTOP)
        status = page.locator("#status-line")
        start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
        expect(status).to_contain_text("Your turn")
        if "take the upcard or pass" in status.inner_text():
            page.get_by_role("button", name="Pass", exact=True).focus()
            page.keyboard.press("Enter")
            not_busy(page)
        try:
            expect(status).to_contain_text("Your turn: draw", timeout=5000)
            break
        except AssertionError:
            continue  # the hand is over before our first draw: a new match
    else:
        pytest.fail("five deals in a row ended before our first draw")
    stock = page.get_by_role("button", name=re.compile(r"^Stock"))
    # Tab reaches the stock; its focus ring is visible.
    for _ in range(40):
        page.keyboard.press("Tab")
        if stock.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("Tab never reached the Stock button")
    assert stock.evaluate("el => getComputedStyle(el).outlineStyle") != "none"
    page.keyboard.press("Enter")
    expect(status).to_contain_text("Your turn: discard")
    # The focus follows the card just drawn into the hand.
    expect(page.locator(":focus")).to_have_attribute("aria-label", re.compile(r", just drawn$"))

    first = hand_cards(page).first
    first.focus()
    page.keyboard.press("End")
    last = hand_cards(page).last
    expect(last).to_be_focused()
    assert last.evaluate("el => getComputedStyle(el).outlineStyle") != "none"
    # Shift+Left moves the focused card one place left; the focus follows it.
    moved = name(last.get_attribute("aria-label"))
    page.keyboard.press("Shift+ArrowLeft")
    labels = [name(label) for label in hand_labels(page)]
    assert labels.index(moved) == len(labels) - 2
    page.keyboard.press("Enter")
    focused = page.locator(":focus")
    expect(focused).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    not_busy(page)
    expect(hand_cards(page)).to_have_count(10)
    assert moved not in [name(label) for label in hand_labels(page)]
