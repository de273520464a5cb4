"""The aiohttp application: REST API, WebSocket, OpenAPI and docs, metrics, health and the static
browser client, built by :func:`create_app` from :class:`~server.config.Settings`.

Every resource (database engine, migrations, service, rate limiter) is opened in
``cleanup_ctx`` and closed in reverse order; on shutdown open sockets are closed with
``GOING_AWAY`` and writes in flight are committed before the engine is disposed. Handlers reach
state only through typed ``web.AppKey``s, never module globals. This module holds no game logic.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
from aiohttp import WSCloseCode, web
from sqlalchemy.ext.asyncio import AsyncEngine

from server.config import Settings
from server.service import Broadcaster, InProcessBroadcaster, MatchService, Metrics
from server.service.admission import Busy
from server.service.errors import RateLimited, ServiceError, TooLarge, Unavailable
from server.service.ladder import LadderSettings
from server.service.thinking import ThinkingPool
from server.service.timecontrol import Timing
from server.storage import create_engine, dispose, error_code, store_unreachable, upgrade
from server.storage.group_commit import GroupCommitStore
from server.wire.messages import ErrorDetail, ErrorResponse

from . import errors as wire_errors
from .keys import BROADCASTER, COMMITS, ENGINE, LIMITER, METRICS, SERVICE, SETTINGS, SOCKETS
from .openapi import DOCS_STYLE_HASH
from .proxy import forwarded_middleware
from .ratelimit import RestLimiter, SharedRedis

log = logging.getLogger("server.transport")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


_encoder = msgspec.json.Encoder()


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """``data`` (a wire Struct, or a document) as JSON."""
    return web.Response(
        body=_encoder.encode(data), status=status, content_type="application/json", headers=headers
    )


def error_response(error: ServiceError) -> web.Response:
    status = wire_errors.status(error)
    headers = {}
    # When to come back, in whole seconds: a rate limit's reset, a busy server's wait.
    wait = (
        error.reset_in
        if isinstance(error, RateLimited)
        else error.retry_in
        if isinstance(error, Busy)
        else None
    )
    if wait is not None:
        headers["Retry-After"] = str(max(1, int(wait + 0.999)))
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="ginrummy"'
    return json_response(ErrorResponse(wire_errors.detail(error)), status=status, headers=headers)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as ``{"error": {"code", "message"}}`` with its status (one place)."""
    metrics = request.app[METRICS]
    started = time.perf_counter()
    route = request.match_info.route.resource.canonical if request.match_info.route.resource else "other"
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except ServiceError as e:
        status = wire_errors.status(e)
        if isinstance(e, RateLimited):
            metrics.rate_limited.labels(e.limit).inc()
        return error_response(e)
    except web.HTTPRequestEntityTooLarge:
        status = 413
        return error_response(
            TooLarge(f"the body is larger than {request.app[SETTINGS].limits.http_max_body} bytes")
        )
    except web.HTTPException as e:
        status = e.status
        if e.status < 400:
            raise
        code = wire_errors.HTTP_CODE.get(e.status, "bad_request" if e.status < 500 else "internal")
        allow = (
            {"Allow": ", ".join(sorted(e.allowed_methods))}
            if isinstance(e, web.HTTPMethodNotAllowed)
            else None
        )
        return json_response(ErrorResponse(ErrorDetail(code, e.reason)), status=e.status, headers=allow)  # type: ignore[arg-type]
    except Exception as e:
        if store_unreachable(e):
            status = 503
            log.warning(
                "database unavailable",
                extra={"path": request.path, "error": type(e).__name__, "code": error_code(e)},
            )
            return error_response(Unavailable("the database is busy or unreachable: try again in a moment"))
        log.exception("unhandled error", extra={"path": request.path})
        return json_response(ErrorResponse(ErrorDetail("internal", "internal server error")), status=500)
    finally:
        if route != "/ws":
            metrics.http_requests.labels(request.method, route, str(status)).inc()
            metrics.http_seconds.labels(route).observe(time.perf_counter() - started)


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The browser client loads nothing from elsewhere, runs no inline script and is never framed."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    # Watch and invite links carry secrets: never send them on to another site.
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every response (files, API, errors): :data:`SECURITY_HEADERS`; the API docs page
    also allows its one inline style, by hash."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path == "/api/docs":
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.replace(
            "style-src 'self'", f"style-src '{DOCS_STYLE_HASH}'"
        )


async def database_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    engine: AsyncEngine = create_engine(settings.database_url)
    if settings.migrate:
        try:
            await upgrade(engine)
        except BaseException:
            await engine.dispose()
            raise
    app[ENGINE] = engine
    yield
    await dispose(engine)  # after the health probe in flight, if any


async def postgres_broadcaster_ctx(app: web.Application) -> AsyncIterator[None]:
    """With ``broadcast = "postgres"``: changes reach the other server processes by
    LISTEN/NOTIFY (and theirs reach us)."""
    from server.storage.notify import PostgresBroadcaster

    # Transactional: the store sends each notification inside the commit of its change (see
    # service_ctx), so other processes hear of a version exactly when it exists.
    broadcaster = await PostgresBroadcaster.connect(app[SETTINGS].database_url, transactional=True)
    app[BROADCASTER] = broadcaster
    try:
        yield
    finally:
        await broadcaster.close()


