"""A tap on a card counts for the card it began on, even when the table changes under the pointer
before it lifts: a new state from the server redraws the hand (its buttons are new elements), or
the card just drawn is still sliding in from the stock. With a mouse the browser sends its click
only when the press and the release land on the same element, so either used to lose the click
(seen in a whole-match test: the card just drawn, clicked, never selected); a finger's tap was
taken where it lifted. Now the table takes a press at its release, and the click after it is
not taken twice"""

from __future__ import annotations

import copy

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .scripted import knock_chance_view, open_scripted, view
from .table import not_busy

pytestmark = pytest.mark.browser


def card(page, code: str):
    return page.locator(f'button.hand-card[data-card="{code}"]')


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def discard_phase(page, site):
    # The second view answers the first action (the fake server moves on at each act).
    script = open_scripted(page, site, knock_chance_view(), view())
    expect(card(page, "As")).to_have_attribute("aria-pressed", "false")
    return script


def redraw_while_pressed(page, script) -> None:
    """Send the same position again as a newer state, and wait until the hand is redrawn."""
    page.evaluate("() => document.querySelectorAll('button.hand-card').forEach((b) => (b.dataset.old = '1'))")
    again = copy.deepcopy(script.views[script.at])
    again["players"][1]["connected"] = False  # something changed: the opponent's connection
    script.push(again)
    expect(page.locator("button.hand-card[data-old]")).to_have_count(0)


class Finger:
    """A finger on a phone's screen, as real touch events (Chromium makes the pointer events and
    the click a browser makes of a tap)."""

    def __init__(self, page) -> None:
        self.cdp = page.context.new_cdp_session(page)

    def down(self, x: float, y: float) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})

    def up(self) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_tap_survives_a_new_state_between_press_and_release(site, new_page, size):
    page = new_page(**(DESKTOP if size == "desktop" else PHONE))
    script = discard_phase(page, site)
    x, y = centre(card(page, "As"))
    if size == "phone":
        finger = Finger(page)
        finger.down(x, y)
        redraw_while_pressed(page, script)
        finger.up()
    else:
        page.mouse.move(x, y)
        page.mouse.down()
        redraw_while_pressed(page, script)
        page.mouse.up()
    expect(card(page, "As")).to_have_attribute("aria-pressed", "true")
    # One tap, one selection: a click the browser may still send does not undo it.
    page.wait_for_timeout(200)
    expect(card(page, "As")).to_have_attribute("aria-pressed", "true")
    assert script.acts() == []


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_tap_selects_a_card_once_and_a_second_tap_discards_it_once(site, new_page, size):
    page = new_page(**(DESKTOP if size == "desktop" else PHONE))
    script = discard_phase(page, site)

    def tap() -> None:
        x, y = centre(card(page, "Kd"))
        if size == "phone":
            finger = Finger(page)
            finger.down(x, y)
            finger.up()
        else:
            page.mouse.click(x, y)

    tap()
    page.wait_for_timeout(200)  # time for the click after the release, were it taken as a second tap
    expect(card(page, "Kd")).to_have_attribute("aria-pressed", "true")
    tap()
    not_busy(page)
    expect(card(page, "Kd")).to_have_count(0)
    assert script.acts() == [{"kind": "discard", "card": "Kd"}]


def test_a_card_that_moves_away_under_the_pointer_is_still_the_one_tapped(site, new_page):
    page = new_page(**DESKTOP)
    discard_phase(page, site)
    x, y = centre(card(page, "As"))
    page.mouse.move(x, y)
    page.mouse.down()
    # As the card just drawn does while it slides in: by the release, another card is under it.
    page.evaluate(
        """() => document.querySelector('button.hand-card[data-card="As"]')
            .animate([{transform: 'translateY(-300px)'}, {transform: 'translateY(-300px)'}], {duration: 5000})"""
    )
    page.mouse.up()
    expect(card(page, "As")).to_have_attribute("aria-pressed", "true")


def test_the_keyboard_still_selects_a_card(site, new_page):
    page = new_page(**DESKTOP)
    discard_phase(page, site)
    card(page, "As").focus()
    page.keyboard.press("Enter")
    expect(card(page, "As")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(card(page, "As")).to_have_attribute("aria-pressed", "false")
