"""Names and chat against bidi tricks (issue 31, finding 3): Unicode format characters (a
right-to-left override, zero-width spaces) let a name pass for another or turn the text around
it on screen. The server refuses them in names (``request.bad_name``) and chat
(``chat.bad_text``), and the pages isolate every name and chat line (``<bdi>``, ``dir="auto"``,
or FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE where only a string can go), so even a
right-to-left name without any control character cannot reorder the words around it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import CHROMIUM, ROOT, SeatSocket, ServerProcess, create_table

FORMAT_CHARACTERS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
                     "\u2068", "\u2069", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f",
                     "\u2060", "\ufeff", "\u061c", "\U000e0041", "\u2028", "\u2029"]
RTL_NAME = "עדי 42"  # Hebrew and digits: no control character, still reorders its neighbours
RTL_CHAT = "שלום 123 עולם"


@pytest.mark.parametrize("char", FORMAT_CHARACTERS)
def test_names_with_format_characters_are_refused(client: TestClient, char: str) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    tables = set(hub.rooms)
    name = f"Bob{char}exe.gnp"
    res = client.post("/api/tables", json={"game": "spy-tracker", "players": 2,
                                           "seats": ["human", "human"], "name": name})
    assert res.status_code == 400, res.text
    error = res.json()["error"]
    assert error["code"] == "request.bad_name" and f"U+{ord(char):04X}" in error["message"]
    assert set(hub.rooms) == tables
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    res = client.post(f"/api/tables/{made['id']}/join", json={"name": f"A{char}nn"})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_name"
    assert hub.rooms[made["id"]].seats.public()[1]["name"] is None


def test_names_in_other_scripts_are_kept(client: TestClient) -> None:
    for name in (RTL_NAME, "Zoë", "李小龍", "Ann 👍"):
        made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                            name=name)
        assert made["table"]["seats"][0]["name"] == name


@pytest.mark.parametrize("char", FORMAT_CHARACTERS)
def test_chat_with_format_characters_is_refused(client: TestClient, char: str) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        seat = SeatSocket(ws)
        assert seat.hello(made["token"])["type"] == "sync"
        seat.send({"type": "chat", "token": made["token"], "text": f"gg{char} wp", "id": 1})
        reply = seat.until(lambda m: m["type"] in ("error", "chat", "ack"))
        assert reply["type"] == "error" and reply["code"] == "chat.bad_text", reply
        assert f"U+{ord(char):04X}" in reply["message"]
        seat.send({"type": "chat", "token": made["token"], "text": RTL_CHAT, "id": 2})
        assert seat.until(lambda m: m["type"] == "chat")["message"]["text"] == RTL_CHAT
    assert [c.text for c in room.chat] == [RTL_CHAT]


# -- the pages ------------------------------------------------------------------------------------
STATIC = ROOT / "fieldcraft" / "server" / "static"
TEMPLATES = ROOT / "fieldcraft" / "server" / "templates"
NAME_READ = re.compile(r"\b(?:s|you|seat|player)\.name\b")


def test_every_name_the_pages_show_is_isolated() -> None:
    """Without a browser: each place the page scripts read a seat's ``name`` either tests it
    (``s.name ?``) or hands it to ``isolate()``/``bdi()``; the templates wrap each name in
    FSI ... PDI; chat text is a ``dir="auto"`` element."""
    unisolated = []
    for path in sorted(STATIC.glob("*.js")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in NAME_READ.finditer(line):
                before, after = line[:match.start()], line[match.end():]
                if re.search(r"(?:isolate|bdi)\($", before) or re.match(r"\s*\?", after) \
                        or "Tokens" in line:
                    continue
                unisolated.append(f"{path.name}:{number}: {line.strip()}")
    assert unisolated == []
    for path in sorted(TEMPLATES.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\{\{[^}]*\.name\s*\}\}", text):
            assert text[:match.start()].endswith("&#x2068;"), (path.name, match.group())
            assert text[match.end():].startswith("&#x2069;"), (path.name, match.group())
    chat = (STATIC / "chat.js").read_text(encoding="utf-8")
    assert re.search(r'el\("span", \{ class: "chat-text", dir: "auto" \}', chat)
    assert re.search(r'bdi\(seatLabel\(m\.seat\)', chat)
    common = (STATIC / "common.js").read_text(encoding="utf-8")
    assert 'const FSI = "\\u2068", PDI = "\\u2069";' in common


# what the browser check reports: every text node, option or label that shows ``name``, and
# whether it is isolated (inside a <bdi> or dir=auto element holding exactly it, or wrapped
# in FSI ... PDI)
FIND_UNISOLATED = """([name, chat]) => {
  const bad = [], seen = [];
  const FSI = "\\u2068", PDI = "\\u2069";
  const wrapped = (text, word) => {
    let i = text.indexOf(word);
    if (i < 0) return true;
    for (; i >= 0; i = text.indexOf(word, i + 1)) {
      if (text[i - 1] !== FSI || text[i + word.length] !== PDI) return false;
    }
    return true;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest("script")) continue;  // data, never shown
    for (const word of [name, chat]) {
      if (!n.data.includes(word)) continue;
      seen.push(word);
      const box = n.parentElement.closest("bdi, [dir=auto]");
      const own = box && box.textContent.replace(/[\\u2068\\u2069]/g, "") === word;
      if (!own && !wrapped(n.data, word)) bad.push(n.parentElement.outerHTML.slice(0, 200));
    }
  }
  for (const e of document.querySelectorAll("[aria-label], [title]")) {
    for (const attr of ["aria-label", "title"]) {
      const v = e.getAttribute(attr) || "";
      if (v.includes(name) && !wrapped(v, name)) bad.push(attr + ": " + v);
    }
  }
  if (!document.title.includes(name) || wrapped(document.title, name)) {} else bad.push("title");
  return {bad, seen};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("bidi") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv
    srv.stop()


