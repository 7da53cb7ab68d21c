// Boards: each game draws its own board from the seat's observation (so a board can never show
// more than the server sent); this file holds what they share and a generic drawing for a game
// without a board.
//
// A game's board is a script in its own folder (served at /games/<id>/board.js, loaded with
// data-game="<id>") that registers a factory:
//
//   Boards.register(document.currentScript.dataset.game, (T, kit) => draw);
//
// T(key, values) reads the game's own catalogue (its folder's messages/<lang>.json); kit holds
// the shared pieces (section, seatName, value, choicesOf). draw(obs, ctx) returns a Node;
// ctx = {seat, seats, seatLabel, choices, act, disabled, refuse, recent, text, overrides}
// (refuse: called for a click while disabled, so the page can say why; recent: the log events
// of the last move (common.js); text: Boards.textFor for the reader; overrides: the table's
// ruleset values that differ from the game's defaults). Choices are structured by the game's notation,
// {action, label, kind, args}, so a board finds "the placement on cell 3,1" by kind and args,
// never by reading a label.
"use strict";

const Boards = (function () {
  const factories = {};
  const boards = {};
  const GAME_I18N = (() => {
    const node = document.getElementById("game-i18n");
    return node ? JSON.parse(node.textContent) : {};
  })();

  // The template language of fieldcraft/core/text.py, the same rules: {name}, {name|seat},
  // {name|+1}, {name|ns} (the catalogue's "ns.<value>", lists joined with "_sep"), and the
  // "<key>.you" voice when the event's seat is the reader's.
  function has(key) { return Object.prototype.hasOwnProperty.call(GAME_I18N, key); }

  function nameOf(ns, value) {
    if (Array.isArray(value)) return value.map((v) => nameOf(ns, v)).join(has("_sep") ? GAME_I18N._sep : ", ");
    const key = ns + "." + value;
    return has(key) ? GAME_I18N[key] : String(value);
  }

  function seatText(seat, reader) {
    if (typeof seat !== "number") return seat === null || seat === undefined ? "—" : String(seat);
    if (reader && reader.viewer === seat) return has("you") ? GAME_I18N.you : "you";
    const name = reader && reader.names ? reader.names(seat) : null;
    return name || (has("seat") ? GAME_I18N.seat : "Seat {n}").replace("{n}", String(seat + 1));
  }

  function plain(value) {
    if (value === null || value === undefined) return "—";
    if (Array.isArray(value)) return value.map(plain).join(has("_sep") ? GAME_I18N._sep : ", ");
    return String(value);
  }

  function format(template, params, reader) {
    return template.replace(/\{(\w+)(?:\|([\w.+-]+))?\}/g, (m, name, how) => {
      if (!params || !(name in params)) return m;
      const value = params[name];
      if (!how) return plain(value);
      if (how === "seat") {
        return Array.isArray(value) ? value.map((v) => seatText(v, reader)).join(has("_sep") ? GAME_I18N._sep : ", ")
          : seatText(value, reader);
      }
      if (how === "+1") return typeof value === "number" ? String(value + 1) : String(value);
      return nameOf(how, value);
    });
  }

  // "<key>+<param>" for the first set parameter that has such a key (see core/text.py).
  function variant(full, params) {
    for (const [name, value] of Object.entries(params || {})) {
      if (value !== null && value !== undefined && has(full + "+" + name)) return full + "+" + name;
    }
    return full;
  }

  // One reader's renderer (reader = {viewer, names(seat)}): what a log line, a choice, a name or
  // any catalogue key says in the page's language.
  function textFor(reader) {
    return {
      key(key, params) { return format(has(key) ? GAME_I18N[key] : key, params || {}, reader); },
      render(ns, key, params) {
        params = params || {};
        let full = variant(ns + "." + key, params);
        if (reader && reader.viewer !== null && reader.viewer !== undefined && params.seat === reader.viewer && has(full + ".you")) full += ".you";
        return format(has(full) ? GAME_I18N[full] : full, params, reader);
      },
      event(e) { return this.render("log", e.key, e.params); },
      choice(c) {
        const key = "choice." + c.kind;
        if (!has(key)) return c.label;
        return format(GAME_I18N[variant(key, c.args || {})], c.args || {}, reader);
      },
      name: nameOf,
      seat(s) { return seatText(s, reader); },
      has,
    };
  }

  function translator() {
    return function T(key, values) {
      return format(has(key) ? GAME_I18N[key] : key, values || {}, Boards.reader);
    };
  }

  function register(game, factory) {
    factories[game] = factory;
  }

  function boardFor(game) {
    if (!(game in boards)) {
      boards[game] = factories[game] ? factories[game](translator(), kit) : null;
    }
    return boards[game];
  }

  function render(game, obs, ctx) {
    const draw = boardFor(game);
    const root = el("div", { class: "board-" + (draw ? game : "generic"), "data-game": game });
    try {
      root.appendChild((draw || generic)(obs, ctx));
    } catch (err) {
      // A board that cannot draw an unexpected observation still shows everything it was sent.
      console.error(err);
      root.appendChild(generic(obs, ctx));
    }
    if (draw && Dev.on()) {
      root.appendChild(el("details", { class: "raw" }, el("summary", {}, t("board.observation")), generic(obs, ctx)));
    }
    return root;
  }

  // -- choices ----------------------------------------------------------------------------------
  // The legal choices as buttons, grouped by kind; a large group (Spy Tracker's bids) becomes a
  // drop-down with one button.
  function choices(list, act, disabled) {
    const box = el("div", { class: "choices" });
    const text = textFor(Boards.reader);
    const groups = new Map();
    for (const choice of list) {
      if (!groups.has(choice.kind)) groups.set(choice.kind, []);
      groups.get(choice.kind).push(choice);
    }
    const many = list.length > 14;
    for (const [kind, items] of groups) {
      const group = el("div", { class: "choice-group", "data-group": kind });
      if (many && items.length > 8) {
        const select = el("select", { class: "choice-select", "data-group": kind, "aria-label": kind, disabled },
          items.map((c) => el("option", { value: c.action }, text.choice(c))));
        group.appendChild(select);
        group.appendChild(el("button", { type: "button", class: "choice choose", "data-group": kind, disabled,
          onclick: () => act(Number(select.value)) }, t("table.choose")));
      } else {
        for (const c of items) {
          group.appendChild(el("button", { type: "button", class: "choice", "data-action": c.action,
            "data-kind": c.kind, "data-label": c.label, disabled, onclick: () => act(c.action) }, text.choice(c)));
        }
      }
      box.appendChild(group);
    }
    return box;
  }

  // The choices of one kind whose args match `args` (every key given must be equal).
  function choicesOf(ctx, kind, args) {
    return (ctx.choices || []).filter((c) => c.kind === kind &&
      Object.entries(args || {}).every(([k, v]) => c.args[k] === v));
  }

  // -- the end screen ----------------------------------------------------------------------------
  // The game's summary (core Notation.summary): one row per seat with its figures, the winner
  // marked, "you" marked, and one sentence on why the game ended.
  function finalScores(result, reader, seatLabel) {
    const text = textFor(reader);
    const summary = result.summary;
    const box = el("div", { class: "final-scores", "data-testid": "final-scores" });
    const winners = result.winners || [];
    const mine = reader && reader.viewer !== null && reader.viewer !== undefined;
    let headline = t("table.game_over");
    if (mine) headline = winners.includes(reader.viewer) ? t("table.you_won") : t("table.you_lost");
    box.appendChild(el("h2", { class: "headline" + (mine && winners.includes(reader.viewer) ? " won" : "") }, headline));
    if (!summary) {
      box.appendChild(el("p", { class: "winners" }, winners.length
        ? t("table.winners", { list: winners.map(seatLabel).join(", ") }) : t("table.nobody_won")));
      return box;
    }
    box.appendChild(el("p", { class: "reason", "data-key": summary.reason.key }, text.render("end", summary.reason.key, summary.reason.params)));
    const head = el("tr", {}, el("th", {}, t("table.player")), summary.columns.map((c) => el("th", { "data-col": c.key }, text.key("col." + c.key))), el("th", {}, ""));
    const body = el("tbody");
    for (const row of summary.rows) {
      const cells = summary.columns.map((c) => {
        const v = row.values[c.key];
        const shown = v === null || v === undefined ? "—" : c.ns ? text.name(c.ns, v) : String(v);
        return el("td", { "data-col": c.key, "data-value": v === null || v === undefined ? "" : (Array.isArray(v) ? v.join(",") : String(v)) }, shown);
      });
      const you = mine && row.seat === reader.viewer;
      body.appendChild(el("tr", { class: (row.winner ? "winner " : "") + (you ? "me" : ""), "data-seat": row.seat, "data-winner": row.winner ? "yes" : "no" },
        el("td", { class: "who" }, seatLabel(row.seat)), cells,
        el("td", { class: "mark" }, row.winner ? el("span", { class: "win-mark", title: t("table.winner") }, "★", el("span", { class: "win-word" }, " " + t("table.winner"))) : "")));
    }
    box.appendChild(el("table", { class: "scores" }, el("thead", {}, head), body));
    return box;
  }

  // -- generic ----------------------------------------------------------------------------------
  function value(v) {
    if (v === null || v === undefined) return el("span", { class: "nil" }, "—");
    if (typeof v === "boolean") return t(v ? "board.yes" : "board.no");
    if (Array.isArray(v)) {
      if (v.every((x) => x === null || typeof x !== "object")) {
        return el("span", { class: "list" }, v.length ? v.map((x) => (x === null ? "—" : String(x))).join(", ") : "—");
      }
      return el("ol", { start: 0, class: "gen-list" }, v.map((x) => el("li", {}, value(x))));
    }
    if (typeof v === "object") {
      return el("dl", { class: "gen" }, Object.entries(v).map(([k, x]) => [el("dt", {}, k), el("dd", {}, value(x))]));
    }
    return String(v);
  }

  function generic(obs) {
    return el("div", { class: "generic" }, value(obs));
  }

  // -- shared pieces ----------------------------------------------------------------------------
  function section(title, ...children) {
    return el("section", { class: "board-section" }, el("h3", {}, title), children);
  }

  function seatName(ctx, seat) {
    return ctx.seatLabel ? ctx.seatLabel(seat) : t("board.seat", { n: seat + 1 });
  }

  // Make `node` (a card, a slot, a cell, a token) the way to play `list` (the choices it acts
  // on): a click, Enter or Space plays it; it is focusable, named for screen readers by `name`,
  // and marked .playable. With several choices on one thing (pass it or play it) a small menu
  // of their labels opens beside it. Boards call this; the fallback buttons stay below.
  function playable(node, list, ctx, name) {
    if (!list || !list.length) return node;
    const text = textFor(Boards.reader);
    const labels = list.map((c) => text.choice(c));
    node.classList.add("playable");
    node.setAttribute("role", "button");
    node.setAttribute("tabindex", "0");
    node.setAttribute("aria-label", (name ? name + ": " : "") + labels.join(" / "));
    node.dataset.actions = list.map((c) => c.action).join(",");
    const go = (event) => {
      event.preventDefault();
      event.stopPropagation();
      if (ctx.disabled) { if (ctx.refuse) ctx.refuse(); return; } // the page says why
      if (list.length === 1) { ctx.act(list[0].action); return; }
      openMenu(node, list, labels, ctx);
    };
    node.addEventListener("click", go);
    node.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") go(event); });
    return node;
  }

  function openMenu(node, list, labels, ctx) {
    document.querySelectorAll(".play-menu").forEach((m) => m.remove());
    const menu = el("div", { class: "play-menu", role: "menu" },
      list.map((c, i) => el("button", { type: "button", role: "menuitem", class: "play-menu-item", "data-action": c.action,
        onclick: (e) => { e.stopPropagation(); menu.remove(); ctx.act(c.action); } }, labels[i])));
    node.after(menu);
    const first = menu.querySelector("button");
    if (first) first.focus();
    menu.addEventListener("keydown", (e) => { if (e.key === "Escape") { menu.remove(); node.focus(); } });
  }

  // Whether `args` appear in one of the events of the last move (ctx.recent): what a board
  // highlights as "the last move".
  function recent(ctx, match) {
    return (ctx.recent || []).some((e) => Object.entries(match).every(([k, v]) => e.params && e.params[k] === v));
  }

  const kit = { section, seatName, value, choicesOf, playable, recent };

  return { register, render, choices, choicesOf, generic, kit, textFor, format, finalScores, reader: null };
})();
