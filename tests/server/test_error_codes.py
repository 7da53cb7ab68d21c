"""Every error answer in the documented body, with a documented code (issue 31, finding 4).
Paths no route takes, methods a path does not take and bad query parameters used to answer
FastAPI's own ``{"detail": "Not Found"}``; and the list of codes in docs/web.md had fallen
behind the server (``auth.not_seated`` was missing). The last test keeps the two in step."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from fieldcraft.core.errors import FieldcraftError
from fieldcraft.server import errors as E
from tests.server.helpers import ROOT, create_table

SERVER = ROOT / "fieldcraft" / "server"
DOCS = ROOT / "docs" / "web.md"
NAMESPACES = ("request", "auth", "table", "move", "rules", "chat", "server", "limits", "deduce",
              "feedback", "playtest")
CODE = re.compile(r"^(?:" + "|".join(NAMESPACES) + r")\.[a-z_]+$")


def documented_error(res: Any, status: int, code: str) -> dict[str, Any]:
    assert res.status_code == status, res.text
    assert res.headers["content-type"] == "application/json"
    body = res.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code and body["error"]["message"], body
    assert E.STATUS[code] == status
    assert "content-security-policy" in res.headers
    return body["error"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("method, path, status, code", [
    ("GET", "/api/tables/..%2f..%2fetc%2fpasswd", 404, "request.not_found"),
    ("GET", "/api/tables/x/..%2f..%2f", 404, "request.not_found"),
    ("GET", "/static/..%2f..%2fapp.py", 404, "request.not_found"),
    ("GET", "/static/nothere.js", 404, "request.not_found"),
    ("GET", "/api/nothere", 404, "request.not_found"),
    ("GET", "/nothere", 404, "request.not_found"),
    ("GET", "/t/x/y/z", 404, "request.not_found"),
    ("GET", "/ws/x", 404, "request.not_found"),  # a socket's path, asked for over HTTP
    ("POST", "/api/nothere", 404, "request.not_found"),
    ("DELETE", "/api/tables", 405, "request.method_not_allowed"),
    ("PUT", "/api/tables/x/join", 405, "request.method_not_allowed"),
    ("POST", "/", 405, "request.method_not_allowed"),
    ("PATCH", "/healthz", 405, "request.method_not_allowed"),
    ("GET", "/api/tables?limit=x", 400, "request.bad_request"),
    ("GET", "/api/tables?offset=-1", 400, "request.bad_request"),
    ("GET", "/api/tables/x/analysis", 400, "request.bad_request"),
])
def test_framework_refusals_answer_in_the_documented_body(
        client: TestClient, method: str, path: str, status: int, code: str) -> None:
    error = documented_error(client.request(method, path), status, code)
    assert "detail" not in error


def test_a_wrong_method_says_which_ones_the_path_takes(client: TestClient) -> None:
    res = client.delete("/api/tables")
    documented_error(res, 405, "request.method_not_allowed")
    assert res.headers["allow"] == "GET" and "GET" in res.json()["error"]["message"]


def test_nothing_changes_on_a_framework_refusal(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    hub = client.app.state.hub  # type: ignore[attr-defined]
    before = set(hub.rooms), hub.rooms[made["id"]].seats.public()
    documented_error(client.delete(f"/api/tables/{made['id']}"), 405,
                     "request.method_not_allowed")
    documented_error(client.put(f"/api/tables/{made['id']}/join", json={}), 405,
                     "request.method_not_allowed")
    assert (set(hub.rooms), hub.rooms[made["id"]].seats.public()) == before


def test_a_socket_to_an_unknown_path_gets_an_error_and_is_closed(client: TestClient) -> None:
    for path in ("/nothere", "/ws/x/y", "/api/tables"):
        with client.websocket_connect(path) as ws:
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error" and reply["code"] == "request.not_found", reply
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4404


# -- the code list --------------------------------------------------------------------------------
def codes_in_the_server() -> dict[str, str]:
    """Every code the server can send, and where it was found: the statuses' table, every
    ``E.NAME`` the server's modules use, every code-shaped string literal in them, and the
    ``code`` of every error class loaded with the app (the engine's ``rules.*``, the deduction
    report's ``deduce.*``, the limits')."""
    import fieldcraft.core.deduction  # noqa: F401 - its errors reach the deduction route
    import fieldcraft.server.app  # noqa: F401 - loads every route and the errors they raise

    found = {code: "errors.STATUS" for code in E.STATUS}
    for path in sorted(SERVER.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        for name in re.findall(r"\bE\.([A-Z][A-Z_]*)\b", text):
            value = getattr(E, name)
            assert isinstance(value, str) and CODE.match(value), (where, name)
            found.setdefault(value, where)
        for literal in re.findall(r"""["']([a-z_]+\.[a-z_]+)["']""", text):
            if CODE.match(literal) and literal.split(".")[1] not in ("html", "py", "js"):
                found.setdefault(literal, where)
    classes = [FieldcraftError]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        code = cls.__dict__.get("code")
        if isinstance(code, str) and cls is not FieldcraftError:
            found.setdefault(code, f"{cls.__module__}.{cls.__name__}")
    return found


def codes_in_the_docs() -> set[str]:
    text = DOCS.read_text(encoding="utf-8")
    return {c for c in re.findall(r"`([a-z_]+\.[a-z_]+)`", text) if CODE.match(c)
            and c.split(".")[1] not in ("html", "py", "js", "css", "json", "md")}


def test_the_docs_list_every_code_the_server_sends_and_no_other() -> None:
    server, docs = codes_in_the_server(), codes_in_the_docs()
    undocumented = {code: where for code, where in server.items() if code not in docs}
    assert undocumented == {}, "codes the server sends that docs/web.md does not list"
    assert docs - set(server) == set(), "codes docs/web.md lists that the server never sends"


def test_every_code_the_server_raises_has_a_status() -> None:
    """A code outside ``STATUS`` would be answered 400 whatever it means."""
    missing = {code: where for code, where in codes_in_the_server().items()
               if code not in E.STATUS and not code.startswith(("rules.", "deduce."))}
    assert missing == {}
