"""A match against a friend: the invite link brings the friend to the table, both play their
turns from their own browsers, and a watch link shows the match without either hand."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import Play, shot, status_line, take_turn

pytestmark = pytest.mark.browser


def test_a_friend_joins_by_the_invite_link_and_a_watcher_sees_no_hand(server, new_page):
    ada = new_page(**DESKTOP)
    ada.goto(server + "/")
    ada.get_by_label("Your name").fill("Ada")
    friend_form = ada.get_by_role("form", name="Play a friend")
    friend_form.get_by_label("Classic rules").check()
    ada.get_by_role("button", name="Create an invite link").click()
    expect(ada.get_by_role("heading", name="Waiting for your friend")).to_be_visible()
    invite = ada.get_by_label("Invite link for your friend").input_value()
    watch = ada.get_by_label("Watch link (read-only)").input_value()
    assert "#/join/" in invite and "#/watch/" in watch
    shot(ada, "friend-waiting")

    bob = new_page(**PHONE)
    bob.goto(invite)
    expect(bob.get_by_role("heading", name="You are invited to a game of Gin Rummy")).to_be_visible()
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the match").tap()
    expect(bob).to_have_url(re.compile(r"#/play/"))
    expect(bob.get_by_role("heading", name="Ada")).to_be_visible()
    expect(ada.get_by_role("heading", name="Bob")).to_be_visible()
    expect(ada.get_by_role("heading", name="Waiting for your friend")).to_be_hidden()
    expect(bob.get_by_text("Classic rules")).to_be_visible()

    watcher = new_page(**DESKTOP)
    watcher.goto(watch)
    expect(watcher.get_by_role("heading", name="Ada")).to_be_visible()
    expect(watcher.get_by_role("heading", name="Bob")).to_be_visible()
    expect(watcher.get_by_role("img", name="Ada holds 10 cards")).to_be_visible()

    # Each takes their turns from their own browser until three cards have been discarded.
    plays = {id(ada): Play(), id(bob): Play()}
    discards = watcher.get_by_role("listitem").filter(has_text=re.compile(r"(Ada|Bob) discarded"))
    for _ in range(200):
        if discards.count() >= 3:
            break
        acted = False
        for page, touch in ((ada, False), (bob, True)):
            if "Your turn" in status_line(page).inner_text():
                acted = take_turn(page, plays[id(page)], touch=touch) or acted
        if not acted:
            ada.wait_for_timeout(50)
    expect(discards).to_have_count(3)
    assert plays[id(ada)].moves and plays[id(bob)].moves

    # The watcher sees the public table only: no hand of cards, nothing to press.
    expect(watcher.get_by_role("group", name=re.compile("^Your hand"))).to_have_count(0)
    expect(watcher.get_by_role("button", name=re.compile(r"^Stock"))).to_be_disabled()
    expect(watcher.get_by_role("button", name=re.compile(r"^(Knock|Gin)\b"))).to_have_count(0)
    held = watcher.get_by_role("img", name=re.compile(r"holds \d+ cards"))
    expect(held).to_have_count(2)
    shot(watcher, "watcher")
    shot(bob, "friend-phone")
