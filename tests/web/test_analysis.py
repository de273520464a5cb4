"""Explained play in the browser: hints at the table once turned on, the hand's biggest mistake
in the result dialog, and the replay showing Hard's analysis of each decision."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import play_until, shot, start_vs_computer, status_line

pytestmark = pytest.mark.browser

THINKING_MS = 30_000
"""How long an expectation waits on what Hard works out on the server (a hint, a hand's or a
match's analysis): seconds on a loaded machine, beyond the 5 s an expectation waits by default
(under three test processes at once the hand's mistake note took longer than that)."""


def test_hints_the_biggest_mistake_and_the_analysis_in_the_replay(server, new_page):
    page = new_page(**DESKTOP)
    match_id = start_vs_computer(page, server, name="Ada", difficulty="Easy", rules="House rules")
    expect(status_line(page)).to_contain_text("Your turn")
    hint = page.locator(".hint-line")
    expect(hint).to_have_count(0)  # off until the player turns hints on

    page.get_by_text("Settings", exact=True).click()
    page.get_by_label(re.compile("^Hints against the computer")).check()
    expect(hint).to_contain_text(
        re.compile(r"^Hint: (take the upcard|pass|draw from the stock|take the discard)\. \w"),
        timeout=THINKING_MS,
    )
    shot(page, "analysis-hint")

    # Play the first hand out; its result dialog names the biggest mistake.
    dialog = page.get_by_role("dialog")
    play_until(page, lambda _: dialog.is_visible(), touch=False, seconds=120)
    note = dialog.locator(".mistake-note")
    expect(note).to_contain_text(re.compile(r"^Biggest mistake: (you |none)"), timeout=THINKING_MS)
    expect(note.get_by_role("link", name="Full analysis")).to_have_attribute("href", f"#/analysis/{match_id}")
    shot(page, "analysis-result-dialog")
    page.get_by_role("button", name="Next hand").click()
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.get_by_role("heading", name="Match over")).to_be_visible()

    # One mistake of the opponent's is made certain (the computer's own depend on the deal).
    theirs = {
        "step": 1,
        "phase": "discard",
        "played": {"kind": "discard", "card": "Kh"},
        "best": {"kind": "discard", "card": "9s"},
        "reason": "least_deadwood",
        "explanation": "Throw the card that leaves the least deadwood.",
        "loss": 3.2,
        "mistake": True,
        "choices": [],
    }

    # A decision Hard would play otherwise though the values say the played action is worth as
    # much (the first decision, made so here) reads so in words, not as a loss of "-0.0"; and the
    # opponent's first move is made that mistake of theirs.
    def even(route):
        body = route.fetch().json()
        hand = body["hands"][0]
        first = hand["decisions"][0]
        other = next(c["action"] for c in first["choices"] if c["action"] != first["played"])
        first.update(best=other, loss=0.0, mistake=False)
        hand["mistakes"] = [s for s in hand["mistakes"] if s != first["step"]]
        mine = {d["step"] for d in hand["decisions"]}
        hand["opponent_mistakes"] = [dict(theirs, step=min(set(range(max(mine) + 1)) - mine))]
        # The server's line is ASCII; the page prints its negative numbers with a minus sign.
        body["summary"] = (
            "Deals: -3.5 expected points over 1 hand (poor luck). Play: 2.0 points lost to decisions"
            " that differ from Hard's, 1 mistake; your opponent lost 1.0 the same way. Result: -43 points."
        )
        route.fulfill(json=body)

    page.route(re.compile(r"/api/matches/[^/]+/analysis$"), even)
    # The replay shows, beside hand 1, every decision of the player, mistakes marked.
    page.get_by_role("link", name="Replay this match").click()
    panel = page.get_by_role("region", name="Analysis")
    expect(panel).to_contain_text(
        re.compile(r"^AnalysisDeals: \u22123\.5 expected points"), timeout=THINKING_MS
    )
    expect(panel).to_contain_text("Result: \u221243 points.")
    expect(panel.locator(".decision").first).to_contain_text(
        re.compile(r"^You .+; Hard would .+ \(yours is as good\)\.")
    )
    expect(panel).not_to_contain_text("\u22120.0")
    expect(panel).to_contain_text(re.compile(r"mistakes?; your opponent lost \d+\.\d\."))
    decisions = panel.locator(".decision")
    expect(decisions.first).to_contain_text(re.compile("^!?You "))  # "!": marked a mistake
    many = decisions.count() >= 2  # (a hand can end at the player's first decision: take and knock)
    expect(panel.locator(".decision.mistake")).to_have_count(
        len(re.findall(r"!", "".join(panel.locator(".mistake-mark").all_inner_texts())))
    )
    # Choosing a decision moves the replay to just after it, and marks it.
    second = decisions.nth(1) if many else decisions.first
    step = int(second.get_attribute("data-step"))
    second.get_by_role("button").click()
    expect(page.get_by_text(re.compile(rf"^Hand 1 of \d+ \u00b7 move {step + 1} of "))).to_be_visible()
    expect(panel.locator(".decision.current")).to_have_attribute("data-step", str(step))
    expect(page.locator(".analysis-move-note")).to_contain_text(re.compile(r"^!?Hard would"))
    # The opponent's mistakes are listed under the player's decisions; choosing one moves there,
    # and the note under the caption says whose mistake it was.
    their_line = panel.locator(".opponent-mistakes + .decision-list .decision")
    expect(their_line).to_have_text(
        re.compile(r"^!They discarded K\u2665; Hard would discard 9\u2660 \(\u22123\.2\)\.")
    )
    their_step = int(their_line.get_attribute("data-step"))
    their_line.get_by_role("button").click()
    expect(page.get_by_text(re.compile(rf"^Hand 1 of \d+ \u00b7 move {their_step + 1} of "))).to_be_visible()
    expect(page.locator(".analysis-move-note")).to_have_text(
        "!Your opponent's mistake: Hard would discard 9\u2660 (\u22123.2). Throw the card that leaves the least deadwood."
    )
    expect(their_line).to_have_class(re.compile(r"\bcurrent\b"))
    shot(page, "analysis-replay")

    # The analysis page lists the hand too, on a phone as well.
    phone = new_page(**PHONE)
    phone.goto(server + "/")
    phone.evaluate(
        "s => localStorage.setItem('ginrummy.player', s)",
        page.evaluate("localStorage.getItem('ginrummy.player')"),
    )

    def with_theirs(route):
        body = route.fetch().json()
        body["hands"][0]["opponent_mistakes"] = [theirs]
        route.fulfill(json=body)

    phone.route(re.compile(r"/api/matches/[^/]+/analysis$"), with_theirs)
    phone.goto(f"{server}/#/analysis/{match_id}")
    expect(phone.get_by_role("heading", name="Hand 1")).to_be_visible(timeout=THINKING_MS)
    first = phone.locator(".analysis-panel").first
    expect(first.get_by_role("heading", name="Your opponent's mistakes")).to_be_visible()
    expect(first.locator(".opponent-mistakes + .decision-list .decision.mistake")).to_have_text(
        "!They discarded K\u2665; Hard would discard 9\u2660 (\u22123.2). Throw the card that leaves the least deadwood."
    )
    expect(phone.get_by_text("plus your opponent's, comes near your result", exact=False)).to_be_visible()
    # with what the hand scored for the player, signed (the hands' results add up to the summary's)
    expect(phone.locator(".analysis-panel").first).to_contain_text(
        re.compile(
            r"Deal worth [+\u2212-]\d+\.\d; you lost \d+\.\d points, your opponent \d+\.\d\. "
            r"Result: (0 points|[+\u2212][1-9]\d* points?)\."
        )
    )
    too_wide = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert too_wide <= 0, too_wide
    shot(phone, "analysis-page-phone")
    page.route(re.compile(r"/api/matches/[^/]+/analysis$"), with_theirs)
    page.goto(f"{server}/#/analysis/{match_id}")
    expect(page.get_by_role("heading", name="Your opponent's mistakes").first).to_be_visible(
        timeout=THINKING_MS
    )
    shot(page, "analysis-page-desktop")
    # The replay on a phone: the opponent's mistake under the player's decisions, within the screen.
    phone.goto(f"{server}/#/replay/{match_id}")
    replay_panel = phone.get_by_role("region", name="Analysis")
    expect(replay_panel.get_by_role("heading", name="Your opponent's mistakes")).to_be_visible(
        timeout=THINKING_MS
    )
    too_wide = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert too_wide <= 0, too_wide
    shot(phone, "analysis-replay-phone")
