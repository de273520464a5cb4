"""Transport adapter: the aiohttp app (REST, WebSocket, OpenAPI, static client). It translates
between the wire and the service and holds no game logic."""
