"""History: the player's finished matches, each hand's result, and a replay that steps through
the match card by card from the server's record."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP
from .table import hand_labels, play_until, shot, start_vs_computer, status_line

pytestmark = pytest.mark.browser


def card_names(labels: list[str]) -> set[str]:
    return {label.split(",")[0] for label in labels}


def test_a_finished_match_is_in_the_history_and_replays_card_by_card(server, new_page):
    page = new_page(**DESKTOP)
    start_vs_computer(page, server, name="Ada", difficulty="Normal", rules="House rules")
    expect(status_line(page)).to_contain_text("Your turn")
    dealt = card_names(hand_labels(page))
    assert len(dealt) == 10

    # Play the first hand to its end, then resign the match.
    play = play_until(page, lambda p: p.results, touch=False, seconds=120)
    first_score = play.results[0].removeprefix("Hand 1: ")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.get_by_role("heading", name="Match over")).to_be_visible()
    expect(page.get_by_text("You resigned.")).to_be_visible()

    # The history lists it; its hands page shows hand 1's result.
    page.get_by_role("link", name="History", exact=True).first.click()
    expect(page.get_by_role("heading", name="Your finished matches")).to_be_visible()
    expect(page.get_by_text("1 finished match")).to_be_visible()
    expect(page.get_by_text(re.compile(r"You lost \d+\u2013\d+ \(you resigned\)"))).to_be_visible()
    # Each date says which it is: the list's when the match ended, the hands page's when it began.
    expect(page.get_by_text(re.compile(r"\u00b7 ended "))).to_be_visible()
    expect(page.get_by_role("button", name="Show more")).to_be_hidden()  # nothing more to show
    shot(page, "history-list")
    page.get_by_role("link", name=re.compile("^Hands of the match")).click()
    expect(page.get_by_text(re.compile(r"^Hand 1: "))).to_be_visible()
    expect(page.locator(".lede")).to_contain_text("\u00b7 started ")
    page.get_by_text(re.compile(r"^Hand 1: ")).click()
    expect(page.locator(".result .score-line").first).to_have_text(first_score)

    # The replay starts from the deal: the same ten cards the player was dealt.
    page.get_by_role("link", name="Replay this match").click()
    # Hand 2, cut short by the resignation, keeps its hidden cards hidden: it is not replayed.
    expect(page.get_by_text(re.compile(r"^Hand 1 of 1 \u00b7 move 0 of \d+"))).to_be_visible()
    expect(page.locator(".replay-unfinished")).to_contain_text("left unfinished")
    mine = page.get_by_role("group", name=re.compile(r"^You: "))
    theirs = page.get_by_role("group", name=re.compile(r"^Computer \(Normal\): "))
    expect(mine.get_by_role("img")).to_have_count(10)
    assert (
        card_names(mine.get_by_role("img").evaluate_all("e => e.map(x => x.getAttribute('aria-label'))"))
        == dealt
    )
    expect(theirs.get_by_role("img")).to_have_count(10)
    shot(page, "replay-deal")

    # Step card by card to the end of hand 1; every step says what happened.
    caption = page.locator(".replay-caption")
    total = int(re.search(r"move 0 of (\d+)", page.locator(".replay-position").inner_text()).group(1))
    assert total >= 3
    seen = set()
    for step in range(1, total + 1):
        page.get_by_role("button", name="Next move").click()
        expect(page.get_by_text(re.compile(rf"move {step} of {total}\b"))).to_be_visible()
        text = caption.inner_text()
        assert re.match(r"^(You|Computer \(Normal\)) (took|passed|drew|discarded|knocked|went gin)", text), (
            text
        )
        seen.add(text.split()[1] if text.startswith("You") else text.split()[2])
        counts = sorted([mine.get_by_role("img").count(), theirs.get_by_role("img").count()])
        assert counts in ([10, 10], [10, 11]), counts
    # (A hand can end in three moves: a pass, the upcard taken, a knock. Any longer has a draw.)
    assert "drew" in seen if total > 3 else {"took", "knocked,"} <= seen, seen
    expect(page.get_by_role("heading", name="Hand 1 result")).to_be_visible()
    expect(page.locator(".replay-result .score-line")).to_have_text(first_score)
    shot(page, "replay-hand-end")

    # Back one move hides the result again.
    page.get_by_role("button", name="Previous move").click()
    expect(page.get_by_role("heading", name="Hand 1 result")).to_be_hidden()
