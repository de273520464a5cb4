"""What an operator watches: /metrics shows live matches, sockets, actions (a counter, for a
rate), latency histograms and errors; the log lines of a match carry its id."""

from __future__ import annotations

import json
import logging
import random

from prometheus_client.parser import text_string_to_metric_families

from tests.transport.helpers import Socket, choose, new_match, new_player


async def scrape(client) -> dict[str, float]:
    r = await client.get("/metrics")
    assert r.status == 200
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(await r.text()):
        for s in family.samples:
            key = s.name + (
                "{" + ",".join(f"{k}={v}" for k, v in sorted(s.labels.items())) + "}" if s.labels else ""
            )
            out[key] = s.value
    return out


async def test_metrics_show_live_matches_sockets_actions_latencies_and_errors(make_client, caplog):
    caplog.set_level(logging.DEBUG)
    client = await make_client()
    ada = await new_player(client)
    match = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.hello(match["match_id"], ada["token"])
    rng = random.Random(1)
    acked = 0
    # Act six times, then wait for our turn again so that the computer is done moving (its
    # actions, commits and log lines are then all counted when /metrics is read).
    while True:
        msg = sock.state if sock.state and sock.state["view"]["hand"]["legal_actions"] else None
        if msg is None:
            await sock.recv_until("state")
            continue
        if acked == 6:
            break
        await sock.act(choose(msg["view"], rng))
        await sock.recv_until("ack")
        acked += 1
        sock.state = None
        await sock.recv_until("state")
    await sock.send({"type": "act", "id": "bad", "version": 0, "action": {"kind": "fly"}})
    error = await sock.recv_until("error")
    assert error["code"] == "bad_request"

    m = await scrape(client)
    assert m["ginrummy_live_matches"] == 1
    assert m["ginrummy_ws_connections"] == 1
    human = sum(v for k, v in m.items() if k.startswith("ginrummy_actions_total{") and "by=human" in k)
    computer = sum(v for k, v in m.items() if k.startswith("ginrummy_actions_total{") and "by=computer" in k)
    assert human == 6 and computer >= 1
    assert m["ginrummy_action_seconds_count"] == 6
    assert 0 < m["ginrummy_action_seconds_sum"] < 6
    assert m["ginrummy_action_seconds_bucket{le=0.1}"] <= 6
    assert m["ginrummy_commit_seconds_count"] == human + computer
    assert (
        m["ginrummy_commit_batch_size_count"] >= 1 and m["ginrummy_commit_batch_size_sum"] == human + computer
    )
    assert m["ginrummy_ws_errors_total{code=bad_request}"] == 1
    # A malformed action is refused where the message is decoded, before it is an action.
    assert "ginrummy_action_errors_total{code=bad_request}" not in m
    assert any(k.startswith("ginrummy_http_seconds_bucket") for k in m)

    # Every log line about this match names it; none names a card.
    lines = [r for r in caplog.records if getattr(r, "kind", None) is not None and r.msg == "action"]
    assert len(lines) == human + computer
    # Per-action lines are debug: the default level (info) does not pay for them.
    assert all(r.levelno == logging.DEBUG for r in lines)
    assert all(r.match_id == match["match_id"] for r in lines)
    from server.service.logs import JsonFormatter

    formatted = [json.loads(JsonFormatter().format(r)) for r in lines]
    assert all("card" not in f and f["match_id"] == match["match_id"] for f in formatted)


async def test_metrics_show_the_thinking_queue_and_hard_decisions_made_lighter(make_client):
    from server.transport.keys import SERVICE

    client = await make_client(bot_workers=1)
    pool = client.server.app[SERVICE].thinking
    pool.queue_limit = 0  # every Hard decision finds the queue "full": all of them are lighter
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty="hard")
    sock = await Socket.connect(client)
    state = await sock.hello(match["match_id"], ada["token"])
    rng = random.Random(2)
    # Until the computer has moved and is done (our turn): no decision is pending then.
    while not (1 in _movers(state) and state["view"]["hand"]["legal_actions"]):
        if state["view"]["hand"]["legal_actions"]:
            await sock.act(choose(state["view"], rng))
        state = await sock.recv_until("state")
    m = await scrape(client)
    assert m["ginrummy_bot_lighter_total"] >= 1
    assert m["ginrummy_thinking_queue"] == 0


def _movers(state) -> list[int]:
    return [entry["seat"] for entry in state["view"]["hand"]["history"]]


def test_a_labelled_child_is_made_once_and_counts_into_the_registry():
    from server.service.metrics import Metrics

    m = Metrics()
    first = m.labelled(m.actions, "discard", "human")
    assert m.labelled(m.actions, "discard", "human") is first
    assert m.labelled(m.actions, "discard", "computer") is not first
    first.inc()
    m.labelled(m.actions, "discard", "human").inc()
    families = {f.name: f for f in text_string_to_metric_families(m.render().decode())}
    counts = {
        tuple(sorted(s.labels.items())): s.value
        for s in families["ginrummy_actions"].samples
        if s.name.endswith("_total")
    }
    assert counts[(("by", "human"), ("kind", "discard"))] == 2
