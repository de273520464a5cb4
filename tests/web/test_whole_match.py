"""A person's whole match against the computer, played by tapping on a phone and by clicking on
a desktop, through the real server: every hand ends with its score worked out, and the match
ends with the scoreboard."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import SCORE_LINE, hand_cards, play_until_match_over, shot, start_vs_computer

pytestmark = pytest.mark.browser


def final_totals(page) -> list[int]:
    row = page.get_by_role("row", name=re.compile(r"^Total"))
    return [int(c) for c in row.get_by_role("cell").all_inner_texts()]


def test_a_whole_house_match_against_the_computer_tapped_on_a_phone(server, new_page, console):
    # As on the desktop below: quickly tapped hands can ask for more than the 10 analyses a
    # minute a player is allowed (each hand's biggest mistake); Chromium reports each 429.
    console.allow(r"status of 429 \(Too Many Requests\)")
    # This phone asks for reduced motion (the desktop match below plays with the cards moving).
    page = new_page(**PHONE, reduced_motion="reduce")
    start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="House rules")
    shot(page, "phone-table")
    # The hand wraps onto more rows on a narrow screen: its cards sit on at least two lines.
    expect(page.locator("#status-line")).to_contain_text("Your turn")
    tops = set(
        hand_cards(page).evaluate_all("els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    )
    assert len(tops) >= 2, tops
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the table is wider than the phone"

    play = play_until_match_over(page, touch=True, seconds=300, shots="phone")

    assert play.results, "no hand ended on the way to the end of the match"
    assert all(SCORE_LINE.match(r) for r in play.results)
    expect(page.get_by_role("heading", name="Match over")).to_be_visible()
    totals = final_totals(page)
    assert max(totals) >= 100, totals
    # House rules: no bonus rows, the total is the points.
    expect(page.get_by_role("row", name=re.compile("Box bonus"))).to_have_count(0)
    over = page.get_by_role("region", name="Match over")
    expect(
        over.get_by_text(re.compile(r"^(You win the match!|You lost: Computer \(Easy\) wins the match\.)$"))
    ).to_be_visible()
    shot(page, "phone-match-over")


def test_a_whole_classic_match_against_the_computer_clicked_on_a_desktop(server, new_page, console):
    # Hands played at a click's pace can ask for more than the 10 analyses a minute a player is
    # allowed (the result dialog's biggest mistake); Chromium reports each 429 as a console error.
    console.allow(r"status of 429 \(Too Many Requests\)")
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Grace", difficulty="Normal", rules="Classic rules")
    expect(page.get_by_text("Classic rules")).to_be_visible()
    shot(page, "desktop-table")

    play = play_until_match_over(page, touch=False, seconds=300, shots="desktop")

    assert play.results, "no hand ended on the way to the end of the match"
    expect(page.get_by_role("heading", name="Match over")).to_be_visible()
    # Classic: the scoreboard adds the box bonus (25 a hand won) and the game bonus.
    box = page.get_by_role("row", name=re.compile(r"^Box bonus"))
    game = page.get_by_role("row", name=re.compile(r"^Game bonus"))
    expect(box).to_be_visible()
    expect(game).to_be_visible()
    points = [
        int(c)
        for c in page.get_by_role("row", name=re.compile(r"^Points")).get_by_role("cell").all_inner_texts()
    ]
    boxes = [int(c) for c in box.get_by_role("cell").all_inner_texts()]
    games = [int(c) for c in game.get_by_role("cell").all_inner_texts()]
    totals = final_totals(page)
    assert totals == [p + b + g for p, b, g in zip(points, boxes, games)]
    assert max(points) >= 100 and sorted(games) in ([0, 100], [0, 200])
    assert all(b % 25 == 0 for b in boxes) and sum(boxes) > 0
    shot(page, "desktop-match-over")
