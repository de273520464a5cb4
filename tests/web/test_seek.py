"""Quick pairing in the browser, as two people use it in two browsers (a phone, by touch, at
390x844 and a desktop at 1280x800): each opens the lobby, chooses the same rules, clock and
rated match, seeks, and both land at the same table; a seek is cancelled from its seeking state
and the live counts follow."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import shot

pytestmark = pytest.mark.browser


def seek_form(page):
    return page.get_by_role("form", name="Quick pairing")


def test_two_browsers_seek_and_land_at_the_same_table_and_a_seek_can_be_cancelled(server, new_page):
    ada = new_page(**DESKTOP)
    ada.goto(server + "/#/lobby")
    expect(ada.get_by_role("heading", name="Quick pairing")).to_be_visible()
    ada.get_by_label("Your name").fill("Ada")
    form = seek_form(ada)
    form.get_by_label("Rules").select_option("classic")
    form.get_by_label(re.compile("^Real time")).check()
    form.get_by_label(re.compile("^Rated")).check()
    shot(ada, "seek-form-desktop")
    form.get_by_role("button", name="Seek a match").click()
    expect(ada.get_by_role("status").filter(has_text="Seeking a match")).to_be_visible()
    expect(ada.get_by_role("button", name="Cancel")).to_be_focused()
    expect(ada.locator(".seek-elapsed")).to_have_text(re.compile(r"0:0[1-9]"))  # the elapsed time runs
    shot(ada, "seek-seeking-desktop")

    bob = new_page(**PHONE)
    bob.goto(server + "/")
    expect(bob.get_by_role("link", name="1 seeking")).to_be_visible()
    bob.get_by_role("link", name="1 seeking").tap()
    bob.get_by_label("Your name").fill("Bob")
    form = seek_form(bob)
    form.get_by_label("Rules").select_option("classic")
    form.get_by_label(re.compile("^Real time")).tap()
    form.get_by_label(re.compile("^Rated")).tap()
    shot(bob, "seek-form-phone")
    form.get_by_role("button", name="Seek a match").tap()
    expect(bob).to_have_url(re.compile(r"#/play/"))
    expect(ada).to_have_url(re.compile(r"#/play/"))
    assert ada.url.split("#/play/")[1] == bob.url.split("#/play/")[1]
    expect(bob.get_by_role("heading", name="Ada")).to_be_visible()
    expect(ada.get_by_role("heading", name="Bob")).to_be_visible()
    shot(ada, "seek-table-desktop")
    shot(bob, "seek-table-phone")

    # A third person seeks, changes their mind and cancels: nobody is left seeking.
    cy = new_page(**PHONE)
    cy.goto(server + "/#/lobby")
    cy.get_by_label("Your name").fill("Cy")
    seek_form(cy).get_by_role("button", name="Seek a match").tap()
    expect(cy.get_by_role("status").filter(has_text="Seeking a match")).to_be_visible()
    shot(cy, "seek-seeking-phone")
    cy.get_by_role("button", name="Cancel").tap()
    expect(cy.get_by_text("Seek cancelled.")).to_be_visible()
    expect(seek_form(cy)).to_be_visible()
    cy.goto(server + "/")
    expect(cy.get_by_text(re.compile(r"1 playing now|2 playing now"))).to_be_visible()
    expect(cy.get_by_role("link", name="0 seeking")).to_be_visible()
