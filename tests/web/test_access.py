"""What an accessibility audit found, each shown fixed: focus kept in the hand after Pass (it
fell to <body>), the phone's header within the screen at a larger text size, a new hand's
result read out once, the live Knock button's contrast, and the analysis list's focus ring.
The table is fed exact views (tests/web/scripted.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .scripted import knock_chance_view, open_scripted, view
from .test_misleads import knock_result

pytestmark = pytest.mark.browser

CONTRAST = """el => {
  const rgb = s => s.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = c => {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const style = getComputedStyle(el);
  const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_after_pass_the_focus_stays_in_the_hand(site, new_page, device):
    offer = view(
        status_line="Your turn: take the upcard or pass",
        hand={"phase": "upcard", "legal_actions": [{"kind": "take_upcard"}, {"kind": "pass"}]},
    )
    theirs = view(
        status_line="Computer (Easy) is playing",
        hand={
            "phase": "upcard",
            "to_act": 1,
            "legal_actions": [],
            "history": [{"seat": 0, "kind": "pass"}],
        },
    )
    page = new_page(**device)
    script = open_scripted(page, site, offer, theirs)
    passing = page.get_by_role("button", name="Pass", exact=True)
    passing.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#status-line")).to_contain_text("Computer (Easy) is playing")
    assert script.acts() == [{"kind": "pass"}]
    # Not <body>, where a keyboard or screen reader user loses their place: a card of the hand.
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('button.card')")


def test_a_new_hands_result_is_read_out_once(site, new_page):
    page = new_page(**DESKTOP)
    script = open_scripted(page, site, view())
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    result = knock_result(winner=1, knocker=1, points=16, breakdown="18 - 2 = 16")
    script.push(
        view(
            hand_number=2,
            scores=[0, 16],
            last_result=result,
            status_line="Computer (Easy) knocked: Computer (Easy) scores 16 (18 - 2 = 16). "
            "Your turn: take the upcard or pass",
            hand={"phase": "upcard", "legal_actions": [{"kind": "take_upcard"}, {"kind": "pass"}]},
        )
    )
    announcer = page.locator("#announcer")
    expect(announcer).to_contain_text("Hand 2 is dealt.")
    # The server's ASCII formula, typeset as the page prints its own numbers.
    expect(page.locator("#status-line")).to_contain_text("(18 \u2212 2 = 16)")
    said = announcer.inner_text()
    assert said.count("scores") == 1, said  # the result once, not again from the status line
    assert "knocked:" not in said and said.endswith("Your turn: take the upcard or pass"), said


def test_the_phones_header_stays_within_the_screen_with_larger_text(site, new_page):
    page = new_page(**PHONE)
    page.goto(site + "/#/rules")
    # A person's larger default text (the page's CSP allows no style tag; the CSSOM is fine).
    page.evaluate("document.documentElement.style.fontSize = '24px'")
    more = page.get_by_role("button", name=re.compile("^More"))
    expect(more).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = more.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390


def test_the_live_knock_button_and_the_analysis_focus_ring_are_easy_to_see(site, new_page):
    page = new_page(**DESKTOP)
    open_scripted(page, site, knock_chance_view())
    knock = page.locator(".btn.knock.live")
    expect(knock).to_be_visible()
    assert knock.evaluate(CONTRAST) >= 4.5  # white on #e53935 was 4.2:1
    # The analysis list's links get the ring every control has (a 2 px dark blue one vanished).
    page.evaluate(
        """() => {
          const list = document.createElement("ol");
          list.className = "decision-list";
          list.innerHTML = '<li><button class="linklike" type="button">a decision</button></li>';
          document.querySelector("main").prepend(list);
        }"""
    )
    page.locator(".decision-list .linklike").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focused by the keyboard: :focus-visible
    ring = page.locator(".decision-list .linklike").evaluate(
        "el => [getComputedStyle(el).outlineWidth, getComputedStyle(el).outlineColor]"
    )
    assert ring == ["3px", "rgb(255, 241, 118)"], ring
