"""Accounts in the browser, as a person clicks, at phone and desktop sizes: a player who just
played adds a username and password, registers a passkey (Chromium's virtual authenticator),
signs in on a second browser with the password (the match in progress is there) and on a third
with the passkey, lists the devices and signs out everywhere else; the first browser then finds
itself signed out. A player's passkeys are listed (device and date) and one is removed, with the
keyboard, after a question; that passkey then signs in no more. When someone else uses up a
username's sign-ins, a browser that signed in to the account before still gets in (its device
key) and a stranger's is told in words when to try again, as with the sign-up limit."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import Page, expect

from server.transport.devices import device_label

from .conftest import DESKTOP, PHONE
from .table import shot, start_vs_computer

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def virtual_authenticator(page: Page) -> tuple[object, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    found = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, found["authenticatorId"]


def open_account(page: Page, base: str) -> None:
    page.goto(base + "/#/account")
    expect(page.get_by_role("heading", name="Account", level=1)).to_be_visible()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_sign_up_passkey_sign_in_elsewhere_and_sign_out_everywhere(server, new_page, console, size):
    # Chromium reports the wrong password's and the revoked token's 401s in the console.
    console.allow(r"status of 401 \(Unauthorized\)")
    console.allow(r"status of 400 \(Bad Request\)")  # the weak password, refused in words
    console.allow(r"status of 429 \(Too Many Requests\)")  # a username's sign-ins used up
    options = PHONE if size == "phone" else DESKTOP
    # WebAuthn needs a domain for its relying party: localhost, not 127.0.0.1.
    base = server.replace("127.0.0.1", "localhost")

    first = new_page(**options)
    start_vs_computer(first, base, name="Ada", difficulty="Easy", rules="House rules")
    open_account(first, base)
    expect(first.get_by_text("Playing as Ada, without an account.")).to_be_visible()
    shot(first, f"account-anonymous-{size}")
    first.get_by_label("Username").first.fill("ada")
    first.get_by_label("Password (8 characters or more)").fill("password1")
    first.get_by_role("button", name="Create account").click()
    expect(
        first.get_by_text("That password is too easy to guess. This is a very common password.", exact=False)
    ).to_be_visible()
    shot(first, f"account-weak-password-{size}")
    first.get_by_label("Password (8 characters or more)").fill(PASSWORD)
    first.get_by_role("button", name="Create account").click()
    expect(first.get_by_text("Signed in as ada (playing as Ada).")).to_be_visible()

    cdp, authenticator = virtual_authenticator(first)
    first.get_by_role("button", name="Add a passkey").click()
    expect(first.get_by_text("1 passkey.")).to_be_visible()
    expect(first.locator(".passkey-list li")).to_have_count(1)
    credential = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"][0]  # type: ignore[attr-defined]

    # A second browser signs in with the password: the match in progress is there.
    second = new_page(**options)
    open_account(second, base)
    second.get_by_label("Username").fill("ADA")
    second.get_by_label("Password").fill("wrong password")
    second.get_by_role("button", name="Sign in", exact=True).click()
    expect(second.get_by_role("alert")).to_have_text("Wrong username or password")  # a sentence
    second.get_by_label("Password").fill(PASSWORD)
    second.get_by_role("button", name="Sign in", exact=True).click()
    expect(second.get_by_text("Signed in as ada (playing as Ada).")).to_be_visible()
    second.get_by_role("link", name="Play", exact=True).first.click()
    expect(second.get_by_role("heading", name="Continue a match")).to_be_visible()
    expect(second.get_by_role("link", name="Against Computer (Easy)")).to_be_visible()

    # A third signs in with the passkey (the same credential, in its own authenticator).
    third = sign_in_with_passkey(new_page(**options), base, credential)
    expect(third.get_by_text("Signed in as ada (playing as Ada).")).to_be_visible()
    devices = third.locator(".device-list li")
    expect(devices).to_have_count(3)
    expect(third.get_by_text("(this device)")).to_have_count(1)
    shot(third, f"account-devices-{size}")

    # Sign out everywhere else: only the third stays; the first finds itself signed out.
    third.get_by_role("button", name="Sign out everywhere else").click()
    expect(third.get_by_text("Signed out 2 other devices.")).to_be_visible()
    expect(devices).to_have_count(1)
    first.reload()
    expect(first.get_by_text("This device was signed out.")).to_be_visible()
    expect(first.get_by_role("heading", name="Sign in")).to_be_visible()
    shot(first, f"account-signed-out-{size}")

    # Someone else tries passwords for "ada" until the username's limit is used up; the first
    # browser, which signed in to the account before, still gets in (its device key).
    assert use_up_sign_ins(base, "ada") == 429
    stranger = new_page(**options)  # a browser that never signed in to the account is held back
    open_account(stranger, base)
    stranger.get_by_label("Username").fill("ada")
    stranger.get_by_label("Password").fill(PASSWORD)
    stranger.get_by_role("button", name="Sign in", exact=True).click()
    expect(stranger.get_by_role("alert")).to_have_text(
        re.compile(
            r"^Too many sign-ins were tried for this username\. Try again in \d+ seconds?, or sign in with a passkey\.$"
        )
    )
    shot(stranger, f"account-held-back-{size}")
    first.get_by_label("Username").fill("ada")
    first.get_by_label("Password").fill(PASSWORD)
    first.get_by_role("button", name="Sign in", exact=True).click()
    expect(first.get_by_text("Signed in as ada (playing as Ada).")).to_be_visible()

    # Signing out the last device leaves the sign-in form.
    third.get_by_role("button", name="Sign out", exact=True).click()
    expect(third.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(third.get_by_text(re.compile("Sign in to play as yourself"))).to_be_visible()


def use_up_sign_ins(base: str, username: str) -> int:
    """Wrong passwords for ``username`` until refused for it; the refusal's status."""
    for _ in range(20):
        body = json.dumps({"username": username, "password": "not the password"}).encode()
        req = urllib.request.Request(base + "/api/sessions", body, {"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req, timeout=10)
        except urllib.error.HTTPError as e:
            if e.code != 401:
                assert json.loads(e.read())["error"]["limit"] == "login_account"
                return e.code
    return 0


def new_player(base: str, name: str) -> dict:
    body = json.dumps({"name": name}).encode()
    req = urllib.request.Request(
        base + "/api/players", body, {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def sign_in_with_passkey(page: Page, base: str, credential: dict) -> Page:
    """``page`` on the account page, its own authenticator holding ``credential``, after
    pressing "Sign in with a passkey"."""
    open_account(page, base)
    cdp, authenticator = virtual_authenticator(page)
    cdp.send("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": credential})  # type: ignore[attr-defined]
    page.get_by_role("button", name="Sign in with a passkey").click()
    return page


def passkeys_of(base: str, player: dict) -> list:
    req = urllib.request.Request(
        base + "/api/passkeys", headers={"Authorization": f"Bearer {player['token']}"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())["passkeys"]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_passkey_is_listed_and_removed_with_the_keyboard_and_signs_in_no_more(
    server, new_page, console, size
):
    console.allow(r"status of 401 \(Unauthorized\)")  # the removed passkey's sign-in
    options = PHONE if size == "phone" else DESKTOP
    base = server.replace("127.0.0.1", "localhost")
    ada = new_player(base, "Ada")
    page = new_page(**options)
    page.goto(base + "/")
    identity = {k: ada[k] for k in ("player_id", "name", "token")}
    page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", identity)
    open_account(page, base)
    expect(page.get_by_text("No passkeys yet: add one to sign in without a password.")).to_be_visible()

    cdp, authenticator = virtual_authenticator(page)
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_text("1 passkey.")).to_be_visible()
    credential = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"][0]  # type: ignore[attr-defined]
    assert len(passkeys_of(base, ada)) == 1
    device = device_label(page.evaluate("navigator.userAgent"))
    rows = page.get_by_role("list", name="Your passkeys").get_by_role("listitem")
    expect(rows).to_have_count(1)
    expect(rows.first.locator(".device-name")).to_have_text(device)
    expect(rows.first).to_contain_text("Added ")
    expect(page.get_by_text("Signing out everywhere does not remove passkeys.", exact=False)).to_be_visible()
    shot(page, f"passkeys-listed-{size}")

    # With the keyboard: Remove asks first; Escape keeps it; Yes removes it.
    remove = rows.first.get_by_role("button", name=re.compile("^Remove the passkey from"))
    remove.focus()
    page.keyboard.press("Enter")
    question = page.get_by_role("group", name=f"Confirm removing the passkey from {device}")
    expect(question).to_contain_text("Remove this passkey? It will no longer sign in.")
    expect(question.get_by_role("button", name="Keep it")).to_be_focused()
    shot(page, f"passkeys-confirm-{size}")
    page.keyboard.press("Escape")
    expect(question).to_have_count(0)
    expect(remove).to_be_focused()
    assert len(passkeys_of(base, ada)) == 1
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    expect(question.get_by_role("button", name="Yes, remove")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_text(f"Removed the passkey from {device}.")).to_be_visible()
    expect(page.get_by_text("No passkeys yet: add one to sign in without a password.")).to_be_visible()
    expect(page.locator(".passkey-list li")).to_have_count(0)
    assert passkeys_of(base, ada) == []
    shot(page, f"passkeys-removed-{size}")

    # Another browser holding that passkey cannot sign in with it.
    other = sign_in_with_passkey(new_page(**options), base, credential)
    expect(other.get_by_role("alert")).not_to_be_empty()
    expect(other.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(other.get_by_text("Signed in as")).to_have_count(0)


def test_a_sign_up_limit_is_said_in_words(server, new_page, console):
    console.allow(r"status of 429 \(Too Many Requests\)")
    ada = new_player(server, "Ada")
    # Usernames tried from this address (each refused, each counted) until the limit holds.
    for attempt in range(20):
        body = json.dumps({"username": f"name{attempt}"}).encode()  # no password: 400, counted
        req = urllib.request.Request(
            server + "/api/account/password",
            body,
            {"Content-Type": "application/json", "Authorization": f"Bearer {ada['token']}"},
        )
        try:
            urllib.request.urlopen(req, timeout=10)
        except urllib.error.HTTPError as e:
            if e.code == 429:
                break
    else:
        pytest.fail("the sign-up limit never held")
    page = new_page(**PHONE)
    page.add_init_script(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(ada))});")
    open_account(page, server)
    page.get_by_label("Username").first.fill("ada")
    page.get_by_label("Password (8 characters or more)").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_have_text(
        re.compile(r"^Too many usernames were tried from your network\. Try again in \d+ seconds?\.$")
    )


def test_the_browser_keeps_a_device_key_per_username_for_its_last_eight_accounts(server, new_page):
    page = new_page(**DESKTOP)
    page.goto(server + "/")
    kept = page.evaluate(
        """async () => {
            const { store } = await import("./js/store.js");
            for (let i = 1; i <= 10; i++) store.saveDeviceKey(`Player${i}`, `key${i}`);
            store.saveDeviceKey("player3", "key3b");  // saved again: the newest, not dropped
            store.saveDeviceKey("\\uff21\\uff24\\uff21", "ada-key");  // fullwidth ADA
            return {
                ada: store.deviceKey(" ada "),
                first: store.deviceKey("player1"),
                second: store.deviceKey("Player2"),
                third: store.deviceKey("PLAYER3"),
                fourth: store.deviceKey("player4"),
                last: store.deviceKey("player10"),
                count: Object.keys(JSON.parse(localStorage.getItem("ginrummy.devices"))).length,
            };
        }"""
    )
    assert kept == {
        "ada": "ada-key",
        "first": None,
        "second": None,
        "third": "key3b",
        "fourth": None,
        "last": "key10",
        "count": 8,
    }
