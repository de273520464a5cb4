"""No layout shift while a player selects cards (issue 16: "CLS 0 during a hand"): every
layout-shift entry the page's PerformanceObserver sees while cards are tapped and re-tapped,
even those just after the tap (which CLS itself forgives), adds up to 0, on a small phone, a
phone and a computer. Not a timing test: it counts shifts, it does not time anything. The
figures, first paint included, come from ``python -m server.bench paint``."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from server.bench.paint import SHIFTS

from .conftest import DESKTOP, PHONE
from .scripted import knock_chance_view, open_scripted

pytestmark = pytest.mark.browser

SMALL_PHONE = {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize("screen", [SMALL_PHONE, PHONE, DESKTOP], ids=["320x640", "390x844", "1280x800"])
def test_selecting_cards_shifts_nothing_on_the_page(site, new_page, screen):
    page = new_page(**screen)
    page.add_init_script(SHIFTS)
    open_scripted(page, site, knock_chance_view())
    cards = page.locator("button.hand-card")
    expect(cards).to_have_count(11)
    page.wait_for_timeout(400)  # the deal's motion is over
    mark = page.evaluate("performance.now()")
    touch = bool(screen.get("has_touch"))
    for i in (0, 10, 4, 9, 1):  # select one card, then another, and another...
        card = cards.nth(i)
        card.tap() if touch else card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(page.locator("button.hand-card[aria-pressed='true']")).to_have_count(1)
    page.wait_for_timeout(300)  # a shift is reported after the frame it happened in
    shifts = page.evaluate("m => window.__shifts.filter(e => e.at >= m)", mark)
    assert sum(e["value"] for e in shifts) == 0, shifts
