"""Each game's browser assets, served from its own folder (only the files its SPEC names)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from fieldcraft.core.errors import UnknownGameError
from fieldcraft.server import errors as E
from fieldcraft.server.catalogue import asset
from fieldcraft.server.errors import TableError

router = APIRouter()


@router.get("/games/{game}/{name}")
async def game_asset(game: str, name: str) -> Response:
    try:
        found = asset(game, name)
    except UnknownGameError:
        found = None
    if found is None:
        raise TableError(E.NOT_FOUND, f"{game} has no browser file {name!r}")
    content, media = found
    return Response(content, media_type=media, headers={"Cache-Control": "no-cache"})
