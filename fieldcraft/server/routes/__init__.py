"""The web table's routes, one module per kind of client: pages, the JSON API, the game
channel (WebSocket) and the games' browser assets."""
