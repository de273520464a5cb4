"""A hand wrapped onto two rows on a phone: a selected card, raised with its ring, stays clear
of the meld bars under the row above (it covered them when the rows were closer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import PHONE
from .scripted import knock_chance_view, open_scripted
from .table import hand_cards

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/table-shots")

# Each card's box and, when melded, where its bar (its ::after) ends below it; the selected
# card's top with its 3 px ring.
MEASURE = """els => els.map(el => {
  const r = el.getBoundingClientRect();
  const bar = getComputedStyle(el, "::after");
  const barBottom = bar.content === "none" ? null : r.bottom - parseFloat(bar.bottom);
  return {top: r.top, bottom: r.bottom, barBottom, selected: el.classList.contains("selected")};
})"""


def test_a_selected_card_in_the_second_row_clears_the_meld_bars_above(site, new_page):
    page = new_page(**PHONE, reduced_motion="reduce")  # raised at once: no transition to wait out
    open_scripted(page, site, knock_chance_view())
    cards = hand_cards(page)
    expect(cards).to_have_count(11)
    tops = cards.evaluate_all("els => els.map(el => el.getBoundingClientRect().top)")
    first_row_top = min(tops)
    second = [i for i, top in enumerate(tops) if top > first_row_top + 10]
    assert second, "the hand fits on one row here: nothing to check"
    cards.nth(second[0]).tap()
    expect(cards.nth(second[0])).to_have_class(re.compile(r"\bselected\b"))
    boxes = cards.evaluate_all(MEASURE)
    bars = [b["barBottom"] for i, b in enumerate(boxes) if i not in second and b["barBottom"] is not None]
    assert bars, "no melded card in the first row"
    [chosen] = [b for b in boxes if b["selected"]]
    assert chosen["top"] - 3 >= max(bars), (chosen["top"], max(bars))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "hand-rows-390.png"))
