"""Playing at the card table the way a person does: reading the status line, tapping labelled
buttons and cards. Used by the browser tests; it finds everything by role and visible label.

The test player's plan keeps hands short: pass on the upcard, draw from the stock, select the
rightmost card (in melds order that is the highest unmatched card), knock or go gin whenever the
Knock / Gin button comes alive for it, else tap it again to discard it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.live_server import ROOT

ARTIFACTS = ROOT / "test-artifacts" / "web"

# The page prints a minus sign (U+2212) where the server's formula has a hyphen.
SCORE_LINE = re.compile(
    r"^(Hand \d+: )?((Gin|Knock|Undercut): (\d+ [+\u2212] )+\d+ = \d+|Dead hand: no score)$"
)


def menu_link(page: Page, name: str):
    """The main menu's link ``name``, opening the phone's "More" list first when it is in there."""
    link = page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)
    more = page.get_by_role("button", name="More")
    if not link.is_visible() and more.is_visible():
        more.click()
    return link


def shot(page: Page, name: str) -> None:
    """Save a full-page screenshot under test-artifacts/web/ for a reviewer to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def start_vs_computer(page: Page, base_url: str, *, name: str, difficulty: str, rules: str) -> str:
    """From the start page to the table, at the player's turn in a hand still in play; returns
    the match id from the address. The deal is random: now and then the computer, first to act,
    takes the upcard and knocks before the table opens, and the table shows that hand's result
    over the next deal; then a new match (a player this browser knows is not asked its name)."""
    for _ in range(5):
        page.goto(base_url + "/")
        start = page.get_by_role("button", name="Play the computer")
        expect(start).to_be_visible()
        if page.get_by_label("Your name").count():
            page.get_by_label("Your name").fill(name)
        page.get_by_label(difficulty).check()
        page.get_by_role("form", name="Play the computer").get_by_label(rules).check()
        start.click()
        page.wait_for_url(re.compile(r"#/play/"))
        expect(status_line(page)).to_contain_text("Your turn", timeout=15_000)
        if not page.get_by_role("button", name="Next hand").is_visible():
            return page.url.rsplit("/", 1)[-1]
    raise AssertionError("five deals in a row ended before the player's first move")


def status_line(page: Page):
    return page.locator("#status-line")


def hand_cards(page: Page):
    return page.get_by_role("group", name=re.compile(r"^Your hand")).get_by_role("button")


def hand_labels(page: Page) -> list[str]:
    return hand_cards(page).evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")


def knock_button(page: Page):
    return page.get_by_role("button", name=re.compile(r"^(Knock|Gin)\b"))


def not_busy(page: Page) -> None:
    """Wait until the table has the server's answer to our last action."""
    # include_hidden: the table is put away once the match is over.
    table = page.get_by_role("region", name="Card table", include_hidden=True)
    expect(table).not_to_have_attribute("aria-busy", "true")


@dataclass
class Play:
    shots: str | None = None
    """Name prefix of the screenshots to keep (the first hand result, the first selection)."""
    moves: int = 0
    knocks: int = 0
    results: list[str] = field(default_factory=list)


def press(page: Page, locator, *, touch: bool) -> None:
    if touch:
        locator.tap(timeout=3000)
    else:
        locator.click(timeout=3000)


def take_turn(page: Page, play: Play, *, touch: bool) -> bool:
    """Do whatever the table asks now; False when there is nothing to do yet."""
    next_hand = page.get_by_role("button", name="Next hand")
    if next_hand.is_visible():
        dialog = page.get_by_role("dialog")
        score = dialog.locator(".score-line").inner_text()
        assert SCORE_LINE.match(score), score
        # Both hands are shown whole, even on a phone: no card hidden past the dialog's edge.
        too_wide = dialog.evaluate("d => d.scrollWidth - d.clientWidth")
        assert too_wide <= 0, f"the result dialog is {too_wide} px wider than the screen allows"
        if play.shots and not play.results:
            shot(page, f"{play.shots}-hand-result")
        play.results.append(score)
        press(page, next_hand, touch=touch)
        return True
    status = status_line(page).inner_text()
    if "Your turn: take the upcard or pass" in status:
        press(page, page.get_by_role("button", name="Pass", exact=True), touch=touch)
    elif "Your turn: draw" in status:
        press(page, page.get_by_role("button", name=re.compile(r"^Stock, \d+ cards$")), touch=touch)
    elif "Your turn: discard" in status:
        labels = hand_labels(page)
        assert len(labels) == 11, labels
        index = max(i for i, label in enumerate(labels) if "cannot be discarded" not in label)
        card = hand_cards(page).nth(index)
        press(page, card, touch=touch)
        expect(card).to_have_attribute("aria-pressed", "true")
        hint = page.locator("#hand-hint").inner_text()
        if play.shots and play.moves < 3:
            shot(page, f"{play.shots}-card-selected")
        knock = knock_button(page)
        # The button is live exactly when the view lists a knock; when the selected card is not
        # one of its discards, the first press selects the best one.
        if knock.is_enabled():
            if not re.search(r"leaves \d+ deadwood: you can (knock|go gin)", hint):
                press(page, knock, touch=touch)
                hint = page.locator("#hand-hint").inner_text()
            assert re.search(r"leaves \d+ deadwood: you can (knock|go gin)", hint), hint
            press(page, knock, touch=touch)
            play.knocks += 1
        else:
            assert "a knock needs 10 or less" in hint, hint
            press(page, card, touch=touch)
    else:
        return False
    play.moves += 1
    not_busy(page)
    return True


def play_until(page: Page, done, *, touch: bool, seconds: float, shots: str | None = None) -> Play:
    """Take turns until ``done(play)`` is true (or fail after ``seconds``)."""
    play = Play(shots)
    deadline = time.monotonic() + seconds
    while not done(play):
        assert time.monotonic() < deadline, f"still playing after {seconds} s: {play}"
        try:
            acted = take_turn(page, play, touch=touch)
        except PlaywrightError:
            # The result dialog can open between reading the table and tapping it (the
            # computer's knock); look at the table again.
            continue
        if not acted:
            page.wait_for_timeout(40)
    return play


def play_until_match_over(page: Page, *, touch: bool, seconds: float, shots: str | None = None) -> Play:
    """Play whole hands until the match is over."""
    over = page.get_by_role("heading", name="Match over")
    return play_until(page, lambda _: over.is_visible(), touch=touch, seconds=seconds, shots=shots)
