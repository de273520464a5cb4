"""The table's last pleasures (issue 16): the settings that reach the server (the computer's
pace, in every hello) and those that stay in the browser (a sound on your turn and on the
computer's move, a notification when a hidden tab's turn comes), "New match, same settings" at
a match's end, and the replay's meld underlines at every step. As a person taps and clicks, on
a phone and a computer; screenshots in /tmp/table-shots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE
from .scripted import open_scripted, replayable_match, rest, view

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/table-shots")
SMALL_PHONE = {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True}

# Count the tones (Web Audio oscillators started), stand in for the Notification API (the
# permission is "default" until asked; asking grants it), and let the test hide the tab.
HOOKS = """
window.__tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...a) { window.__tones += 1; return start.apply(this, a); };
window.__notes = [];
window.__asked = 0;
class FakeNotification {
  static permission = "default";
  static async requestPermission() { window.__asked += 1; FakeNotification.permission = "granted"; return "granted"; }
  constructor(title, options) { window.__notes.push({ title, body: options?.body }); }
  close() {}
}
window.Notification = FakeNotification;
window.__visibility = "visible";
Object.defineProperty(document, "visibilityState", { get: () => window.__visibility });
Object.defineProperty(document, "hidden", { get: () => window.__visibility === "hidden" });
"""


def hellos(script) -> list[dict]:
    return [m for m in script.sent if m.get("type") == "hello"]


def until(page: Page, read, expected, seconds: float = 5.0) -> None:
    """Wait until ``read()`` gives ``expected`` (Playwright's events are handled while waiting)."""
    for _ in range(int(seconds / 0.05)):
        if read() == expected:
            return
        page.wait_for_timeout(50)
    assert read() == expected


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_settings_pace_the_computer_and_cue_the_turn_with_a_sound_and_a_notification(site, new_page):
    page = new_page(**PHONE)
    page.add_init_script(HOOKS)
    waiting = view(
        status_line="Computer (Easy) is playing",
        hand={"to_act": 1, "legal_actions": [], "history": [{"seat": 0, "kind": "pass"}]},
    )
    script = open_scripted(page, site, waiting)
    expect(page.locator("#status-line")).to_have_text("Computer (Easy) is playing")
    assert hellos(script)[-1]["pace"] == "normal"  # said from the first hello on

    page.get_by_text("Settings").tap()
    pace = page.get_by_label("Computer's pace")
    expect(pace).to_have_value("normal")
    pace.select_option("slow")
    until(page, lambda: hellos(script)[-1].get("pace"), "slow")  # at once, not at the next connection
    sound = page.get_by_label(re.compile("^Sounds on my turn"))
    notify = page.get_by_label(re.compile("^Notify me when it is my turn"))
    expect(sound).not_to_be_checked()  # both off until the player turns them on
    expect(notify).not_to_be_checked()
    assert page.evaluate("window.__asked") == 0  # no permission asked before that
    sound.tap()
    notify.tap()
    expect(notify).to_be_checked()
    assert page.evaluate("window.__asked") == 1
    shoot(page, "settings-390")

    # The computer moves while the tab is hidden: a tone for its move and its turn, a notification.
    page.evaluate(
        "() => { window.__visibility = 'hidden'; document.dispatchEvent(new Event('visibilitychange')); }"
    )
    after = view(hand={"history": [{"seat": 0, "kind": "pass"}, {"seat": 1, "kind": "pass"}]})
    script.push(after)
    expect(page).to_have_title("Your turn \u2014 Gin Rummy")
    until(
        page,
        lambda: page.evaluate("window.__notes"),
        [{"title": "Your turn", "body": "Gin Rummy: your move against Computer (Easy)."}],
    )
    assert page.evaluate("window.__tones") == 2  # the rising two-note tone of your turn

    # Kept in this browser: after a reload the choices are back, and the first hello says the pace.
    before = len(hellos(script))
    page.reload()
    expect(page.locator("#status-line")).to_be_visible()
    until(page, lambda: [h.get("pace") for h in hellos(script)[before:]], ["slow"])
    page.get_by_text("Settings").tap()
    expect(page.get_by_label("Computer's pace")).to_have_value("slow")
    expect(page.get_by_label(re.compile("^Sounds on my turn"))).to_be_checked()


def test_a_finished_match_offers_a_new_match_with_the_same_settings(site, new_page):
    ada = rest(site, "POST", "/api/players", {"name": "Ada"})
    m = rest(
        site,
        "POST",
        "/api/matches",
        {"opponent": "computer", "difficulty": "hard", "rules": "classic"},
        ada["token"],
    )
    rest(site, "POST", f"/api/matches/{m['match_id']}/resign", {}, ada["token"])
    for screen, name in ((SMALL_PHONE, "320"), (DESKTOP, "1280")):
        page = new_page(**screen)
        page.add_init_script(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(ada))});")
        page.goto(f"{site}/#/play/{m['match_id']}")
        again = page.get_by_role("button", name="New match, same settings")
        expect(again).to_be_visible()
        expect(page.get_by_text("Classic rules, Computer (Hard)")).to_be_visible()
        expect(page.get_by_role("button", name="Play again")).to_be_visible()  # the rematch, beside it
        # Three ways on, each saying how it differs (they read alike when two were "New match").
        expect(page.get_by_test_id("rematch-note")).to_have_text(
            "Play again: the same rules and level, seats swapped."
        )
        expect(page.get_by_text("Classic rules, Computer (Hard), your seat kept")).to_be_visible()
        expect(page.get_by_role("link", name="New match, other settings")).to_have_attribute("href", "#/")
        shoot(page, f"match-over-same-settings-{name}")
        if name == "1280":
            again.click()
            expect(page).not_to_have_url(re.compile(re.escape(m["match_id"])))
            new_id = page.url.rsplit("/", 1)[1]
            details = rest(site, "GET", f"/api/matches/{new_id}", None, ada["token"])
            assert (details["rules"], details["difficulty"], details["status"]) == (
                "classic",
                "hard",
                "active",
            )
            assert details["players"][0]["name"] == "Ada"  # the same seat as before: not a rematch
            expect(page.get_by_role("region", name="Card table")).to_be_visible()


