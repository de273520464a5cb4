"""Ratings and the lobby in the browser, as a person uses them, at 390x844 (a phone, by touch)
and 1280x800: a rated challenge listed in the lobby from the start page and accepted from a
phone; the live counts; a player's page with its rating graph; the leaderboard and its links."""

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


def rest(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    req = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode()
    )
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def test_a_rated_challenge_is_listed_in_the_lobby_and_accepted_from_a_phone(server, new_page):
    ada = new_page(**DESKTOP)
    ada.goto(server + "/")
    expect(ada.get_by_text(re.compile(r"0 open challenges · 0 playing now"))).to_be_visible()
    ada.get_by_label("Your name").fill("Ada")
    friend = ada.get_by_role("form", name="Play a friend")
    friend.get_by_label(re.compile("^Rated")).check()
    friend.get_by_label(re.compile("^List it in the lobby")).check()
    shot(ada, "ratings-start-desktop")
    ada.get_by_role("button", name="Create an invite link").click()
    expect(ada.get_by_role("heading", name="Waiting for your friend")).to_be_visible()

    bob = new_page(**PHONE)
    bob.goto(server + "/")
    expect(bob.get_by_role("link", name="1 open challenge")).to_be_visible()
    shot(bob, "ratings-start-phone")
    bob.get_by_role("link", name="1 open challenge").tap()
    expect(bob.get_by_role("heading", name="Open challenges")).to_be_visible()
    challenge = bob.get_by_role("listitem").filter(has_text="Ada")
    expect(challenge).to_contain_text("Rated")
    expect(challenge).to_contain_text("Not rated yet")
    # The count sits under its heading (the grid's gap alone between them: it was 80 px).
    heading = bob.get_by_role("heading", name="Open challenges").bounding_box()
    count = bob.get_by_text("1 open challenge.", exact=True).bounding_box()
    assert heading and count and 0 <= count["y"] - (heading["y"] + heading["height"]) <= 24, (heading, count)
    shot(bob, "ratings-lobby-phone")
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Accept Ada's challenge").tap()
    expect(bob).to_have_url(re.compile(r"#/play/"))
    expect(bob.get_by_role("heading", name="Ada")).to_be_visible()
    expect(ada.get_by_role("heading", name="Bob")).to_be_visible()

    # The lobby empties; a third person sees nothing left to accept.
    cy = new_page(**DESKTOP)
    cy.goto(server + "/#/lobby")
    expect(cy.get_by_text(re.compile("No open challenges right now"))).to_be_visible()
    shot(cy, "ratings-lobby-desktop")


@pytest.fixture
def club(tmp_path):
    """A server whose leaderboard lists any rating with five matches (deviation up to 350)."""
    with live_server(tmp_path, extra_env={"GINRUMMY_LEADERBOARD_DEVIATION": "350"}) as base_url:
        yield base_url


def test_a_player_page_shows_the_rating_graph_and_the_leaderboard_ranks_players(club, new_page, console):
    server = club
    ada = rest(server, "POST", "/api/players", body={"name": "Ada"})
    bob = rest(server, "POST", "/api/players", body={"name": "Bob"})
    for i in range(6):  # Ada wins five, Bob the last
        m = rest(
            server, "POST", "/api/matches", ada["token"], {"opponent": "human", "rated": True, "public": True}
        )
        rest(server, "POST", f"/api/challenges/{m['match_id']}/accept", bob["token"], {})
        loser = ada if i == 5 else bob
        rest(server, "POST", f"/api/matches/{m['match_id']}/resign", loser["token"], {})

    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = new_page(**size)
        page.goto(server + "/#/leaderboard")
        expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
        rows = page.get_by_role("row")
        expect(rows).to_have_count(3)  # the header and two players
        expect(rows.nth(1)).to_contain_text("Ada")
        expect(rows.nth(2)).to_contain_text("Bob")
        expect(
            page.get_by_text(re.compile(r"For comparison, the computer: Easy \d+, Normal 1500"))
        ).to_be_visible()
        shot(page, f"ratings-leaderboard-{name}")

        link = page.get_by_role("link", name="Ada", exact=True)
        link.tap() if name == "phone" else link.click()
        expect(page.get_by_role("heading", name="Ada", level=1)).to_be_visible()
        graph = page.get_by_role("img", name=re.compile(r"^Rating over 6 rated matches: from 1500 to \d+"))
        expect(graph).to_be_visible()
        expect(page.locator(".rating-graph circle")).to_have_count(7)  # the start and six matches
        expect(page.get_by_text(re.compile(r"^\d{4} ± \d+$"))).to_be_visible()
        expect(page.get_by_text("Glicko-2 rating after 6 rated matches", exact=False)).to_be_visible()
        record = page.locator(".stat-list")
        expect(record).to_contain_text("Matches6")
        expect(record).to_contain_text("Won5")
        expect(page.get_by_role("listitem").filter(has_text="against Bob")).to_have_count(6)
        shot(page, f"ratings-player-{name}")

    console.allow(r"p_nobody: Failed to load resource: .* 404")  # the page's own 404, shown in words
    page = new_page(**DESKTOP)
    page.goto(server + "/#/player/p_nobody")
    expect(page.get_by_text("There is no such player.")).to_be_visible()


def test_a_provisional_rating_is_marked_and_kept_off_the_leaderboard(server, new_page):
    ada = rest(server, "POST", "/api/players", body={"name": "Ada"})
    bob = rest(server, "POST", "/api/players", body={"name": "Bob"})
    for _ in range(5):  # enough matches, but only against one new player: deviation about 200
        m = rest(
            server, "POST", "/api/matches", ada["token"], {"opponent": "human", "rated": True, "public": True}
        )
        rest(server, "POST", f"/api/challenges/{m['match_id']}/accept", bob["token"], {})
        rest(server, "POST", f"/api/matches/{m['match_id']}/resign", bob["token"], {})

    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = new_page(**size)
        page.goto(server + "/#/leaderboard")
        expect(page.get_by_text("Nobody has an established rating yet", exact=False)).to_contain_text(
            "5 rated matches and a rating deviation of 110 or less"
        )
        expect(page.get_by_role("table")).to_be_hidden()  # the sentence alone, no header over nothing
        expect(page.get_by_role("button", name="Next")).to_be_hidden()
        shot(page, f"ratings-leaderboard-empty-{name}")
        page.goto(server + f"/#/player/{ada['player_id']}")
        expect(page.get_by_role("heading", name="Ada", level=1)).to_be_visible()
        note = page.locator(".provisional")
        expect(note).to_contain_text("Provisional")
        expect(note).to_contain_text("Not on the leaderboard until the rating is established")
        shot(page, f"ratings-player-provisional-{name}")

    # Her challenge in the lobby says her rating is provisional.
    rest(server, "POST", "/api/matches", ada["token"], {"opponent": "human", "rated": True, "public": True})
    page = new_page(**PHONE)
    page.goto(server + "/#/lobby")
    challenge = page.get_by_role("listitem").filter(has_text="Ada")
    expect(challenge).to_contain_text(re.compile(r"\d{4} ± \d+, provisional"))
    shot(page, "ratings-lobby-provisional-phone")
