"""The server runs on uvloop when it is installed and wanted, else on asyncio's own loop; the
settings that choose it (WebSocket compression too) come from the environment."""

from __future__ import annotations

import builtins
import sys

import pytest

from server.__main__ import event_loop
from server.config import Settings


def test_uvloop_when_installed_and_wanted_else_asyncio(monkeypatch):
    uvloop = pytest.importorskip("uvloop")
    loop = event_loop(True)
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
    loop = event_loop(False)
    try:
        assert not isinstance(loop, uvloop.Loop)
    finally:
        loop.close()

    real_import = builtins.__import__

    def no_uvloop(name, *args, **kwargs):
        if name == "uvloop":
            raise ImportError("not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "uvloop")
    monkeypatch.setattr(builtins, "__import__", no_uvloop)
    loop = event_loop(True)  # wanted but not installed: asyncio's, no error
    try:
        assert type(loop).__module__.startswith("asyncio")
    finally:
        loop.close()


def test_compression_is_off_and_uvloop_on_by_default_and_the_environment_turns_them():
    default = Settings.from_env({})
    assert default.ws_compress is False and default.uvloop is True
    turned = Settings.from_env({"GINRUMMY_WS_COMPRESS": "1", "GINRUMMY_UVLOOP": "0"})
    assert turned.ws_compress is True and turned.uvloop is False
    with pytest.raises(ValueError, match="GINRUMMY_WS_COMPRESS"):
        Settings.from_env({"GINRUMMY_WS_COMPRESS": "maybe"})


@pytest.mark.parametrize("compress", [False, True])
async def test_the_compression_a_browser_offers_is_accepted_only_when_turned_on(make_client, compress):
    client = await make_client(ws_compress=compress)
    ws = await client.ws_connect("/ws", compress=15)  # what browsers offer
    try:
        assert bool(ws.compress) is compress
    finally:
        await ws.close()
