"""The "Hand N is over" dialog as a player meets it: a hand that ended while the dialog for the
one before was still open is shown next, not skipped; on a phone the dialog opens at its top,
heading in sight, with Next hand in sight too, at its foot; Hard's note says a knock it would
not make plainly. And the question before resigning reads as one box. The table is fed exact
views (tests/web/scripted.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE
from .scripted import open_scripted, view
from .test_misleads import knock_result

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/table-shots")


def in_viewport(page: Page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_hand_that_ends_while_the_last_ones_dialog_is_open_is_shown_next(site, new_page, device):
    page = new_page(**device)
    script = open_scripted(page, site, view(hand_number=2, scores=[1, 0], last_result=knock_result()))
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading", name="Hand 1 is over")).to_be_visible()
    # While the player reads it, the computer starts hand 2 by knocking at once.
    second = knock_result(winner=1, knocker=1, points=16, breakdown="18 - 2 = 16")
    script.push(view(hand_number=3, scores=[1, 16], last_result=second))
    expect(dialog.get_by_role("heading", name="Hand 1 is over")).to_be_visible()  # not swapped under them
    dialog.get_by_role("button", name="Next hand").click()
    expect(dialog.get_by_role("heading", name="Hand 2 is over")).to_be_visible()
    dialog.get_by_role("button", name="Next hand").click()
    expect(dialog).to_be_hidden()
    # Seen, both: a reload shows neither again.
    page.reload()
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    expect(dialog).to_be_hidden()


def test_on_a_phone_the_dialog_opens_at_its_top_with_next_hand_in_sight(site, new_page):
    page = new_page(**PHONE)
    open_scripted(page, site, view(hand_number=2, scores=[1, 0], last_result=knock_result()))
    dialog = page.get_by_role("dialog")
    heading = dialog.get_by_role("heading", name="Hand 1 is over")
    expect(heading).to_be_visible()
    button = dialog.get_by_role("button", name="Next hand")
    expect(button).to_be_focused()
    assert dialog.evaluate("d => d.scrollHeight > d.clientHeight"), "the dialog fits: nothing to check"
    assert dialog.evaluate("d => d.scrollTop") == 0
    assert in_viewport(page, heading) and in_viewport(page, button)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "result-dialog-390.png"))
    # Scrolled to its end, the last lines are not hidden under the button.
    dialog.evaluate("d => { d.scrollTop = d.scrollHeight; }")
    last = dialog.locator(".running-score")
    assert in_viewport(page, last) and in_viewport(page, button)
    assert last.bounding_box()["y"] + last.bounding_box()["height"] <= button.bounding_box()["y"]


def test_a_knock_hard_would_not_make_reads_as_playing_on(site, new_page):
    knocked = {"kind": "knock", "card": "4s"}
    hand = {
        "number": 1,
        "mistakes": [3],
        "decisions": [
            {
                "step": 3,
                "played": knocked,
                "best": {"kind": "discard", "card": "4s"},
                "loss": 20.3,
                "mistake": True,
                "explanation": "Play on rather than knock: gin is near.",
            }
        ],
    }
    page = new_page(**DESKTOP)
    open_scripted(page, site, view(hand_number=2, scores=[1, 0], last_result=knock_result()), hands=[hand])
    note = page.get_by_role("dialog").locator(".mistake-note")
    # Not "you knock, discarding 4\u2660; Hard would discard 4\u2660", which read as the same move.
    expect(note).to_contain_text(
        "you knock, discarding 4\u2660; Hard would discard 4\u2660 and play on, without knocking (\u221220.3 points)"
    )


def test_the_resign_question_is_one_box_with_both_answers_side_by_side_on_a_phone(site, new_page):
    page = new_page(**PHONE)
    open_scripted(page, site, view())
    page.get_by_role("button", name="Resign\u2026").tap()
    group = page.get_by_role("group", name="Confirm resigning")
    yes, no = (
        group.get_by_role("button", name="Yes, resign"),
        group.get_by_role("button", name="Keep playing"),
    )
    expect(yes).to_be_visible()
    box, a, b = group.bounding_box(), yes.bounding_box(), no.bounding_box()
    assert a["y"] == b["y"], "the answers sit on one line"
    for inner in (a, b):  # inside the box's border, not loose on the page
        assert box["x"] < inner["x"] and inner["x"] + inner["width"] < box["x"] + box["width"]
    assert group.evaluate("g => getComputedStyle(g).borderTopStyle") == "solid"
    group.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "resign-confirm-390.png"))
    no.tap()
    expect(page.get_by_role("button", name="Resign\u2026")).to_be_visible()


def test_no_card_is_still_moving_behind_the_result_dialog(site, new_page):
    page = new_page(**DESKTOP)
    script = open_scripted(page, site, view())
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    # The hand ends (the opponent knocked): the next hand is dealt under the dialog.
    script.push(view(hand_number=2, scores=[0, 16], last_result=knock_result(winner=1, knocker=1, points=16)))
    expect(page.get_by_role("dialog").get_by_role("heading", name="Hand 1 is over")).to_be_visible()
    running = page.evaluate("document.getAnimations().filter((a) => a.playState === 'running').length")
    assert running == 0
