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
// ctx = {seat, seats, seatLabel, choices, act}. Choices are structured by the game's notation,
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

  function translator(messages) {
    return function T(key, values) {
      let text = Object.prototype.hasOwnProperty.call(messages, key) ? messages[key] : key;
      if (values) text = text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
      return text;
    };
  }

  function register(game, factory) {
    factories[game] = factory;
  }

  function boardFor(game) {
    if (!(game in boards)) {
      boards[game] = factories[game] ? factories[game](translator(GAME_I18N), kit) : null;
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
    if (draw) {
      root.appendChild(el("details", { class: "raw" }, el("summary", {}, t("board.observation")), generic(obs, ctx)));
    }
    return root;
  }

  // -- choices ----------------------------------------------------------------------------------
  // The legal choices as buttons, grouped by kind; a large group (Spy Tracker's bids) becomes a
  // drop-down with one button.
  function choices(list, act, disabled) {
    const box = el("div", { class: "choices" });
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
          items.map((c) => el("option", { value: c.action }, c.label)));
        group.appendChild(select);
        group.appendChild(el("button", { type: "button", class: "choice choose", "data-group": kind, disabled,
          onclick: () => act(Number(select.value)) }, t("table.choose")));
      } else {
        for (const c of items) {
          group.appendChild(el("button", { type: "button", class: "choice", "data-action": c.action,
            "data-kind": c.kind, "data-label": c.label, disabled, onclick: () => act(c.action) }, c.label));
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
    return ctx.seatLabel ? ctx.seatLabel(seat) : t("board.seat", { n: seat });
  }

  const kit = { section, seatName, value, choicesOf };

  return { register, render, choices, choicesOf, generic, kit };
})();
