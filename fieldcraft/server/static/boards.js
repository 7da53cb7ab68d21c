// Boards: one drawing per game, each built only from the seat's observation (so a board can
// never show more than the server sent), plus a generic drawing for any other game.
//
// Boards.render(game, observation, ctx) -> Node. ctx = {seat, seats, seatLabel, choices, act}.
// Boards.choices(choices, act, disabled) -> Node: the legal choices as buttons, grouped by their
// first word; a large group (Spy Tracker's bids) becomes a drop-down with one button.
"use strict";

const Boards = (function () {
  const registry = {};

  function render(game, obs, ctx) {
    const draw = registry[game] || generic;
    const root = el("div", { class: "board-" + (registry[game] ? game : "generic"), "data-game": game });
    try {
      root.appendChild(draw(obs, ctx));
    } catch (err) {
      // A board that cannot draw an unexpected observation still shows everything it was sent.
      console.error(err);
      root.appendChild(generic(obs, ctx));
    }
    if (registry[game]) {
      root.appendChild(el("details", { class: "raw" }, el("summary", {}, t("board.observation")), generic(obs, ctx)));
    }
    return root;
  }

  // -- choices ----------------------------------------------------------------------------------
  function choices(list, act, disabled) {
    const box = el("div", { class: "choices" });
    const groups = new Map();
    for (const [action, label] of list) {
      const key = label.split(/[\s:]/)[0];
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push([action, label]);
    }
    const many = list.length > 14;
    for (const [key, items] of groups) {
      const group = el("div", { class: "choice-group", "data-group": key });
      if (many && items.length > 8) {
        const select = el("select", { class: "choice-select", "data-group": key, "aria-label": key, disabled },
          items.map(([action, label]) => el("option", { value: action }, label)));
        group.appendChild(select);
        group.appendChild(el("button", { type: "button", class: "choice choose", "data-group": key, disabled,
          onclick: () => act(Number(select.value)) }, t("table.choose")));
      } else {
        for (const [action, label] of items) {
          group.appendChild(el("button", { type: "button", class: "choice", "data-action": action,
            "data-label": label, disabled, onclick: () => act(action) }, label));
        }
      }
      box.appendChild(group);
    }
    return box;
  }

  // Find the action whose label is `label` (boards use it for clickable pieces).
  function actionFor(ctx, label) {
    const hit = (ctx.choices || []).find(([, l]) => l === label);
    return hit ? hit[0] : null;
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

  // -- Under Current ------------------------------------------------------------------------------
  const UC_COLOURS = { Blue: "blue", Red: "red", Green: "green", Yellow: "yellow" };

  function ucCard(name, opts) {
    const o = opts || {};
    if (!name) {
      return el("div", { class: "card back" + (o.small ? " small" : ""), title: t("uc.face_down") },
        el("span", { class: "back-mark" }, "✦"));
    }
    const [colour, effect] = name.split("/");
    const cls = UC_COLOURS[colour] || "plain";
    return el("div", { class: "card c-" + cls + (o.small ? " small" : "") + (o.down ? " known-down" : ""), "data-card": name, title: name },
      el("span", { class: "colour" }, colour), el("span", { class: "effect" }, effect || ""),
      o.down ? el("span", { class: "badge" }, t("uc.face_down")) : null);
  }

  function ucRole(name) {
    const cls = UC_COLOURS[(name || "").split(" ")[0]] || "plain";
    return el("span", { class: "role r-" + cls }, name);
  }

  registry["under-current"] = function (obs, ctx) {
    const root = el("div", { class: "uc" });
    const players = obs.players;
    const status = [t("uc.turn", { n: (obs.turn || 0) + 1 }), t("uc.deck", { n: obs.deck_count })];
    if (obs.final_round) status.push(t("uc.final_round", { n: obs.final_turns_left }));
    root.appendChild(el("div", { class: "status-line" }, status.join(" · ")));

    // The Central File Row, oldest first: face-down cards show their back unless this seat knows
    // them (then a "face down" badge says the others do not see it).
    const row = el("div", { class: "uc-row", id: "uc-row" });
    (obs.row || []).forEach((entry, i) => {
      const card = entry.face_up ? ucCard(entry.card) : (entry.card ? ucCard(entry.card, { down: true }) : ucCard(null));
      row.appendChild(el("div", { class: "row-slot " + (entry.face_up ? "up" : "down"), "data-index": i }, card));
    });
    root.appendChild(section(t("uc.row"), (obs.row || []).length ? row : el("p", { class: "muted" }, t("uc.row_empty"))));

    // Seats: hand sizes as card backs, what this seat knows of their role and cards.
    const seats = el("div", { class: "uc-seats" });
    for (let s = 0; s < players; s++) {
      const marks = [];
      if (s === obs.active) marks.push(el("span", { class: "mark active" }, t("uc.active")));
      if (s === obs.current_player) marks.push(el("span", { class: "mark turn" }, t("uc.deciding")));
      if (s === obs.eliminated) marks.push(el("span", { class: "mark out" }, t("uc.eliminated")));
      const candidates = (obs.roles || [])[s] || [];
      let roleLine = null;
      if (s === ctx.seat && obs.role) roleLine = ucRole(obs.role);
      else if (candidates.length === 1) roleLine = [t("uc.role_known", { role: "" }), ucRole(candidates[0])];
      else if (candidates.length > 1 && candidates.length <= 3) roleLine = t("uc.role_candidates", { roles: candidates.join(", ") });
      const known = (obs.known_hands || {})[String(s)] || [];
      const backs = el("div", { class: "hand-backs" });
      for (let i = 0; i < (obs.hand_sizes || [])[s]; i++) backs.appendChild(ucCard(null, { small: true }));
      seats.appendChild(el("div", { class: "uc-seat" + (s === ctx.seat ? " me" : "") + (s === obs.current_player ? " current" : ""), "data-seat": s },
        el("div", { class: "seat-name" }, seatName(ctx, s), " ", marks),
        el("div", { class: "seat-hand" }, backs, el("span", { class: "count" }, t("uc.cards", { n: (obs.hand_sizes || [])[s] }))),
        roleLine ? el("div", { class: "seat-role" }, roleLine) : null,
        known.length ? el("div", { class: "seat-known" }, t("uc.you_know", { cards: "" }), known.map((c) => ucCard(c, { small: true }))) : null));
    }
    root.appendChild(seats);

    const reserve = (obs.roles || []).slice(players);
    const reserveBits = [];
    reserve.forEach((candidates, r) => {
      if (candidates.length <= 3) reserveBits.push(el("div", {}, t("uc.reserve", { n: r }), ": ", candidates.map(ucRole)));
    });
    if (reserveBits.length) root.appendChild(el("div", { class: "uc-reserve" }, reserveBits));

    if (obs.identity_confirmation) {
      const ic = obs.identity_confirmation;
      const fmt = (list) => list.map((s) => t("board.seat", { n: s })).join(", ") || t("board.none");
      root.appendChild(el("p", { class: "uc-identity" }, t("uc.identity", { eyes: fmt(ic.eye), thumbs: fmt(ic.thumb) })));
    }
    if (obs.pending) {
      const p = obs.pending;
      const bits = [t("uc.pending", { passer: p.passer, receiver: p.receiver, card: p.card || t("uc.pending_face_down") })];
      if (p.effect) bits.push(t("uc.resolving", { effect: p.effect }));
      root.appendChild(el("p", { class: "uc-pending" }, bits.join(" · "), p.card ? ucCard(p.card, { small: true }) : null));
    }

    // My role card and hand.
    if (ctx.seat !== null && ctx.seat !== undefined && obs.hand) {
      const mine = el("div", { class: "uc-mine", id: "my-hand" });
      if (obs.role) mine.appendChild(el("div", { class: "my-role" }, el("h4", {}, t("uc.role")), el("div", { class: "role-card", id: "my-role" }, ucRole(obs.role))));
      const hand = el("div", { class: "hand" }, obs.hand.map((c) => ucCard(c)));
      mine.appendChild(el("div", { class: "my-cards" }, el("h4", {}, t("uc.hand")), obs.hand.length ? hand : el("p", { class: "muted" }, t("uc.hand_empty"))));
      root.appendChild(mine);
    }
    if ((obs.discard || []).length) root.appendChild(section(t("uc.used"), el("div", { class: "pile" }, obs.discard.map((c) => ucCard(c, { small: true })))));
    if ((obs.removed || []).length) root.appendChild(section(t("uc.removed"), el("div", { class: "pile" }, obs.removed.map((c) => ucCard(c, { small: true })))));
    for (const d of obs.declarations || []) {
      root.appendChild(el("p", { class: "uc-declaration" }, t("uc.declaration", { seat: d.seat, red: d.red_informer, blue: d.blue_informer || "—" })));
    }
    if (obs.phase === "over") {
      const reveal = el("div", { class: "reveal", id: "reveal" });
      reveal.appendChild(el("h3", {}, t("uc.final_roles")));
      for (let s = 0; s < players; s++) {
        reveal.appendChild(el("div", { class: "final-role", "data-seat": s }, seatName(ctx, s), ": ", ucRole(((obs.roles || [])[s] || ["?"])[0])));
      }
      reveal.appendChild(el("p", { class: "winner" }, obs.winner_faction ? t("uc.winner", { faction: obs.winner_faction }) : t("uc.no_winner")));
      root.appendChild(reveal);
    }
    return root;
  };

  // -- Spy Tracker --------------------------------------------------------------------------------
  function stCard(name) {
    const parts = (name || "").split("/");
    if (parts.length === 3) {
      return el("div", { class: "st-card f-" + parts[0].toLowerCase(), "data-card": name, title: name },
        el("span", { class: "faction" }, parts[0]), el("span", { class: "role" }, parts[1]), el("span", { class: "city" }, parts[2]));
    }
    const special = /^Mercenary/.test(name) ? "merc" : /^Traitor/.test(name) ? "traitor" : "plain";
    return el("div", { class: "st-card s-" + special, "data-card": name, title: name }, el("span", { class: "role" }, name));
  }

  function sourceDots(active, start) {
    const width = Math.max(start, active) * 16 + 4;
    const node = svg("svg", { class: "sources", width, height: 18, viewBox: `0 0 ${width} 18`, role: "img", "aria-label": `${active}/${start}` });
    for (let i = 0; i < Math.max(start, active); i++) {
      node.appendChild(svg("circle", { cx: 10 + i * 16, cy: 9, r: 6, class: i < active ? "on" : "off" }));
    }
    return node;
  }

  registry["spy-tracker"] = function (obs, ctx) {
    const root = el("div", { class: "st" });
    root.appendChild(el("div", { class: "status-line" }, [t("st.round", { n: obs.round }), t("st.first_to", { n: obs.points_to_win }), t("st.cards_in_play", { n: obs.cards_in_play })].join(" · ")));
    const table = el("table", { class: "st-seats" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, t("st.sources")), el("th", {}, t("st.points")), el("th", {}, t("st.cards")))));
    const body = el("tbody");
    (obs.sources || []).forEach((active, s) => {
      body.appendChild(el("tr", { class: (s === obs.to_act ? "current " : "") + (s === ctx.seat ? "me" : ""), "data-seat": s },
        el("td", {}, s === obs.to_act ? "▶ " : "", seatName(ctx, s), active ? "" : " · " + t("st.eliminated")),
        el("td", {}, sourceDots(active, obs.start_sources)),
        el("td", { class: "points" }, "★".repeat(obs.points[s] || 0) || "0"),
        el("td", {}, (obs.hand_sizes || [])[s])));
    });
    table.appendChild(body);
    root.appendChild(table);

    const bid = obs.current_bid;
    root.appendChild(el("div", { class: "st-bid", id: "current-bid" }, el("h4", {}, t("st.current_bid")),
      bid ? el("div", { class: "bid-big" }, `${bid.count} × ${bid.attribute}`, el("small", {}, " — " + seatName(ctx, bid.seat)))
        : el("p", { class: "muted" }, obs.opener !== null && obs.opener !== undefined ? t("st.no_bid", { n: obs.opener }) : "—")));
    if ((obs.bids || []).length) {
      root.appendChild(section(t("st.bids"), el("ol", { class: "bids" }, obs.bids.map((b) => el("li", {}, `${seatName(ctx, b.seat)}: ${b.action} ${b.count} ${b.attribute}`)))));
    }
    if (ctx.seat !== null && ctx.seat !== undefined && obs.hand_cards) {
      root.appendChild(el("div", { class: "st-hand", id: "my-hand" }, el("h4", {}, t("st.hand")), el("div", { class: "hand" }, obs.hand_cards.map(stCard))));
    }
    const r = obs.last_reveal;
    if (r) {
      const lines = el("div", { class: "st-reveal", id: "last-reveal" }, el("h4", {}, t("st.last_reveal")),
        el("p", {}, t("st.reveal_line", { challenger: r.challenger, challenge: r.challenge, count: r.count, attribute: r.attribute, bidder: r.bidder, true: r.true_count })));
      (r.cards || []).forEach((cards, s) => {
        if (cards.length) lines.appendChild(el("div", { class: "reveal-seat" }, seatName(ctx, s), ": ", el("div", { class: "hand small" }, cards.map(stCard))));
      });
      let result = t("st.lost_source", { n: r.loser });
      if (r.eliminated) result += " · " + t("st.eliminated");
      if (r.point_to !== null && r.point_to !== undefined) result += " · " + t("st.scores", { n: r.point_to });
      lines.appendChild(el("p", {}, result));
      root.appendChild(lines);
    }
    return root;
  };

  // -- Against the Current ------------------------------------------------------------------------
  const TERRAIN = {
    "Open Water": "#7fb8e6", Pollution: "#8d7b6a", "Fishing Nets": "#c9a46b", "Water Plants": "#79b36b",
    Rapids: "#a7d3f0", Dam: "#9a9a9a", Turbine: "#b58ad0",
  };
  const SEAT_COLOURS = ["#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#8e44ad", "#16a085", "#e67e22", "#34495e"];

  registry["against-the-current"] = function (obs, ctx) {
    const root = el("div", { class: "atc" });
    const bits = [t("atc.current", { n: obs.current })];
    if (obs.roll !== null && obs.roll !== undefined) bits.push(t("atc.roll", { n: obs.roll }));
    root.appendChild(el("div", { class: "status-line" }, bits.join(" · "), " · ", obs.phase || ""));
    const spaces = obs.spaces || [];
    const cell = 60;
    const perRow = 9;
    const total = spaces.length + 2; // start and sanctuary
    const rows = Math.ceil(total / perRow);
    const map = svg("svg", { class: "river", viewBox: `0 0 ${perRow * cell} ${rows * cell}`, width: "100%" });
    const pos = (i) => {
      const r = Math.floor(i / perRow);
      const c = r % 2 === 0 ? i % perRow : perRow - 1 - (i % perRow);
      return [c * cell, r * cell];
    };
    const tokensAt = {};
    for (const p of obs.players || []) {
      for (const tok of p.tokens || []) {
        const at = tok.arrived ? total - 1 : tok.position || 0;
        (tokensAt[at] = tokensAt[at] || []).push([p.seat, tok.token]);
      }
    }
    for (let i = 0; i < total; i++) {
      const [x, y] = pos(i);
      const space = i > 0 && i < total - 1 ? spaces[i - 1] : null;
      const fill = space ? TERRAIN[space.terrain] || "#cde" : i === 0 ? "#eee" : "#ffe9a8";
      const label = space ? space.terrain : i === 0 ? t("atc.start") : t("atc.sanctuary");
      const g = svg("g", { class: "space", "data-space": i });
      g.appendChild(svg("rect", { x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 6, fill, stroke: space && space.marker ? "#000" : "#567" }));
      g.appendChild(svg("text", { x: x + 5, y: y + 14, class: "space-no" }, String(i)));
      g.appendChild(svg("text", { x: x + cell / 2, y: y + 28, class: "space-label", "text-anchor": "middle" }, label.length > 10 ? label.slice(0, 9) + "…" : label));
      (tokensAt[i] || []).forEach(([seat, name], k) => {
        g.appendChild(svg("circle", { cx: x + 12 + (k % 4) * 12, cy: y + 44 + Math.floor(k / 4) * 10, r: 5.5, fill: SEAT_COLOURS[seat % SEAT_COLOURS.length], stroke: "#222" }));
        g.appendChild(svg("title", {}, `${seatName(ctx, seat)} ${name}`));
      });
      map.appendChild(g);
    }
    root.appendChild(map);
    const players = el("div", { class: "atc-players" });
    for (const p of obs.players || []) {
      players.appendChild(el("div", { class: "atc-player" + (p.seat === ctx.seat ? " me" : ""), "data-seat": p.seat },
        el("span", { class: "swatch", style: `background:${SEAT_COLOURS[p.seat % SEAT_COLOURS.length]}` }), " ",
        seatName(ctx, p.seat), " · ", p.animal || "", " · ",
        (p.tokens || []).map((tok) => `${tok.token}:${tok.arrived ? "✔" : tok.position}`).join(" ")));
    }
    root.appendChild(section(t("atc.players"), players));
    if (obs.tributaries) {
      root.appendChild(section(t("atc.tributaries"), el("div", { class: "tribs" }, obs.tributaries.map((tr) =>
        el("span", { class: "trib" + (tr.seat !== null ? " taken" : "") }, `${tr.number}: ${tr.value}` + (tr.seat !== null ? ` (${tr.seat})` : ""))))));
    }
    if (obs.event) root.appendChild(section(t("atc.event"), value(obs.event)));
    return root;
  };

  // -- Undercover ----------------------------------------------------------------------------------
  const UV = { Purple: "#8e5ab5", Blue: "#3a78c2", Green: "#3f9c4f", Yellow: "#e3c23a", Orange: "#e8873a", Red: "#cc3f3f" };

  function uvTileFill(tile) {
    if (!tile) return "#fff";
    if (tile.kind === "joker") return "#bbb";
    return UV[tile.colour] || "#ddd";
  }

  registry.undercover = function (obs, ctx) {
    const root = el("div", { class: "uv" });
    root.appendChild(el("div", { class: "status-line" }, t("uv.round", { n: obs.round }), " · ", obs.phase || "",
      " · ", t("uv.colours"), ": ", (obs.colours || []).map((c, s) => `${s}=${c || "?"}`).join(" ")));
    const tiles = obs.board || [];
    const spots = [];
    for (const [action, label] of ctx.choices || []) {
      const m = /^place (\d+),(\d+)$/.exec(label);
      if (m) spots.push({ x: Number(m[1]), y: Number(m[2]), action, label });
    }
    const xs = tiles.map((p) => p.x).concat(spots.map((p) => p.x));
    const ys = tiles.map((p) => p.y).concat(spots.map((p) => p.y));
    if (xs.length) {
      const minX = Math.min(...xs) - 1, maxX = Math.max(...xs) + 1, minY = Math.min(...ys) - 1, maxY = Math.max(...ys) + 1;
      const c = 40;
      const map = svg("svg", { class: "uv-map", viewBox: `0 0 ${(maxX - minX + 1) * c} ${(maxY - minY + 1) * c}`, width: "100%" });
      for (const tile of tiles) {
        const x = (tile.x - minX) * c, y = (tile.y - minY) * c;
        const g = svg("g", { class: "tile", "data-x": tile.x, "data-y": tile.y });
        g.appendChild(svg("rect", { x: x + 1, y: y + 1, width: c - 2, height: c - 2, rx: 4, fill: uvTileFill(tile), stroke: tile.kind === "hq" ? "#000" : "#555", "stroke-width": tile.kind === "hq" ? 3 : 1 }));
        const mark = tile.kind === "hq" ? "HQ" : tile.kind === "joker" ? "J" : tile.official_up === false ? "↺" : "";
        if (mark) g.appendChild(svg("text", { x: x + c / 2, y: y + c / 2 + 4, "text-anchor": "middle", class: "tile-mark" }, mark));
        g.appendChild(svg("title", {}, JSON.stringify(tile)));
        map.appendChild(g);
      }
      for (const spot of spots) {
        const x = (spot.x - minX) * c, y = (spot.y - minY) * c;
        const g = svg("g", { class: "spot", "data-label": spot.label, onclick: () => ctx.act(spot.action) });
        g.appendChild(svg("rect", { x: x + 3, y: y + 3, width: c - 6, height: c - 6, rx: 4, fill: "rgba(255,255,255,0.6)", stroke: "#222", "stroke-dasharray": "4 3" }));
        g.appendChild(svg("title", {}, spot.label));
        map.appendChild(g);
      }
      root.appendChild(map);
    }
    if (obs.held) root.appendChild(section(t("uv.held"), value(obs.held)));
    if (obs.piles) {
      root.appendChild(section(t("uv.piles"), el("div", { class: "uv-piles" }, obs.piles.map((p) =>
        el("div", { class: "uv-pile" }, el("span", { class: "swatch", style: `background:${uvTileFill(p.top)}` }), ` ${p.name} (${p.count})`)))));
    }
    if (obs.lanes) {
      const lanes = el("table", { class: "uv-lanes" });
      for (const lane of obs.lanes) {
        lanes.appendChild(el("tr", {}, el("th", { style: `color:${UV[lane.colour] || "#000"}` }, lane.colour),
          (lane.tokens || []).map((tok) => el("td", {}, tok === null ? "·" : String(tok))),
          el("td", { class: "staffers" }, (lane.staffers || []).join("/"))));
      }
      root.appendChild(section(t("uv.lanes"), lanes));
    }
    if (obs.scores) root.appendChild(el("p", {}, t("uv.scores"), ": ", obs.scores.map((s, i) => `${seatName(ctx, i)} ${s}`).join(" · ")));
    return root;
  };

  return { render, choices, actionFor, registry, generic };
})();
