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

// Bots are named by strength in every language ("Easy", "Normal", "Strong"); the bot's name
// is the hover text. The web's names for the levels are "random", "heuristic" and "ismcts" (what
// tables have always stored); the server plays each as that level's agent for the table's game
// (fieldcraft/agents/levels.py), which need not be that agent: Against the Current's Strong is
// an expectimax. The level names themselves ("easy", ...) come through the API as well. An
// agent without a level keeps its name.
const BOT_ORDER = ["random", "easy", "heuristic", "normal", "ismcts", "strong"];
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
