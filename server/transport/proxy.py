"""Behind a reverse proxy: the client's address, scheme and host from ``X-Forwarded-For``,
``X-Forwarded-Proto`` and ``X-Forwarded-Host``, believed only when the request comes straight
from one of :attr:`~server.config.Settings.trusted_proxies`.

The headers are read by ``aiohttp-remotes`` (``XForwardedFiltered``: the client is the
right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy; a malformed or
repeated header is a 400; without ``X-Forwarded-For`` the other two are not read either, and
nginx always sends it). That class alone believes the headers from any peer, so it runs only
for a trusted peer; from any other the request is left exactly as it arrived. Everything after
it (the rate limits on ``request.remote``, the WebSocket ``Origin`` check on ``request.host``,
the ``ws_url`` and invite links) sees the rewritten request and needs nothing more.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web
from aiohttp_remotes import XForwardedFiltered

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def forwarded_middleware(
    trusted: Iterable[str],
) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """A middleware that applies ``X-Forwarded-*`` from the ``trusted`` addresses or networks."""
    networks = [ipaddress.ip_network(t, strict=False) for t in trusted]
    library = XForwardedFiltered(set(networks))

    @web.middleware
    async def forwarded(request: web.Request, handler: Handler) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        try:
            address = ipaddress.ip_address(peer[0]) if isinstance(peer, tuple) else None
        except ValueError:
            address = None
        if address is None or not any(address in network for network in networks):
            return await handler(request)
        return await library.middleware(request, handler)

    return forwarded