def service_ctx(
    broadcaster: Broadcaster | None, bot_factory: Callable[[str, str], Any] | None
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        kwargs: dict[str, Any] = {}
        if bot_factory is not None:
            kwargs["bot_factory"] = bot_factory
        chosen = broadcaster if broadcaster is not None else app.get(BROADCASTER) or InProcessBroadcaster()
        # Many matches' writes share each transaction (see server/storage/group_commit.py); on
        # Postgres with our own broadcaster, the notification of a change rides in its commit.
        notify = chosen.channel if chosen.transactional else None
        store = GroupCommitStore(
            app[ENGINE],
            notify_channel=notify,
            on_batch=app[METRICS].commit_batch_size.observe,
            sqlite_inline=app[SETTINGS].sqlite_inline,
            sqlite_switch_interval=app[SETTINGS].sqlite_switch_interval,
        )
        app[COMMITS] = store
        workers = app[SETTINGS].bot_workers
        limits = app[SETTINGS].limits
        thinking = None
        if workers > 0:
            thinking = ThinkingPool(workers, on_lighter=app[METRICS].bot_lighter.inc)
            app[METRICS].thinking_queue.set_function(lambda: thinking.pending)
        service = MatchService(
            store,
            bot_delay=app[SETTINGS].bot_delay,
            broadcaster=chosen,
            metrics=app[METRICS],
            thinking=thinking,
            timing=Timing(limits.clock_tick_seconds, limits.claim_seconds, limits.waiting_match_seconds),
            analysis_worlds=limits.analysis_worlds,
            ladder=LadderSettings(app[SETTINGS].ladder_cpu, app[SETTINGS].ladder_references),
            admit_wait=app[SETTINGS].admit_wait,
            **kwargs,
        )
        service.ratings.max_deviation = app[SETTINGS].leaderboard_deviation
        service.start_clocks()
        service.ladder.start()
        # Notifications missed while the broadcaster was reconnecting: check every match.
        chosen.on_gap(service.resync)
        app[SERVICE] = service
        try:
            await service.ratings.sweep()  # rated matches a stopped process finished but never counted
        except Exception:
            log.exception("settling uncounted rated matches failed; the next start retries")
        log.info("service ready", extra={"database": _safe_url(app[SETTINGS].database_url)})
        yield
        await service.close()
        await store.close()
        if thinking is not None:
            thinking.close()

    return ctx


async def limiter_ctx(app: web.Application) -> AsyncIterator[None]:
    limits = app[SETTINGS].limits
    limiter = RestLimiter(
        {
            "players": limits.players_rate,
            "requests": limits.requests_rate,
            "login_account": limits.login_account_rate,
            "login_device": limits.login_device_rate,
            "login_address": limits.login_address_rate,
            "signup": limits.signup_rate,
            "analysis": limits.analysis_rate,
            "hint": limits.hint_rate,
        },
        shared=SharedRedis(url) if (url := app[SETTINGS].rate_limit_storage) else None,
    )
    app[LIMITER] = limiter
    if limiter.shared is not None:
        log.info("rate limits counted in Redis", extra={"url": _safe_url(url)})
    yield
    await limiter.close()


async def close_sockets(app: web.Application) -> None:
    sockets = app[SOCKETS]
    for ws in list(sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def _safe_url(url: str) -> str:
    from sqlalchemy import make_url

    return make_url(url).render_as_string(hide_password=True)


def create_app(
    settings: Settings | None = None,
    *,
    broadcaster: Broadcaster | None = None,
    bot_factory: Callable[[str, str], Any] | None = None,
) -> web.Application:
    """The server application. ``broadcaster`` replaces the in-process fan-out (several
    processes); ``bot_factory`` replaces ``server.bots.make_bot`` (tests)."""
    from . import accounts, analysis_rest, exporting, ladder_rest, lobby_ws, ratings_rest, rest, static, ws

    settings = settings or Settings.from_env()
    middlewares: list[Any] = [errors_middleware]
    if settings.trusted_proxies:
        # Inside errors_middleware, so a malformed X-Forwarded-For is a JSON 400 like any other.
        middlewares.append(forwarded_middleware(settings.trusted_proxies))
    app = web.Application(middlewares=middlewares, client_max_size=settings.limits.http_max_body)
    app[SETTINGS] = settings
    app[METRICS] = Metrics()
    app[SOCKETS] = set()
    app.cleanup_ctx.append(database_ctx)
    if broadcaster is None and settings.broadcast == "postgres":
        app.cleanup_ctx.append(postgres_broadcaster_ctx)
    app.cleanup_ctx.append(service_ctx(broadcaster, bot_factory))
    app.cleanup_ctx.append(limiter_ctx)
    app.on_shutdown.append(close_sockets)
    app.on_response_prepare.append(security_headers)
    rest.setup(app)
    accounts.setup(app)
    ratings_rest.setup(app)
    exporting.setup(app)
    analysis_rest.setup(app)
    ladder_rest.setup(app)
    ws.setup(app)
    lobby_ws.setup(app)
    static.setup(app)
    return app
