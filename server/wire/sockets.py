"""The WebSocket messages, both ways: on ``/ws`` (``hello``, ``act``, ``ping``; the server sends
``state``, ``ack``, ``error``, ``pong``) and on the lobby socket ``/ws/lobby`` (whose seeks live
in :mod:`.seeks`), tagged by ``type``. Nothing here does I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta

from .actions import Action
from .errors import Error
from .fields import STORABLE, Version, _Wire
from .pace import Pace  # the computer's pace, in hello
from .seeks import CancelSeek, Paired, Seek, SeekCancelled, Seeking
from .views import View

ClientId = Annotated[
    str, Meta(min_length=1, max_length=64, pattern=STORABLE, description="The client's id for this action")
]


class Hello(_Wire, tag="hello", tag_field="type"):
    """Bind this socket to a seat (player token) or as a watcher (watch token)."""

    match: Annotated[str, Meta(min_length=1, max_length=64, pattern=STORABLE)]
    token: Annotated[str, Meta(min_length=1, max_length=128, pattern=STORABLE)]
    version: Annotated[Version | None, Meta(description="The last version the client saw (on reconnect)")] = (
        None
    )
    pace: Pace = UNSET


class Act(_Wire, tag="act", tag_field="type"):
    """Play ``action`` at ``version``; answered by ``ack`` (or ``error``) naming ``id``."""

    id: ClientId
    version: Version
    action: Action


class Ping(_Wire, tag="ping", tag_field="type"):
    pass


ClientMessage = Hello | Act | Ping


class State(_Wire, tag="state", tag_field="type"):
    """The seat's whole view, after every change (and in answer to hello)."""

    version: Version
    view: View


class Ack(_Wire, tag="ack", tag_field="type"):
    id: str
    version: Version


class Pong(_Wire, tag="pong", tag_field="type"):
    pass


ServerMessage = State | Ack | Error | Pong


LobbyClientMessage = Seek | CancelSeek | Ping
LobbyServerMessage = Seeking | Paired | SeekCancelled | Error | Pong
