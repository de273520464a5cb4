"""Typed application keys: the only way handlers reach shared state."""

from __future__ import annotations

from collections import Counter

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from server.config import Settings
from server.service import Broadcaster, MatchService, Metrics
from server.storage.group_commit import GroupCommitStore

from .heartbeat import Heartbeat
from .page import PageCache
from .ratelimit import RestLimiter

SETTINGS = web.AppKey("settings", Settings)
SERVICE = web.AppKey("service", MatchService)
METRICS = web.AppKey("metrics", Metrics)
ENGINE = web.AppKey("engine", AsyncEngine)
LIMITER = web.AppKey("limiter", RestLimiter)
SOCKETS = web.AppKey("sockets", set[web.WebSocketResponse])
HEARTBEAT = web.AppKey("heartbeat", Heartbeat)
BROADCASTER = web.AppKey("broadcaster", Broadcaster)
PAGE = web.AppKey("page", PageCache)
COMMITS = web.AppKey("commits", GroupCommitStore)
ANALYSING = web.AppKey("analysing", Counter[str])
"""Analyses and hints being worked out now, per client address (server/transport/analysis_rest.py)."""
