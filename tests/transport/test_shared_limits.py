"""The REST rate limits counted in Redis (``GINRUMMY_RATE_LIMIT_STORAGE``): two replicas share
each limit instead of allowing it twice, and an unreachable Redis never fails a request (each
process counts alone for a while). Uses the machine's Redis at 127.0.0.1:6379; skipped, saying
so, when none answers there."""

from __future__ import annotations

import logging
import socket
import uuid

import pytest

from server.config import Limits
from server.service.errors import RateLimited
from server.transport.ratelimit import RETRY_SECONDS, RestLimiter, SharedRedis
from tests.accounts.test_rest import sign_in, sign_up
from tests.transport.helpers import new_player

REDIS = "redis://127.0.0.1:6379/0"
NOBODY = "redis://127.0.0.1:9/0"
"""The discard port: nothing listens there."""


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


needs_redis = pytest.mark.skipif(not _redis_answers(), reason=f"Redis is not reachable at {REDIS}")


@needs_redis
async def test_two_processes_counting_in_redis_share_one_limit() -> None:
    key = f"client-{uuid.uuid4().hex}"  # this run's own key in the shared database
    one = RestLimiter({"requests": "3/minute"}, shared=SharedRedis(REDIS))
    two = RestLimiter({"requests": "3/minute"}, shared=SharedRedis(REDIS))
    await one.hit("requests", key)
    await two.hit("requests", key)
    await one.hit("requests", key)
    with pytest.raises(RateLimited) as refused:
        await two.hit("requests", key)  # its own first request: the limit is the pair's
    assert refused.value.limit == "requests" and 0 < refused.value.reset_in <= 60
    await two.hit("requests", f"{key}-other")  # another client has its own count
    await one.close()
    await two.close()


async def test_an_unreachable_redis_leaves_each_process_counting_alone_and_says_so(caplog) -> None:
    now = [1000.0]
    limiter = RestLimiter({"requests": "2/minute"}, shared=SharedRedis(NOBODY), clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="server.transport"):
        await limiter.hit("requests", "ada")  # Redis fails: counted here, and answered
        await limiter.hit("requests", "ada")
        with pytest.raises(RateLimited):
            await limiter.hit("requests", "ada")  # the limit still holds, in this process
    warned = [r for r in caplog.records if "rate limit storage unreachable" in r.getMessage()]
    assert len(warned) == 1  # once, not per request
    assert limiter.alone_until == now[0] + RETRY_SECONDS
    now[0] += RETRY_SECONDS  # time to try Redis again: it fails again, and is said again
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="server.transport"), pytest.raises(RateLimited):
        await limiter.hit("requests", "ada")
    assert [r for r in caplog.records if "rate limit storage unreachable" in r.getMessage()]
    await limiter.close()


@needs_redis
async def test_two_replicas_refuse_the_sign_in_past_the_accounts_limit_together(make_client) -> None:
    """Sign-ins alternate between two servers on one database: the account's limit (3 a
    minute) is reached across both, where each alone would have allowed 3."""
    limits = Limits(login_account_rate="3/minute", login_address_rate="1000/minute")
    one = await make_client(limits=limits, rate_limit_storage=REDIS)
    two = await make_client(limits=limits, rate_limit_storage=REDIS)
    username = f"ada{uuid.uuid4().hex[:12]}"  # a fresh count for this run
    await sign_up(one, await new_player(one), username=username)
    answers = [
        (await sign_in(replica, username=username, password="wrong password")).status
        for replica in (one, two, one, two)
    ]
    assert answers == [401, 401, 401, 429]
    r = await sign_in(one, username=username)  # the right password: still refused, on either
    assert r.status == 429 and (await r.json())["error"]["limit"] == "login_account"


async def test_a_server_whose_redis_is_down_still_answers_and_limits(make_client) -> None:
    client = await make_client(
        limits=Limits(login_account_rate="2/minute", login_address_rate="1000/minute"),
        rate_limit_storage=NOBODY,
    )
    ada = await new_player(client)
    await sign_up(client, ada, username="ada")
    assert [(await sign_in(client, password="wrong password")).status for _ in range(3)] == [401, 401, 429]
