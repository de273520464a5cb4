"""Exports (docs/protocol.md, "Exports"): one match as JSON or in the text notation
(docs/notation.md), and every finished match of a player, read line by line from the server's
NDJSON stream as it arrives (never the whole stream in memory).

Mixed into :class:`~ginrummy_client.rest.GinRummyClient`; only HTTP to the base URL.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

from .errors import ServerError

FORMATS = ("json", "text")


class ExportsMixin:
    base_url: str
    token: str | None
    timeout: float

    async def request(self, method: str, path: str, body: Any = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _auth(self) -> None:  # pragma: no cover
        raise NotImplementedError

    async def export(self, match_id: str, format: str = "json") -> Any:
        """The match exported for this player's seat: a dict (``format="json"``, an
        ExportedMatch) or the text notation (``format="text"``, a str). A match in play shows
        only what this seat may see."""
        if format not in FORMATS:
            raise ValueError(f"format must be one of {list(FORMATS)}")
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id, safe='')}/export?format={format}"
        answer = await self.request("GET", path)
        if format == "text" and not isinstance(answer, str):  # (a text that looked like JSON)
            return json.dumps(answer)
        return answer

    async def export_all(self, player_id: str = "me") -> AsyncIterator[dict[str, Any]]:
        """Every finished match of this player (``player_id``: its id, or ``me``), newest first,
        one ExportedMatch dict at a time as the stream arrives."""
        self._auth()
        from .rest import USER_AGENT, _error_from  # (rest imports this module)

        req = urllib.request.Request(
            f"{self.base_url}/api/players/{urllib.parse.quote(player_id, safe='')}/export"
        )
        req.add_header("Accept", "application/x-ndjson")
        req.add_header("User-Agent", USER_AGENT)
        req.add_header("Authorization", f"Bearer {self.token}")

        def open_stream() -> Any:
            try:
                return urllib.request.urlopen(req, timeout=self.timeout)
            except urllib.error.HTTPError as err:
                raw = err.read().decode("utf-8", "replace")
                try:
                    payload: Any = json.loads(raw)
                except json.JSONDecodeError:
                    payload = raw
                raise _error_from(err.code, payload, err.headers.get("Retry-After")) from None

        resp = await asyncio.to_thread(open_stream)
        try:
            while True:
                line = await asyncio.to_thread(resp.readline)
                if not line:
                    return
                if not line.endswith(b"\n"):
                    raise ServerError("unavailable", "the export stream ended halfway through a match")
                yield json.loads(line)
        finally:
            resp.close()
