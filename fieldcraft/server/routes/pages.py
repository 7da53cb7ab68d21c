"""The pages: the lobby, a table, a finished game's replay. Each is a Jinja2 template with the
page catalogue of the chosen language; a table's page also loads its game's board and words."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from markdown_it import MarkdownIt

from fieldcraft.agents.levels import WEB_BOTS
from fieldcraft.core.registry import game_spec, list_games
from fieldcraft.server import catalogue, i18n
from fieldcraft.server import errors as E
from fieldcraft.server.catalogue import assets, game_catalogue
from fieldcraft.server.errors import TableError
from fieldcraft.server.room import Room
from fieldcraft.server.routes.requests import hub_of, script_json

router = APIRouter()
templates = Jinja2Templates(directory=str(resources.files("fieldcraft.server") / "templates"))


def lang_of(request: Request) -> str:
    return i18n.pick_language(request.query_params.get("lang"), request.cookies.get("lang"),
                              request.headers.get("accept-language"))


def page(request: Request, name: str, context: dict[str, Any],
         status_code: int = 200) -> Response:
    lang = lang_of(request)
    t = i18n.Translator(lang)
    ctx = {"t": t, "lang": lang, "languages": i18n.LANGUAGES,
           "catalogue_json": script_json(t.messages), **context}
    game = context.get("game")
    if game is not None:
        spec = game_spec(game)
        ctx["game_assets"] = assets(spec)
        ctx["game_messages_json"] = script_json(i18n.game_messages(spec, lang))
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    if request.query_params.get("lang") in i18n.LANGUAGES:
        response.set_cookie("lang", lang, max_age=365 * 24 * 3600, samesite="lax")
    return response


def table_context(room: Room) -> dict[str, Any]:
    info = room.table_info()
    return {"table_json": script_json(info), "table": info, "game": room.game_name}


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request) -> Response:
    return page(request, "lobby.html", {
        "games_json": script_json(game_catalogue(lang_of(request))),
        "bots_json": script_json(list(WEB_BOTS)),  # one per level (agents/levels.py)
    })


@cache
def _markdown() -> MarkdownIt:
    # CommonMark with tables; html off, so no markup written in a rules file reaches the
    # page (it is shown as text), and markdown-it refuses javascript: and data: links.
    return MarkdownIt("commonmark", {"html": False}).enable("table")


@router.get("/games/{game}/rules", response_class=HTMLResponse)
async def rules_page(request: Request, game: str) -> Response:
    """A game's rules page (its ``rules_pages/<lang>.md``, English if that language has
    none) inside the app's layout."""
    lang = lang_of(request)
    source = None
    if game in list_games():
        source = catalogue.rules_page(game_spec(game), lang)
    if source is None:
        raise TableError(E.NOT_FOUND, f"{game!r} has no rules page")
    return page(request, "rules.html", {"rules_html": _markdown().render(source),
                                        "rules_game": game})


def rules_html(game: str, lang: str) -> str | None:
    """The game's rules page rendered (as on ``/games/<game>/rules``) for the rules drawer of
    a table or a replay, ``None`` for a game without one."""
    source = catalogue.rules_page(game_spec(game), lang)
    return None if source is None else _markdown().render(source)


async def table_or_missing(request: Request, table_id: str, template: str) -> Response:
    room = await hub_of(request).get(table_id)
    if room is None:
        return page(request, "missing.html", {"table_id": table_id}, status_code=404)
    return page(request, template, {**table_context(room),
                                    "drawer_rules": rules_html(room.game_name, lang_of(request))})


@router.get("/t/{table_id}", response_class=HTMLResponse)
async def table_page(request: Request, table_id: str) -> Response:
    return await table_or_missing(request, table_id, "table.html")


@router.get("/t/{table_id}/replay", response_class=HTMLResponse)
async def replay_page(request: Request, table_id: str) -> Response:
    return await table_or_missing(request, table_id, "replay.html")
