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
//
// A draw function may carry two more: draw.seatInfo(obs, seat, ctx) → {score, facts: [Node]},
// what the seat list shows under a seat's name (from the reader's own observation), and
// draw.frame(obs) → {column(x), row(y)}, how cells are named for people (Undercover), which the
// log and the choices then use too. Elements with data-motion keys move between redraws (Motion,
// at the end of this file).
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

  // A seat inside game text: the one name (playerName below) for every other seat; the reader's
  // own is the catalogue's "you", as core/text.py words it, since a sentence about the reader
  // is written to them ("Bot 2 (Easy) passes a card to you"; the seat list says "Ann (you)").
  function seatText(seat, reader) {
    if (typeof seat !== "number") return seat === null || seat === undefined ? "—" : String(seat);
    if (reader && reader.viewer === seat) return has("you") ? GAME_I18N.you : "you";
    const name = reader && reader.names ? reader.names(seat) : null;
    return name || (has("seat") ? GAME_I18N.seat : "Seat {n}").replace("{n}", String(seat + 1));
  }

  // A display frame for coordinates (a board may set one for the current observation, see
  // setFrame): {column(x), row(y)} turn the engine's cells into the words people read, so the
  // board, the log and the choices agree without the stored notation changing.
  let frame = null;

  function framed(name, how, value) {
    if (!frame || typeof value !== "number") return null;
    if (how === "column" && frame.column) return frame.column(value);
    if (how === "+1" && name === "y" && frame.row) return frame.row(value);
    return null;
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
      const shown = framed(name, how, value);
      if (shown !== null) return shown;
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

  // The frame of `game`'s board for `obs` (its draw.frame, if it has one): set before the
  // board, the log and the caption are worded, so all three name a cell the same way.
  function setFrame(game, obs) {
    const draw = boardFor(game);
    try {
      frame = draw && draw.frame && obs ? draw.frame(obs) : null;
    } catch (err) {
      console.error(err);
      frame = null;
    }
    return frame;
  }

  // What the seat list says of a seat beyond its name (the board's draw.seatInfo): its score
  // and what the reader's view shows of its colour, animal or role, as {score, facts: [Node]}.
  function seatInfo(game, obs, seat, ctx) {
    const draw = boardFor(game);
    if (!draw || !draw.seatInfo || !obs) return null;
    try {
      return draw.seatInfo(obs, seat, ctx);
    } catch (err) {
      console.error(err);
      return null;
    }
  }

  function render(game, obs, ctx) {
    const draw = boardFor(game);
    setFrame(game, obs);
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
  // The legal choices as buttons, grouped by kind. A group too large to read at a glance (Spy
  // Tracker's opening bids: a hundred or more) is folded into a <details> of the same buttons,
  // named by the game's "group.<kind>" and its count, so the panel never mixes buttons with a
  // drop-down: the board's own controls (the bid maker) are the quick way, and the whole list
  // stays one Tab and one Enter away for keyboards and screen readers. A fold the person opened
  // stays open across redraws (the panel is redrawn on every update, a bot's move included).
  const FOLD_AT = { list: 14, group: 8 };
  const openFolds = new Set();

  function choices(list, act, disabled) {
    const box = el("div", { class: "choices" });
    const text = textFor(Boards.reader);
    const groups = new Map();
    for (const choice of list) {
      if (!groups.has(choice.kind)) groups.set(choice.kind, []);
      groups.get(choice.kind).push(choice);
    }
    const many = list.length > FOLD_AT.list;
    const button = (c) => el("button", { type: "button", class: "choice", "data-action": c.action,
      "data-kind": c.kind, "data-label": c.label, disabled, onclick: () => act(c.action) }, text.choice(c));
    for (const [kind, items] of groups) {
      const group = el("div", { class: "choice-group", "data-group": kind });
      if (many && items.length > FOLD_AT.group) {
        const what = text.has("group." + kind) ? text.key("group." + kind) : t("table.more_choices");
        const fold = el("details", { class: "choice-fold", "data-group": kind },
          el("summary", { class: "choice-fold-summary" }, t("table.choice_fold", { what, n: items.length })),
          el("div", { class: "choice-group" }, items.map(button)));
        fold.open = openFolds.has(kind);
        fold.addEventListener("toggle", () => { if (fold.open) openFolds.add(kind); else openFolds.delete(kind); });
        group.appendChild(fold);
      } else {
        items.forEach((c) => group.appendChild(button(c)));
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

  // -- one name for a player ----------------------------------------------------------------------
  // The one way a seat is named on the table page (seat list, banner, clock, log, chat, result
  // table): a person by the name they gave (or "Seat n" while they have none), a bot as "Bot n
  // (Level)"; with `viewer` the reader's own seat gets "(you)" after the name, never instead.
  function playerName(seats, seat, viewer) {
    const s = seats && seats[seat];
    let name = t("table.seat", { n: seat + 1 });
    if (s && s.kind === "bot") name = t("table.bot_n", { n: seat + 1, level: botLevel(s.bot) });
    else if (s) name = isolate(s.name) || name;
    return viewer !== null && viewer !== undefined && viewer === seat ? t("table.name_you", { name }) : name;
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

  return { register, render, choices, choicesOf, generic, kit, textFor, format, finalScores, setFrame, seatInfo,
    playerName, reader: null };
})();

// Movement (issue 34, item 3): a board is redrawn from scratch on every update, so what moved is
// found by key. Before a redraw `snapshot` measures every [data-motion] element (its key is the
// thing, not the place: a card's name, a token's seat and letter); after it `play` slides each one
// that is still there from its old place to its new one (FLIP), lets a new one come in as its
// data-motion-in says (a tile lands, a bid appears, a reveal turns over), and starts a new one
// with data-motion-from at the element it came from (a passed card from the passer's seat).
// An element that stands on a path (data-motion-at="<path>:<n>", a token on the river's space n)
// travels it instead of sliding straight: its keyframes pass through the centre of every stop
// between the old one and the new one (data-motion-stop="<path>:<k>", the spaces), in the
// path's order, forwards or backwards, at an even speed, so a token is seen going round the
// river rather than cutting across it. Positions are measured from the board's own corner, so a
// caption growing above the board moves nothing. Nothing moves under prefers-reduced-motion. The length is the CSS variable
// --fc-motion-ms (style.css), MOTION_MS when it is unset.
const Motion = (function () {
  const MOTION_MS = 420;
  const ENTER = {
    land: [{ transform: "translateY(-14px) scale(1.3)", opacity: 0 }, { transform: "none", opacity: 1 }],
    appear: [{ transform: "translateY(-8px)", opacity: 0 }, { transform: "none", opacity: 1 }],
    turn: [{ transform: "perspective(500px) rotateY(90deg)" }, { transform: "none" }],
  };

  function reduced() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  function ms() {
    const n = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--fc-motion-ms"));
    return Number.isFinite(n) && n >= 0 ? n : MOTION_MS;
  }

  function where(node, origin) {
    const r = node.getBoundingClientRect();
    return { x: r.left - origin.left, y: r.top - origin.top, w: r.width, h: r.height };
  }

  function snapshot(root) {
    const origin = root.getBoundingClientRect();
    const seen = new Map();
    root.querySelectorAll("[data-motion]").forEach((n) => {
      if (seen.has(n.dataset.motion)) return;
      const shown = { ...where(n, origin), at: n.dataset.motionAt };
      const a = n.getAnimations ? n.getAnimations().find((x) => x.id === "fc-motion" && x.playState === "running") : null;
      if (a) {
        // A redraw (the next bot's move, a presence change) must not cut a travel short: what is
        // still running is carried over to the redrawn element. The old one is about to go, so
        // it is measured at rest too, to tell whether it has moved again since.
        shown.running = { frames: a.effect.getKeyframes().map(({ computedOffset, ...f }) => f), time: a.currentTime || 0,
          duration: a.effect.getComputedTiming().duration, easing: a.effect.getTiming().easing, travel: a.fcTravel };
        a.cancel();
        shown.rest = where(n, origin);
      }
      shown.off = offStop(root, origin, shown.rest || shown, shown.at);
      seen.set(n.dataset.motion, shown);
    });
    return seen;
  }

  // "<path>:<n>" as [path, n], or null.
  function stopOf(at) {
    const m = /^(.+):(-?\d+)$/.exec(at || "");
    return m ? [m[1], Number(m[2])] : null;
  }

  // The centre of the stop named `at` ("<path>:<n>"), or null.
  function stopCentre(root, origin, at) {
    const stop = at ? root.querySelector(`[data-motion-stop="${CSS.escape(at)}"]`) : null;
    if (!stop) return null;
    const r = where(stop, origin);
    return [r.x + r.w / 2, r.y + r.h / 2];
  }

  // Where an element at rest (`box`) stands from the centre of its stop: a travel starts there
  // from the old stop's place in the new layout, so a section above the path that came or went
  // in the same redraw (Against the Current's animal cards) does not drag the start away.
  function offStop(root, origin, box, at) {
    const c = stopCentre(root, origin, at);
    return c ? [box.x + box.w / 2 - c[0], box.y + box.h / 2 - c[1]] : null;
  }

  // The keyframes of `node` (now at `now`, before at `was`) along its path, or null when it is not
  // on one or moved to the next stop only (a straight slide says that as well). Each frame is the
  // translation that puts the node's centre on a stop's centre; the offsets follow the distance
  // covered, so the speed is even round a corner.
  function alongPath(root, origin, node, now, was) {
    const from = stopOf(was.at), to = stopOf(node.dataset.motionAt);
    if (!from || !to || from[0] !== to[0] || Math.abs(to[1] - from[1]) < 2) return null;
    const cx = now.x + now.w / 2, cy = now.y + now.h / 2;
    const start = was.off && stopCentre(root, origin, was.at);
    const points = [start ? [start[0] + was.off[0] - cx, start[1] + was.off[1] - cy] : [was.x - now.x, was.y - now.y]];
    const step = Math.sign(to[1] - from[1]);
    for (let k = from[1] + step; k !== to[1]; k += step) {
      const c = stopCentre(root, origin, to[0] + ":" + k);
      if (!c) return null; // a path with a hole: the straight slide is the honest fallback
      points.push([c[0] - cx, c[1] - cy]);
    }
    points.push([0, 0]);
    const legs = points.slice(1).map((p, i) => Math.hypot(p[0] - points[i][0], p[1] - points[i][1]));
    const total = legs.reduce((a, b) => a + b, 0) || 1;
    let covered = 0;
    return points.map((p, i) => {
      if (i) covered += legs[i - 1];
      return { transform: i === points.length - 1 ? "none" : `translate(${p[0]}px, ${p[1]}px)`, offset: i ? Math.min(1, covered / total) : 0 };
    });
  }

  const SLIDE = "cubic-bezier(.2,.7,.3,1)";
  const TRAVEL = "ease-in-out"; // even through the spaces between, not all of it in the first one

  function run(node, frames, duration, from, easing) {
    const a = node.animate(frames, { duration, easing: easing || SLIDE });
    a.id = "fc-motion";
    if (from) a.currentTime = from;
    document.body.dataset.motions = String(Number(document.body.dataset.motions || 0) + 1);
    return a;
  }

  // One element that was on the board before the redraw: carried on, travelled or slid; whether
  // it animates. A travel still running is carried on as it was when nothing moved under it, and
  // is laid again through the spaces' new places when the board's layout shifted (the wheel's
  // rows grow with what its hub shows) but the element stands where it stood.
  function moveOne(root, origin, node, now, was, duration) {
    const c = was.running;
    const still = c && Math.abs(was.rest.x - now.x) < 1 && Math.abs(was.rest.y - now.y) < 1;
    if (still) { run(node, c.frames, c.duration, c.time, c.easing).fcTravel = c.travel; return true; }
    if (c && c.travel && node.dataset.motionAt === was.at) {
      const again = alongPath(root, origin, node, now, c.travel);
      if (again) { run(node, again, c.duration, c.time, TRAVEL).fcTravel = c.travel; return true; }
    }
    const dx = was.x - now.x, dy = was.y - now.y;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return false;
    const path = alongPath(root, origin, node, now, was);
    // a longer way takes longer, up to three times a slide: each space stays readable
    if (path) run(node, path, duration * Math.min(3, 1 + (path.length - 2) * 0.4), 0, TRAVEL).fcTravel = { x: was.x, y: was.y, at: was.at, off: was.off };
    else run(node, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], duration);
    return true;
  }

  // Each moved or new element animates once; returns how many did.
  function play(root, before) {
    if (!before || !before.size || reduced() || typeof Element.prototype.animate !== "function") return 0;
    const duration = ms();
    if (!duration) return 0;
    const origin = root.getBoundingClientRect();
    let count = 0;
    root.querySelectorAll("[data-motion]").forEach((node) => {
      const now = where(node, origin);
      const was = before.get(node.dataset.motion) || (node.dataset.motionFrom && before.get(node.dataset.motionFrom));
      if (was) {
        if (moveOne(root, origin, node, now, was, duration)) count += 1;
      } else if (ENTER[node.dataset.motionIn]) {
        run(node, ENTER[node.dataset.motionIn], duration);
        count += 1;
      }
    });
    return count;
  }

  return { snapshot, play, reduced, ms, MOTION_MS };
})();