def test_the_replay_underlines_each_hands_melds_at_every_step(site, new_page):
    ada = rest(site, "POST", "/api/players", {"name": "Ada"})
    # A match whose first hand was played to its end and has melds (most do), then resigned:
    # only a finished hand is replayed (an unfinished one keeps its hidden cards hidden).
    for _ in range(5):
        m = replayable_match(site, ada["token"])
        record = rest(site, "GET", f"/api/matches/{m['match_id']}/record", None, ada["token"])
        steps = record["hands"][0]["melds_by_step"]
        if any(seat for seat in steps[0]):
            break
    hand = record["hands"][0]
    page = new_page(**PHONE)
    page.add_init_script(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(ada))});")
    page.goto(f"{site}/#/replay/{m['match_id']}")
    expect(page.locator(".replay-position")).to_contain_text("move 0 of")
    for step in range(len(steps)):
        # At the hand's end the result's melds, as the replay draws them (they can differ from
        # the best arrangement: the knocker's melds are chosen against the defender's layoffs,
        # and a card the defender lays off is in no meld of its own); before it, each step's.
        melds = hand["result"]["melds"] if step == len(hand["actions"]) and hand["result"] else steps[step]
        if step:
            page.keyboard.press("ArrowRight")
            expect(page.locator(".replay-position")).to_contain_text(f"move {step} of")
        rows = page.locator(".replay-hand")
        seats = [1, 0] if record["seat"] == 0 else [0, 1]  # the other seat is drawn on top
        for row, seat in zip((rows.nth(0), rows.nth(1)), seats, strict=True):
            melded = row.locator(".melded").evaluate_all(
                "els => els.map(e => e.dataset.card || e.getAttribute('aria-label'))"
            )
            assert len(melded) == sum(len(meld) for meld in melds[seat]), (step, seat, melded)
    shoot(page, "replay-melds-390")
