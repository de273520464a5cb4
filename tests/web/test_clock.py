"""The match clock in the browser, as people see it: a friend match created with the real-time
clock shows both seats' clocks counting down; a match on a one-second clock that nobody plays
is timed out by the server (a safe move each time) and forfeited at the third timeout, and both
tables say so and offer a rematch, which both accept. At 390x844 and 1280x800.

The timed-out match runs on the real server's clock (a separate process): the test waits for
what the page shows (Playwright's expect), never for a fixed time."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.live_server import live_server

from .conftest import DESKTOP, PHONE
from .table import shot

pytestmark = pytest.mark.browser


def _post(base: str, path: str, body: dict, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def _as_player(page, base: str, player: dict) -> None:
    """Open the site as ``player`` (its token in this browser's storage, as after signing up)."""
    page.goto(base + "/")
    identity = {k: player[k] for k in ("player_id", "name", "token")}
    page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", identity)


def test_a_real_time_friend_match_shows_both_clocks_counting_down(server, new_page):
    ada = new_page(**DESKTOP)
    ada.goto(server + "/")
    ada.get_by_label("Your name").fill("Ada")
    form = ada.get_by_role("form", name="Play a friend")
    form.get_by_label(re.compile("^Real time")).check()
    ada.get_by_role("button", name="Create an invite link").click()
    invite = ada.get_by_label("Invite link for your friend").input_value()

    bob = new_page(**PHONE)
    bob.goto(invite)
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the match").tap()
    expect(bob).to_have_url(re.compile(r"#/play/"))
    for page, me, them in ((ada, "You", "Bob"), (bob, "You", "Ada")):
        timers = page.get_by_role("timer")
        expect(timers).to_have_count(2)
        expect(page.get_by_role("timer", name=re.compile(f"^{me}: "))).to_be_visible()
        expect(page.get_by_role("timer", name=re.compile(f"^{them}: "))).to_be_visible()
    running = ada.locator(".seat-clock.running .clock-time")
    expect(running).to_have_count(1)
    first = running.inner_text()
    assert re.fullmatch(r"2:(20|19|18|1\d)", first), first
    expect(running).not_to_have_text(first)  # it counts down
    shot(ada, "clock-desktop")
    shot(bob, "clock-phone")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_seat_that_never_moves_is_timed_out_three_times_and_forfeits(server, new_page, size):
    options = PHONE if size == "phone" else DESKTOP
    ada = _post(server, "/api/players", {"name": "Ada"})
    bob = _post(server, "/api/players", {"name": "Bob"})
    tc = {"kind": "realtime", "move_seconds": 1, "bank_seconds": 0}
    created = _post(server, "/api/matches", {"opponent": "human", "time_control": tc}, ada["token"])
    match_id = created["match_id"]
    _post(server, f"/api/matches/{match_id}/join", {"invite": created["invite"]["code"]}, bob["token"])

    pages = {}
    for name, player in (("Ada", ada), ("Bob", bob)):
        page = new_page(**options)
        _as_player(page, server, player)
        page.goto(f"{server}/#/play/{match_id}")
        expect(page.get_by_role("timer")).to_have_count(2)
        pages[name] = page
    # Nobody plays: the server moves for whoever is to act, and the third timeout in a row ends it.
    for page in pages.values():
        expect(page.locator("#status-line")).to_have_text(re.compile("ran out of time"), timeout=30_000)
    texts = [p.locator("#status-line").inner_text() for p in pages.values()]
    assert any(t.startswith("You ran out of time") for t in texts), texts
    expect(pages["Ada"].get_by_role("heading", name="Match over")).to_be_visible()
    for page in pages.values():
        expect(page.get_by_test_id("forfeit-reason")).to_have_text(
            re.compile("ran out of time three turns in a row")
        )
    if size == "desktop":  # the move list says which moves the server played
        expect(pages["Ada"].locator(".move-list li").first).to_contain_text("(out of time)")
    shot(pages["Ada"], f"clock-forfeit-{size}")

    # Rematch: Ada offers, Bob accepts; both tables move to the new match.
    pages["Ada"].get_by_test_id("rematch").click()
    expect(pages["Bob"].get_by_test_id("rematch-note")).to_have_text(re.compile("Ada offers a rematch"))
    shot(pages["Bob"], f"rematch-offer-{size}")
    pages["Bob"].get_by_test_id("rematch-accept").click()
    for page in pages.values():
        expect(page).not_to_have_url(re.compile(re.escape(match_id) + "$"))
        expect(page.get_by_role("timer")).to_have_count(2)
    assert pages["Ada"].url == pages["Bob"].url


@pytest.fixture
def quick_claims(tmp_path):
    """A server whose grace period before a claim is 0 s (the page shows the claim at once)."""
    with live_server(tmp_path, extra_env={"GINRUMMY_CLAIM_SECONDS": "0"}) as base_url:
        yield base_url


def test_when_the_opponent_leaves_the_other_player_can_claim_the_win(quick_claims, new_page):
    server = quick_claims
    ada = _post(server, "/api/players", {"name": "Ada"})
    bob = _post(server, "/api/players", {"name": "Bob"})
    created = _post(server, "/api/matches", {"opponent": "human"}, ada["token"])
    match_id = created["match_id"]
    _post(server, f"/api/matches/{match_id}/join", {"invite": created["invite"]["code"]}, bob["token"])
    pages = []
    for player, options in ((ada, PHONE), (bob, DESKTOP)):
        page = new_page(**options)
        _as_player(page, server, player)
        page.goto(f"{server}/#/play/{match_id}")
        expect(page.locator("#status-line")).not_to_be_empty()
        pages.append(page)
    expect(pages[0].get_by_role("button", name="Claim the win")).to_be_hidden()  # Bob is here
    pages[1].goto(server + "/")  # Bob leaves the table
    claim = pages[0].get_by_role("button", name="Claim the win")
    expect(claim).to_be_visible()
    shot(pages[0], "claim-phone")
    claim.tap()
    expect(pages[0].locator("#status-line")).to_have_text(re.compile("Bob left the match: You win"))
    expect(pages[0].get_by_test_id("forfeit-reason")).to_have_text(re.compile("Bob left the match"))
