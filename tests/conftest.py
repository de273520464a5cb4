"""Shared fixtures for the server tests: settings on a temporary SQLite database with no bot
pause, and an ``aiohttp_client`` bound to ``create_app``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from server.config import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'test.db'}", bot_delay=0.0)


@pytest.fixture
def make_client(aiohttp_client: Callable, settings: Settings) -> Callable:
    """``await make_client(**setting_changes)``: a test client of a fresh app (same database
    file unless ``database_url`` is changed)."""
    from server.transport.app import create_app

    async def make(**changes):
        return await aiohttp_client(create_app(settings.with_(**changes)))

    return make
