"""The table explains itself: cards are labelled buttons, melded cards say so, the computer's
moves are announced, a card just taken from the discard pile cannot be thrown back, and the
rules page is one tap away."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.live_server import live_server

from .conftest import DESKTOP, PHONE
from .table import hand_cards, hand_labels, knock_button, menu_link, not_busy, start_vs_computer, status_line

pytestmark = pytest.mark.browser

CARD_LABEL = re.compile(
    r"^(ace|[2-9]|10|jack|queen|king) of (clubs|diamonds|hearts|spades)"
    r"(, melded)?(, just drawn)?(, cannot be discarded this turn)?$"
)


def test_every_card_is_a_labelled_button_and_melded_cards_say_so(server, new_page):
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    labels = hand_labels(page)
    assert len(labels) == 10
    assert all(CARD_LABEL.match(label) for label in labels), labels
    # Melded cards (and only they) carry the underline, and the hand shows its deadwood.
    for card in hand_cards(page).all():
        melded = ", melded" in card.get_attribute("aria-label")
        underline = card.evaluate("el => getComputedStyle(el, '::after').content")
        assert (underline not in ("none", "normal")) == melded
    expect(page.get_by_text(re.compile(r"^Deadwood \d+$"))).to_be_visible()
    # In melds order the deadwood sits on the right: no melded card after an unmatched one.
    flags = [", melded" in label for label in labels]
    assert flags == sorted(flags, reverse=True)


def test_the_computers_moves_are_shown_and_announced(server, new_page):
    # In about one deal in forty the computer's first turn ends the hand (it knocks at once), so
    # it shows no discard: deal again then (a new browser, a new player).
    for _ in range(5):
        page = new_page(**DESKTOP)
        status = status_line(page)
        my_draw = page.locator("#status-line", has_text="Your turn: draw")
        hand_over = page.get_by_role("button", name="Next hand")
        start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
        expect(status).to_contain_text("Your turn")
        if "take the upcard or pass" in status.inner_text():
            page.get_by_role("button", name="Pass", exact=True).click()
            not_busy(page)
        expect(my_draw.or_(hand_over).first).to_be_visible()
        if hand_over.is_visible():
            continue
        page.get_by_role("button", name=re.compile(r"^Stock")).click()
        # The drawn card must be in the hand before picking the last card (it may become the last).
        expect(status).to_contain_text("Your turn: discard")
        card = hand_cards(page).last
        card.click()
        card.click()
        # The computer draws and discards; its turn is described on the table and read out.
        expect(my_draw.or_(hand_over).first).to_be_visible()
        if not hand_over.is_visible():
            break
    else:
        pytest.fail("the computer ended five hands in a row on its first turn")
    theirs = page.get_by_role("listitem").filter(has_text=re.compile(r"^Computer \(Normal\) discarded "))
    expect(theirs.first).to_be_visible()
    expect(page.locator(".last-move").first).to_contain_text(
        re.compile(r"discarded (10|[2-9AJQK])[\u2660\u2665\u2666\u2663]")
    )
    live = page.locator("#announcer[aria-live=polite]")
    expect(live).to_contain_text(
        re.compile(r"Computer \(Normal\) (drew .*|discarded .* of (clubs|diamonds|hearts|spades))")
    )
    expect(live).to_contain_text("Your turn")


def test_a_card_just_taken_from_the_discard_pile_cannot_be_thrown_back(tmp_path, new_page, console):
    # This test's own server stops before the page is closed, and the page tries to reconnect.
    console.allow(r"WebSocket connection to .* failed: .*ERR_CONNECTION_REFUSED")
    # The computer pauses a second before each move here: the hand read after our discard is then
    # still this hand (with no pause it may already have drawn and knocked, and a new hand dealt).
    with live_server(tmp_path, extra_env={"GINRUMMY_BOT_DELAY": "1"}) as server:
        page = new_page(**PHONE)
        start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="House rules")
        status = status_line(page)
        pile = page.get_by_role("button", name=re.compile(r"^Discard pile"))
        for _ in range(10):
            expect(status).to_contain_text("Your turn")
            text = status.inner_text()
            top = re.search(r"top card (.+)$", pile.get_attribute("aria-label")).group(1)
            if "take the upcard or pass" in text:
                page.get_by_role("button", name="Take", exact=True).tap()
                break
            if "draw from the stock or the discard pile" in text:
                pile.tap()
                break
            # Both passed: the stock it is; discard and wait for the next turn.
            page.get_by_role("button", name=re.compile(r"^Stock")).tap()
            expect(status).to_contain_text("Your turn: discard")  # the drawn card is in the hand
            hand_cards(page).last.tap()
            hand_cards(page).last.tap()
            not_busy(page)
        else:
            pytest.fail("never had the chance to take from the discard pile")
        not_busy(page)
        expect(status).to_contain_text("Your turn: discard")
        taken = page.get_by_role(
            "button",
            name=re.compile(f"^{re.escape(top)}(, melded)?, just drawn, cannot be discarded this turn$"),
        )
        expect(taken).to_have_count(1)
        taken.tap()
        expect(page.locator("#hand-hint")).to_contain_text("just taken from the discard pile")
        # No button names the illegal move: Discard stays unnamed and disabled, and Knock / Gin
        # never offers the card just taken.
        expect(knock_button(page)).not_to_have_accessible_name(re.compile(re.escape(top)))
        expect(page.get_by_role("button", name="Discard the selected card")).to_be_disabled()
        expect(page.get_by_role("button", name="Discard the selected card")).to_have_text("Discard")
        # Tapping it again does not throw it back: the player is told why instead.
        taken.tap()
        expect(page.get_by_role("status").filter(has_text="discard a different card")).to_be_visible()
        expect(hand_cards(page)).to_have_count(11)
        hand = page.get_by_role("group", name=re.compile("^Your hand"))
        other = hand.get_by_role("button", name=re.compile(r"^(?!.*cannot be discarded)")).first
        other.tap()
        other.tap()
        not_busy(page)
        expect(hand_cards(page)).to_have_count(10)
        assert any(top == label.split(",")[0] for label in hand_labels(page))


def test_the_rules_page_explains_the_game_and_the_computer(server, new_page):
    page = new_page(**PHONE)
    page.goto(server + "/")
    menu_link(page, "Rules").tap()
    expect(page.get_by_role("heading", name="How to play Gin Rummy", level=1)).to_be_visible()
    for heading in (
        "Melds and deadwood",
        "Knocking and gin",
        "Scoring a hand",
        "Tips for playing the computer",
    ):
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.get_by_text("25 + 8 \u2212 5 = 28")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize("width", [320, 360, 390, 414])
def test_the_start_page_fits_a_phone_without_sideways_scrolling(server, new_page, width):
    # The fan of cards beside the title once stuck out 8 px (41 px at 320): its outer cards'
    # rotation is not counted by the layout.
    page = new_page(viewport={"width": width, "height": 700}, has_touch=True, is_mobile=True)
    page.goto(server + "/")
    expect(page.get_by_role("heading", name="Gin Rummy", level=1)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Everything inside the screen; the places that do not fit in the header are under "More",
    # whose list opens inside the screen too.
    beyond = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter("
        "e => e.getBoundingClientRect().right > window.innerWidth + 0.5)"
        ".map(e => e.className)"
    )
    assert beyond == []
    account = menu_link(page, "Account")
    expect(page.get_by_role("button", name="More")).to_have_attribute("aria-expanded", "true")
    box = account.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    account.tap()
    expect(page.get_by_role("heading", name="Account", level=1)).to_be_visible()
    expect(page.locator("#nav-more-list")).to_be_hidden()  # closed once a place is chosen


def test_the_table_fits_a_360_pixel_phone_with_the_hand_on_more_rows(server, new_page):
    page = new_page(viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True)
    start_vs_computer(page, server, name="Ada", difficulty="Hard", rules="Classic rules")
    # Measure once the computer is done, so no new state redraws the table meanwhile.
    expect(status_line(page)).to_contain_text("Your turn")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    rows = set(
        hand_cards(page).evaluate_all("els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    )
    assert len(rows) >= 2, rows
    for control in (
        page.get_by_role("button", name=re.compile(r"^Stock")),
        page.get_by_role("button", name=re.compile(r"^Discard pile")),
        status_line(page),
    ):
        box = control.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
