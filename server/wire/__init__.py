"""Protocol v1 on the wire: every message and body as a msgspec Struct (:mod:`.messages`), the
rules engine's values converted to them (:mod:`.convert`) and the JSON Schema components
generated from them (:mod:`.schema`).

Depends only on ``server.rules``, the ``server.bots`` difficulty registry (for its names) and
msgspec; no I/O. The transport encodes through these, and service or storage may import them.
"""

from . import convert, messages
from .messages import ClientMessage, ServerMessage

__all__ = ["ClientMessage", "ServerMessage", "convert", "messages"]
