"""A session's device label from the request's User-Agent (the ``ua-parser`` package), e.g.
``"Chrome on Android"``: only for a player to tell their sessions apart."""

from __future__ import annotations

import functools

import ua_parser

from server.service.account_ports import UNKNOWN_DEVICE

MAX_LABEL = 80


@functools.lru_cache(maxsize=1024)
def device_label(user_agent: str | None) -> str:
    """
    >>> device_label("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36")
    'Chrome on Android'
    >>> device_label("ginrummy-client/1.0")
    'ginrummy-client'
    >>> device_label(None)
    'unknown device'
    """
    if not user_agent:
        return UNKNOWN_DEVICE
    result = ua_parser.parse(user_agent[:512])
    browser = result.user_agent.family if result.user_agent and result.user_agent.family != "Other" else None
    system = result.os.family if result.os and result.os.family != "Other" else None
    if browser is None:
        # Not a browser it knows (a script, the Python client): the product's name.
        browser = user_agent.split("/", 1)[0].split(" ", 1)[0].strip() or None
    label = f"{browser} on {system}" if browser and system else browser or system or UNKNOWN_DEVICE
    return "".join(ch for ch in label if ch.isprintable())[:MAX_LABEL]