def play_to_the_end(srv: ServerProcess, made: dict[str, Any]) -> None:
    """Seat 0 (the person) chats, then takes the first choice each turn until the game ends."""
    from websockets.sync.client import connect

    token = made["token"]
    with connect(f"{srv.ws_base}/ws/{made['id']}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "chat", "token": token, "text": RTL_CHAT}))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            doc = json.loads(ws.recv(timeout=30))
            view = doc.get("view")
            if doc["type"] == "error":
                raise AssertionError(doc)
            if not view:
                continue
            if view["terminal"]:
                return
            if view["choices"] and doc["version"] == view["version"]:
                ws.send(json.dumps({"type": "act", "token": token, "version": view["version"],
                                    "action": view["choices"][0]["action"]}))
        raise AssertionError("the game did not end in time")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed")
def test_names_and_chat_render_isolated_in_chromium(server: ServerProcess, browser: Any) -> None:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        body = {"game": "spy-tracker", "players": 2, "seats": ["human", "bot"],
                "name": RTL_NAME, "public": True}
        finished = http.post("/api/tables", json=body).json()
        play_to_the_end(server, finished)
        waiting = http.post("/api/tables", json={**body, "seats": ["human", "human"]}).json()
        assert waiting["table"]["status"] == "waiting"
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        checks = [
            ("/", f"#table-list [data-table='{waiting['id']}']", {RTL_NAME}),
            (f"/t/{finished['id']}", "#chat-log .chat-text", {RTL_NAME, RTL_CHAT}),
            (f"/t/{finished['id']}/replay", "#pov", {RTL_NAME, RTL_CHAT}),
            (f"/t/{waiting['id']}", "#seats .seat", {RTL_NAME}),
        ]
        for path, ready, expected in checks:
            page.goto(server.base + path)
            page.wait_for_selector(ready)
            if path.endswith("/replay"):  # the last step: the result and every log line
                page.click("#rp-last")
                page.wait_for_function("() => document.body.dataset.step !== '0'")
                page.wait_for_selector("#chat-log .chat-text")
            found = page.evaluate(FIND_UNISOLATED, [RTL_NAME, RTL_CHAT])
            assert found["bad"] == [], (path, found["bad"])
            assert expected <= set(found["seen"]), (path, found["seen"])
        assert errors == []
    finally:
        context.close()


def test_the_check_itself_finds_a_bare_name(browser: Any, tmp_path: Path) -> None:
    """The browser check above would pass on a page that showed no name at all, so it also
    counts what it saw; here it must flag a name shown bare."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed")
    page = browser.new_page()
    try:
        page.set_content(f"<ul><li>Seat 1 · {RTL_NAME}</li><li>Seat 2 · <bdi>{RTL_NAME}</bdi>"
                         f"</li><li><span dir=auto>{RTL_CHAT}</span></li></ul>")
        found = page.evaluate(FIND_UNISOLATED, [RTL_NAME, RTL_CHAT])
        assert len(found["bad"]) == 1 and "Seat 1" in found["bad"][0]
    finally:
        page.close()
