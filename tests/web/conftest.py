"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, the real server
(``python -m server``) on a free port, pages that record console errors, and screenshots saved
under ``test-artifacts/web/``.

The browser tests never skip: when ``/usr/bin/chromium`` is missing they fail saying so (CI
installs it), because a silently skipped browser test would hide a broken client.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.live_server import live_server

from .table import ARTIFACTS

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Chromium, launched for each test file: Playwright's synchronous API keeps its event loop
    marked running on the thread until it stops, so an async test that a worker runs after a
    browser test file (the suite runs on two workers) needs it stopped."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run "
            "the browser tests; Playwright cannot download a browser here",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The base URL of a fresh server with its own SQLite database."""
    with live_server(tmp_path) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One fresh server shared by a test file's tests (those that feed the table exact views,
    or set up their own players, need no server each)."""
    with live_server(tmp_path_factory.mktemp("site")) as url:
        yield url


class Console:
    """Every console error and uncaught exception of the pages opened in one test."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def watch(self, page) -> None:
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{page.url}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: uncaught {e}"))

    def allow(self, pattern: str) -> None:
        """Accept errors matching ``pattern`` (e.g. Chromium's own report of a refused WebSocket
        while the test has stopped the server on purpose)."""
        self.allowed.append(re.compile(pattern))

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]


@pytest.fixture
def console() -> Console:
    return Console()


@pytest.fixture
def new_page(browser, console: Console, request: pytest.FixtureRequest) -> Iterator[Callable]:
    """``new_page(**context_options)``: a page in a fresh browser context (its own storage, so
    its own player), watched for console errors; a screenshot of each is kept at the end."""
    contexts = []
    pages = []

    def make(**options):
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        console.watch(page)
        pages.append(page)
        return page

    yield make
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for i, page in enumerate(pages):
        # The page may be gone already; the screenshot is only an aid.
        with contextlib.suppress(PlaywrightError):
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-end-{i}.png"), full_page=True)
    for context in contexts:
        context.close()
    assert console.unexpected() == [], "errors in the browser console"
