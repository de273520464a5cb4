"""What an open socket keeps: not the headers of its upgrade once they are sent (the security
headers among them), which the client still receives."""

from __future__ import annotations

from server.transport.ws import SOCKET_COUNTS

from .test_ws import human_match


async def test_the_upgrade_headers_are_sent_then_not_kept(make_client):
    client = await make_client()
    m, _, _, _, _ = await human_match(client)
    sock = await client.ws_connect("/ws")
    upgrade = sock._response.headers
    assert upgrade["Upgrade"].lower() == "websocket"
    assert "Content-Security-Policy" in upgrade and "X-Content-Type-Options" in upgrade
    await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
    assert (await sock.receive_json(timeout=10))["type"] == "state"
    watcher = next(c for c in client.server.app[SOCKET_COUNTS].by_match[m["match_id"]] if c.seat is None)
    assert len(watcher.ws.headers) == 0
    await sock.close()
