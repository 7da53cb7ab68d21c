// Shared helpers for every page: message catalogue, safe DOM building, the JSON API, storage.
// Plain JavaScript, no build step. Text always enters the page through text nodes (never
// innerHTML), so a player's name or a card name can never inject markup.
"use strict";

const I18N = JSON.parse(document.getElementById("i18n").textContent);

function t(key, values) {
  let text = Object.prototype.hasOwnProperty.call(I18N, key) ? I18N[key] : key;
  if (values) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
  }
  return text;
}

// A person's name among the page's own words. A right-to-left name, or one that ends in digits,
// would otherwise take part in the bidi ordering of what surrounds it ("Seat 2 · <name>: 5" can
// show the 5 on the wrong side, a seat list can read as another seat's). Every name the page
// shows goes through one of these two: bdi() is the element, for DOM; isolate() wraps the text
// in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE, the plain-text form of <bdi>, for where
// only a string can go (log lines and banners built by t() templates, boards' labels, titles).
// The server refuses these characters inside names and chat (protocol.INVISIBLE_CATEGORIES),
// so no name can close its isolate early. Chat text itself is a dir="auto" element (chat.js).
const FSI = "\u2068", PDI = "\u2069";
function isolate(text) { return text ? FSI + text + PDI : text; }
function bdi(text, attrs) { return el("bdi", attrs || {}, text); }

// el("div", {class: "x", onclick: fn}, "text", child, [more children])
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  applyAttrs(node, attrs);
  appendAll(node, children);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  applyAttrs(node, attrs);
  appendAll(node, children);
  return node;
}

function applyAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (key === "style") {
      // Through the CSSOM, not as a style="" attribute: the pages' Content-Security-Policy
      // (style-src 'self') blocks inline style attributes but not the CSSOM.
      node.style.cssText = String(value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function appendAll(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const err = (data && data.error) || { code: "http_" + response.status, message: response.statusText };
    const error = new Error(err.message);
    error.code = err.code;
    if (err.key !== undefined) error.key = err.key; // the field at fault (a ruleset check)
    throw error;
  }
  return data;
}

// Seat tokens live in localStorage, per table, so a reload or a reconnect keeps the seat.
const Tokens = {
  seat(tableId) { return localStorage.getItem("fc-token-" + tableId); },
  setSeat(tableId, token) { localStorage.setItem("fc-token-" + tableId, token); },
  host(tableId) { return localStorage.getItem("fc-host-" + tableId); },
  setHost(tableId, token) { localStorage.setItem("fc-host-" + tableId, token); },
  name() { return localStorage.getItem("fc-name") || ""; },
  setName(name) { localStorage.setItem("fc-name", name); },
};

// "My games": the tables this browser made or took a seat at, newest first, as
// {id, game, at (ISO time first opened), seat}; kept in this browser only (the server lists
// private tables to nobody). A table page adds itself when it holds a seat or host token here.
const MyGames = {
  KEY: "fc-my-games",
  MAX: 60,
  list() {
    let items;
    try { items = JSON.parse(localStorage.getItem(this.KEY) || "[]"); } catch (e) { items = []; }
    if (!Array.isArray(items)) return [];
    return items.filter((g) => g && typeof g.id === "string" && /^[A-Za-z0-9_-]{1,80}$/.test(g.id) && typeof g.game === "string");
  },
  save(items) {
    try { localStorage.setItem(this.KEY, JSON.stringify(items.slice(0, this.MAX))); } catch (e) { /* storage full or off */ }
  },
  remember(id, game, seat) {
    const items = this.list();
    const old = items.find((g) => g.id === id);
    const entry = { id, game, at: old ? old.at : new Date().toISOString(),
      seat: typeof seat === "number" ? seat : (old ? old.seat : null) };
    this.save([entry, ...items.filter((g) => g.id !== id)]);
  },
  forget(id) { this.save(this.list().filter((g) => g.id !== id)); },
};

// Carrying My games to another device (issue 34, item 4): a personal link to the lobby whose
// URL fragment (#my-games=...) holds the list with each table's seat and host tokens. A
// fragment is never sent to the server, so the tokens reach no request line or server log,
// and nothing is stored server-side; the lobby that opens the link adds what it holds and
// drops the fragment from the address bar. The link is as secret as the tokens it carries.
const MyGamesTransfer = {
  PREFIX: "#my-games=",
  TOKEN: /^[A-Za-z0-9_-]{1,200}$/,
  encode(items) {
    const packed = items.map((g) => ({ i: g.id, g: g.game, a: g.at, s: g.seat,
      t: Tokens.seat(g.id) || undefined, h: Tokens.host(g.id) || undefined }));
    const bytes = new TextEncoder().encode(JSON.stringify(packed));
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  link() { return window.location.origin + "/" + this.PREFIX + this.encode(MyGames.list()); },
  // The entries a fragment holds, each checked as MyGames.list checks stored ones (a damaged
  // or hostile link adds nothing unsafe); null when the fragment is not a transfer at all.
  decode(hash) {
    if (!hash || !hash.startsWith(this.PREFIX)) return null;
    let packed;
    try {
      const bin = atob(hash.slice(this.PREFIX.length).replace(/-/g, "+").replace(/_/g, "/"));
      packed = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    } catch (e) { return []; }
    if (!Array.isArray(packed)) return [];
    const ok = (v) => typeof v === "string" && this.TOKEN.test(v);
    return packed.filter((g) => g && ok(g.i) && typeof g.g === "string" && /^[a-z0-9-]{1,60}$/.test(g.g))
      .slice(0, MyGames.MAX)
      .map((g) => ({ id: g.i, game: g.g, at: typeof g.a === "string" ? g.a : new Date().toISOString(),
        seat: Number.isInteger(g.s) && g.s >= 0 ? g.s : null, token: ok(g.t) ? g.t : null, host: ok(g.h) ? g.h : null }));
  },
  // Adds the entries to this browser: tokens it does not hold yet (one it holds is its own seat
  // and is kept), and the games it does not list yet; newest first. Returns how many were new.
  receive(entries) {
    const items = MyGames.list();
    const known = new Set(items.map((g) => g.id));
    let added = 0;
    for (const e of entries) {
      if (e.token && !Tokens.seat(e.id)) Tokens.setSeat(e.id, e.token);
      if (e.host && !Tokens.host(e.id)) Tokens.setHost(e.id, e.host);
      if (known.has(e.id)) continue;
      known.add(e.id);
      items.push({ id: e.id, game: e.game, at: e.at, seat: e.seat });
      added += 1;
    }
    items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    MyGames.save(items);
    return added;
  },
};

// The last move (issue 34): the newest log event and the ones just before it by the same seat
// (a move and what it set off, such as a roll and where the token landed), or the run of events
// without a seat (a deal) at the end of the log: what a board highlights (its ctx.recent) and
// what the one-line caption above it says, not everything since the reader's own last move.
const LastMove = {
  of(entries) {
    const shown = entries.filter((e) => e.event);
    if (!shown.length) return [];
    const seatOf = (e) => (e.event.params && typeof e.event.params.seat === "number" ? e.event.params.seat : null);
    const seat = seatOf(shown[shown.length - 1]);
    let from = shown.length - 1;
    while (from > 0 && seatOf(shown[from - 1]) === seat) from -= 1;
    return shown.slice(from).map((e) => e.event);
  },
  // "Last move: ..." in the page's language (text: Boards.textFor the reader), at most its last
  // three events; the whole line is the title (shown on hover, or on touch by Info).
  caption(box, events, text, hide) {
    if (!box) return;
    const lines = events.slice(-3).map((e) => text.event(e));
    box.hidden = !lines.length || !!hide;
    box.textContent = lines.length ? t("table.last_move", { text: lines.join(" · ") }) : "";
    box.title = box.textContent;
    box.dataset.keys = events.map((e) => e.key).join(",");
    box.dataset.params = JSON.stringify(events.map((e) => e.params || {}));
  },
};

// The developer switch: `?dev=1` on any page turns on what only a developer wants to see (a
// board's raw observation, "What you see"), remembered in localStorage; `?dev=0` turns it off.
const Dev = {
  on() { return localStorage.getItem("fc-dev") === "on"; },
  set(on) { if (on) localStorage.setItem("fc-dev", "on"); else localStorage.removeItem("fc-dev"); },
};
(function () {
  const flag = new URLSearchParams(window.location.search).get("dev");
  if (flag !== null) Dev.set(flag === "1" || flag === "on");
})();

function gameName(id) {
  const key = "game." + id;
  return I18N[key] ? t(key) : id;
}

// Bots are named by strength in every language ("Easy", "Normal", "Strong", "Expert"); the bot's name
// is the hover text. The web's names for the levels are "random", "heuristic" and "ismcts" (what
// tables have always stored); the server plays each as that level's agent for the table's game
// (fieldcraft/agents/levels.py), which need not be that agent: Against the Current's Strong is
// an expectimax. The level names themselves ("easy", ...) come through the API as well. An
// agent without a level keeps its name.
const BOT_ORDER = ["random", "easy", "heuristic", "normal", "ismcts", "strong", "expert"];
function botLevel(spec) {
  const key = "bot.level." + String(spec || "").split(":")[0];
  return Object.prototype.hasOwnProperty.call(I18N, key) ? t(key) : String(spec || "");
}
function sortBots(names) {
  const rank = (n) => (BOT_ORDER.includes(n) ? BOT_ORDER.indexOf(n) : BOT_ORDER.length);
  return names.slice().sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function errorText(code, message) {
  const key = "error." + code;
  return I18N[key] ? t(key) : t("error.generic", { message: message || code });
}

document.addEventListener("DOMContentLoaded", () => {
  const select = document.getElementById("lang-select");
  if (select) {
    select.addEventListener("change", () => {
      const url = new URL(window.location.href);
      url.searchParams.set("lang", select.value);
      window.location.href = url.toString();
    });
  }
});

// -- the rules drawer (a table, a replay) -----------------------------------------------------
// The game's rules page, rendered into the page by the server, in a <dialog> opened by the
// "Rules" button: Escape, the close button or a tap beside it closes it, and the focus goes back
// to the button. It is a drawer at the side on a wide screen and a sheet from the bottom on a
// phone; while it is closed nothing of it covers the board or the action bar.
document.addEventListener("DOMContentLoaded", () => {
  const drawer = document.getElementById("rules-drawer");
  const button = document.getElementById("rules-button");
  if (!drawer || !button) return;
  const mark = (open) => {
    document.body.dataset.rules = open ? "open" : "closed";
    button.setAttribute("aria-expanded", open ? "true" : "false");
  };
  const close = () => { if (drawer.open) drawer.close(); mark(false); };
  button.addEventListener("click", () => {
    Info.hide();
    if (drawer.open) { close(); return; }
    drawer.showModal();
    mark(true);
    document.getElementById("rules-drawer-body").scrollTop = 0;
    document.getElementById("rules-close").focus();
  });
  document.getElementById("rules-close").addEventListener("click", close);
  // a click on the backdrop lands on the <dialog> itself (its content is inside its own box)
  drawer.addEventListener("click", (event) => {
    if (event.target !== drawer) return;
    const r = drawer.getBoundingClientRect();
    const inside = event.clientX >= r.left && event.clientX <= r.right && event.clientY >= r.top && event.clientY <= r.bottom;
    if (!inside) close();
  });
  drawer.addEventListener("close", () => mark(false)); // Escape
  button.setAttribute("aria-expanded", "false");
});

// -- what a board thing is, on a touch screen -----------------------------------------------
// Boards name their cards, tiles and markers (and say what a card does) in title="" (or an SVG
// <title>), which a mouse shows on hover and a finger never does. Touching and holding such a
// thing (or tapping one that plays nothing) shows that text in a small popover beside it; the
// tap that ends a hold does not also play the thing. A tap elsewhere, a scroll or Escape hides it.
const Info = (function () {
  const HOLD_MS = 450;
  let box = null;
  let timer = null;
  let start = null;
  let held = false;
  const ACTIVE = ".playable, button, a, select, input, textarea, label, summary, [role='menuitem']";

  function titled(node) {
    for (let n = node; n && n !== document.body; n = n.parentNode) {
      if (!(n instanceof Element)) continue;
      if (n.closest("dialog, .info-pop, header, select, input, textarea")) return null;
      if (n.getAttribute("title")) return { node: n, text: n.getAttribute("title") };
      const own = n instanceof SVGElement ? n.querySelector(":scope > title") : null;
      if (own && own.textContent.trim()) return { node: n, text: own.textContent.trim() };
    }
    return null;
  }

  function hide() {
    if (box) { box.remove(); box = null; }
  }

  function show(found) {
    hide();
    box = el("div", { class: "info-pop", role: "tooltip", id: "info-pop" }, found.text);
    document.body.appendChild(box);
    const r = found.node.getBoundingClientRect();
    const w = box.offsetWidth;
    const h = box.offsetHeight;
    const left = Math.max(8, Math.min(r.left + r.width / 2 - w / 2, window.innerWidth - w - 8));
    let top = r.bottom + 8;
    if (top + h > window.innerHeight - 8) top = Math.max(8, r.top - h - 8);
    box.style.left = left + "px";
    box.style.top = top + "px";
  }

  function cancel() {
    if (timer) { clearTimeout(timer); timer = null; }
  }

  document.addEventListener("pointerdown", (event) => {
    if (box && !box.contains(event.target)) hide();
    held = false;
    cancel();
    if (event.pointerType === "mouse") return;
    const found = titled(event.target);
    if (!found) return;
    start = { x: event.clientX, y: event.clientY, found, active: !!event.target.closest(ACTIVE) };
    timer = setTimeout(() => { timer = null; held = true; show(found); }, HOLD_MS);
  }, true);
  document.addEventListener("pointermove", (event) => {
    if (timer && start && Math.hypot(event.clientX - start.x, event.clientY - start.y) > 10) cancel();
  }, true);
  document.addEventListener("pointerup", (event) => {
    const wasTimer = !!timer;
    cancel();
    if (wasTimer && start && !start.active && event.pointerType !== "mouse") show(start.found); // a tap
  }, true);
  document.addEventListener("pointercancel", cancel, true);
  // the click that ends a hold does not play the thing held
  document.addEventListener("click", (event) => {
    if (held) { held = false; event.preventDefault(); event.stopPropagation(); }
  }, true);
  document.addEventListener("contextmenu", (event) => {
    if (event.pointerType !== "mouse" && titled(event.target) && (held || timer)) event.preventDefault();
  }, true);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(); });
  window.addEventListener("scroll", hide, { passive: true });
  window.addEventListener("resize", hide);

  return { hide, show: (node) => { const f = titled(node); if (f) show(f); } };
})();
