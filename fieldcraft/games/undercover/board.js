// Undercover's board: the seats with their colours and Opposite Sides, the tile in hand and the
// draw piles, the grid (column letters and row numbers on its edges, every tile drawn as a tile,
// every cell the held tile may go to marked) and the Information Track as six lanes.
// Every choice is played on the thing it acts on (Boards.kit.playable): a placed Agent to take
// it, a pile to draw its top, the Joker, the held Agent's face (keep) or back (flip), a cell to
// place. Registered with the shared Boards (server/static/boards.js); T reads this game's words.
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, playable, choicesOf } = kit;

  // Colour-blind safe: every colour has its own symbol, drawn beside (or on) the colour.
  const SYMBOL = { Purple: "♦", Blue: "●", Green: "▲", Yellow: "★", Orange: "■", Red: "✚" };
  const JOKER = "✱";
  const sym = (c) => SYMBOL[c] || "?";
  const PLACED = /^(place_|meet)/;
  // The last move (ctx.recent: the table's newest log events by one seat) is what is
  // highlighted, nothing older.
  function recentEvents(obs, ctx) {
    return ctx.recent || [];
  }

  function colourName(ctx, c) { return c ? ctx.text.name("colour", c) : "—"; }

  // Plain coordinates (issue 34): the engine's board is 37 cells a side with the Headquarters in
  // its middle, so its own letters and numbers read "P–U / 17–21". People read the table as it
  // lies: columns A, B, C… from the left edge of what is drawn, rows 1, 2, 3… from the top
  // (the empty cells around the tiles included, as the grid shows them). The frame follows the
  // tiles, so when a tile goes left of column A every name shifts, in the grid, the log and the
  // choices alike (all are worded from the current frame). Stored notation is unchanged.
  function letters(i) {
    if (i < 0) return "−" + letters(-i - 1);
    let out = "";
    for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
    return out;
  }

  function frameOf(obs) {
    const pts = (obs.board || []).map((t) => [t.x, t.y]);
    if (obs.held_from) pts.push(obs.held_from);
    if (!pts.length) return null;
    const x0 = Math.max(0, Math.min(...pts.map((p) => p[0])) - 1);
    const y0 = Math.max(0, Math.min(...pts.map((p) => p[1])) - 1);
    return { x0, y0, column: (x) => letters(x - x0), row: (y) => String(y - y0 + 1) };
  }

  function cellName(ctx, x, y) {
    const f = frameOf(currentObs || {});
    return f ? f.column(x) + f.row(y) : ctx.text.name("column", x) + String(y + 1);
  }
  let currentObs = null; // the observation being drawn (cellName's frame)

  // A colour chip: the symbol on the colour, then (optionally) its name.
  function chip(ctx, c, named) {
    return el("span", { class: "uv-chip c-" + (c || "none") },
      el("span", { class: "uv-sym", "aria-hidden": "true" }, sym(c)),
      named ? el("span", { class: "uv-chip-name" }, colourName(ctx, c)) : null);
  }

  // A tile as drawn on the grid or in the hand: its visible colour and symbol, a black frame for
  // Headquarters and Jokers, and for an Agent the two colours its other side may be (or the one
  // it is, once flipped before everyone); the Instructions File on it as a badge.
  function tileNode(obs, ctx, tile, opts) {
    const o = opts || {};
    const kind = tile.kind;
    const colour = kind === "joker" ? "joker" : tile.colour;
    const node = el("div", { class: `uv-tile kind-${kind} c-${colour}` + (o.big ? " big" : "") +
      (kind === "agent" && tile.official_up === false ? " undercover" : "") });
    node.appendChild(el("span", { class: "uv-face", "aria-hidden": "true" }, kind === "joker" ? JOKER : sym(tile.colour)));
    if (kind === "hq") node.appendChild(el("span", { class: "uv-hq-mark", "aria-hidden": "true" }, "⌂"));
    if (kind === "joker" && typeof tile.owner === "number") {
      node.appendChild(el("span", { class: "uv-owner c-" + ((obs.colours || [])[tile.owner] || "none"), "aria-hidden": "true" }, String(tile.owner + 1)));
    }
    if (kind === "agent") {
      const backs = el("span", { class: "uv-backs", "aria-hidden": "true" });
      const known = tile.back ? [tile.back] : (tile.others || []);
      for (const b of known) backs.appendChild(el("span", { class: "uv-back c-" + b + (tile.back ? " known" : "") }, sym(b)));
      node.appendChild(backs);
      if (tile.official_up === false) node.appendChild(el("span", { class: "uv-mask", "aria-hidden": "true" }, "◐"));
    }
    if (tile.file !== null && tile.file !== undefined) {
      const owner = (obs.colours || [])[tile.file];
      node.appendChild(el("span", { class: "uv-file c-" + (owner || "none"), title: T("file_of", { who: ctx.text.seat(tile.file) }) },
        String(tile.file + 1)));
    }
    return node;
  }

  function tileName(obs, ctx, tile, cell) {
    if (tile.kind === "joker") return T("joker_name", { cell, who: ctx.text.seat(tile.owner) });
    if (tile.kind === "hq") return T("hq_name", { colour: colourName(ctx, tile.colour), city: ctx.text.name("city", tile.city), cell });
    let name = T("agent_name", { colour: colourName(ctx, tile.colour), cell });
    if (tile.back) name += ", " + T("other_side_known", { colour: colourName(ctx, tile.back) });
    else if (tile.others) name += ", " + T("other_side", { colours: T("either", { a: colourName(ctx, tile.others[0]), b: colourName(ctx, tile.others[1]) }) });
    if (tile.official_up === false) name += ", " + T("agent_undercover");
    if (tile.file !== null && tile.file !== undefined) name += ", " + T("file_of", { who: ctx.text.seat(tile.file) });
    return name;
  }

  // -- the seats ---------------------------------------------------------------------------------
  function seatsStrip(obs, ctx) {
    const box = el("div", { class: "uv-seats" });
    const n = obs.players || (obs.colours || []).length;
    for (let s = 0; s < n; s++) {
      const c = (obs.colours || [])[s];
      const opp = (obs.opposite || [])[s];
      const taken = ((obs.taken || [])[s] || []).map((v, lane) => (v === null || v === undefined ? null : { v, lane }))
        .filter(Boolean);
      const joker = (obs.jokers || [])[s];
      const classified = obs.variant === "classified";
      const past = classified ? (obs.lanes || []).filter((l) => l.staffers[s] > obs.black_line_after).length : 0;
      box.appendChild(el("div", { class: "uv-seat" + (obs.to_act === s ? " to-act" : "") + (ctx.seat === s ? " me" : ""), "data-seat": s },
        el("div", { class: "uv-seat-head" }, chip(ctx, c, true), el("span", { class: "uv-seat-who" }, ctx.seatLabel ? ctx.seatLabel(s) : ctx.text.seat(s))),
        el("div", { class: "uv-seat-line" },
          el("span", { class: "uv-opp", title: T("opposite", { colour: colourName(ctx, opp) }) }, T("opposite_short"), chip(ctx, opp, true)),
          el("span", { class: "uv-points", "data-points": (obs.scores || [])[s] }, T("points", { n: (obs.scores || [])[s] })),
          classified ? el("span", {}, T("past_line_n", { n: past })) : el("span", {}, T("tokens_n", { n: taken.length })),
          joker ? el("span", { class: "uv-joker-state" }, ctx.text.name("joker", joker)) : null),
        taken.length ? el("div", { class: "uv-taken", "aria-label": T("taken") }, taken.map((t) =>
          el("span", { class: "uv-token small c-" + obs.lanes[t.lane].colour, title: T("token_name", { colour: colourName(ctx, obs.lanes[t.lane].colour), value: t.v }) },
            el("span", { class: "uv-sym", "aria-hidden": "true" }, sym(obs.lanes[t.lane].colour)), String(t.v)))) : null));
    }
    return box;
  }

  // -- the hand and the piles --------------------------------------------------------------------
  function handPanel(obs, ctx) {
    const box = el("div", { class: "uv-hand" });
    const held = obs.held;
    const flip = choicesOf(ctx, "flip"), keep = choicesOf(ctx, "keep");
    if (held) {
      const from = obs.held_from ? T("held_from", { cell: cellName(ctx, obs.held_from[0], obs.held_from[1]) }) : null;
      const row = el("div", { class: "uv-held-row" });
      if (flip.length || keep.length) {
        // The two faces: as it is (keep) and the other side (flip: known, or one of two).
        const asIs = el("figure", { class: "uv-option", "data-option": "keep" }, tileNode(obs, ctx, held, { big: true }), el("figcaption", {}, T("as_it_is")));
        playable(asIs, keep, ctx, T("as_it_is"));
        const back = el("div", { class: "uv-tile kind-agent big split" });
        const sides = held.back ? [held.back] : (held.others || []);
        for (const b of sides) back.appendChild(el("span", { class: "uv-half c-" + b }, el("span", { class: "uv-face", "aria-hidden": "true" }, sym(b))));
        const flipped = el("figure", { class: "uv-option", "data-option": "flip" }, back, el("figcaption", {}, T("flipped_side"), " · ",
          held.back ? colourName(ctx, held.back) : T("either", { a: colourName(ctx, sides[0]), b: colourName(ctx, sides[1]) })));
        playable(flipped, flip, ctx, T("flipped_side"));
        row.append(asIs, flipped);
      } else {
        row.appendChild(el("figure", { class: "uv-option" }, tileNode(obs, ctx, held, { big: true }),
          el("figcaption", {}, held.kind === "joker" ? ctx.text.name("tile", "joker") : colourName(ctx, held.colour))));
      }
      box.appendChild(section(T("held"), row, from ? el("p", { class: "uv-note" }, from) : null,
        obs.flipped ? el("p", { class: "uv-note" }, T("flipped")) : null));
    } else {
      const me = ctx.seat;
      const jokerChoices = choicesOf(ctx, "joker");
      const mine = me !== null && me !== undefined ? (obs.jokers || [])[me] : null;
      const kids = [];
      if (mine === "unused") {
        const jk = el("figure", { class: "uv-option", "data-option": "joker" }, tileNode(obs, ctx, { kind: "joker" }, { big: true }), el("figcaption", {}, T("your_joker")));
        playable(jk, jokerChoices, ctx, T("your_joker"));
        kids.push(jk);
      }
      const colours = choicesOf(ctx, "colour");
      for (const c of colours) {
        const pick = el("figure", { class: "uv-option", "data-option": "colour" }, el("div", { class: "uv-tile kind-hq big c-" + c.args.colour },
          el("span", { class: "uv-face", "aria-hidden": "true" }, sym(c.args.colour))), el("figcaption", {}, colourName(ctx, c.args.colour)));
        playable(pick, [c], ctx, colourName(ctx, c.args.colour));
        kids.push(pick);
      }
      box.appendChild(section(T("held"), kids.length ? el("div", { class: "uv-held-row" }, kids) : el("p", { class: "uv-note" }, T("held_none"))));
    }
    const piles = el("div", { class: "uv-piles" });
    for (const p of obs.piles || []) {
      const draws = choicesOf(ctx, "draw", { pile: p.name });
      const stack = el("figure", { class: "uv-pile", "data-pile": p.name });
      const depth = Math.min(p.count, 4);
      const layers = el("div", { class: "uv-stack" });
      for (let i = 1; i < depth; i++) layers.appendChild(el("div", { class: "uv-layer l" + i }));
      if (p.top) layers.appendChild(tileNode(obs, ctx, p.top, { big: true }));
      else layers.appendChild(el("div", { class: "uv-tile big kind-empty" + (p.count ? " back" : "") }, p.count ? el("span", { class: "uv-face" }, "?") : ""));
      stack.append(layers, el("figcaption", {}, T("pile", { name: p.name }), " · ", p.count ? T("pile_count", { n: p.count }) : T("pile_empty")));
      const name = p.top ? T("pile_top", { name: p.name, colour: colourName(ctx, p.top.colour), n: p.count }) : T("pile", { name: p.name });
      playable(stack, draws, ctx, name);
      piles.appendChild(stack);
    }
    box.appendChild(section(T("piles"), piles));
    return box;
  }

  // -- the grid ------------------------------------------------------------------------------------
  function grid(obs, ctx) {
    const tiles = obs.board || [];
    const places = choicesOf(ctx, "place");
    const takes = choicesOf(ctx, "take");
    const [width, height] = obs.board_size || [1, 1];
    const pts = tiles.map((t) => [t.x, t.y]).concat(places.map((c) => [c.args.x, c.args.y]));
    if (obs.held_from) pts.push(obs.held_from);
    const recent = recentEvents(obs, ctx);
    for (const e of recent) if (e.params && typeof e.params.x === "number") pts.push([e.params.x, e.params.y]);
    if (!pts.length) return el("p", { class: "uv-note" }, T("held_none"));
    // the top-left cell drawn is the frame's A1 (one cell around the tiles), so the headings
    // start at A and 1; a spot or a last-move cell outside it (rare) widens the grid
    const fr = frameOf(obs);
    const lowX = Math.min(...pts.map((p) => p[0])), lowY = Math.min(...pts.map((p) => p[1]));
    const minX = fr ? Math.min(fr.x0, lowX) : Math.max(0, lowX - 1);
    const minY = fr ? Math.min(fr.y0, lowY) : Math.max(0, lowY - 1);
    const maxX = Math.min(width - 1, Math.max(...pts.map((p) => p[0])) + 1);
    const maxY = Math.min(height - 1, Math.max(...pts.map((p) => p[1])) + 1);
    const cols = maxX - minX + 1;
    const size = Math.max(30, Math.min(54, Math.floor(560 / (cols + 0.6))));
    const box = el("div", { class: "uv-grid", role: "group", "aria-label": T("grid_name") });
    // as large as fits: the wrap's width (a container) shared by the columns, 28 px at least
    box.style.setProperty("--cell", `min(${size}px, max(28px, calc((100cqw - 1.6rem - ${8 + 2 * cols}px) / ${cols})))`);
    box.style.gridTemplateColumns = `1.6rem repeat(${cols}, var(--cell))`;
    const at = new Map(tiles.map((t) => [t.x + "," + t.y, t]));
    const placeAt = new Map(places.map((c) => [c.args.x + "," + c.args.y, c]));
    const recentPlaced = new Set(), recentFrom = new Set();
    for (const e of recent) {
      if (!e.params || typeof e.params.x !== "number") continue;
      (PLACED.test(e.key) ? recentPlaced : recentFrom).add(e.params.x + "," + e.params.y);
    }
    box.appendChild(el("div", { class: "uv-corner" }));
    const f = frameOf(obs) || { column: (x) => ctx.text.name("column", x), row: (y) => String(y + 1) };
    for (let x = minX; x <= maxX; x++) box.appendChild(el("div", { class: "uv-colhead", "aria-hidden": "true" }, f.column(x)));
    for (let y = minY; y <= maxY; y++) {
      box.appendChild(el("div", { class: "uv-rowhead", "aria-hidden": "true" }, f.row(y)));
      for (let x = minX; x <= maxX; x++) {
        const key = x + "," + y;
        const cell = el("div", { class: "uv-cell", "data-x": x, "data-y": y });
        const tile = at.get(key);
        const name = cellName(ctx, x, y);
        if (tile) {
          const node = tileNode(obs, ctx, tile);
          node.setAttribute("title", tileName(obs, ctx, tile, name));
          node.dataset.motion = "tile:" + key;
          node.dataset.motionIn = "land";
          if (recentPlaced.has(key)) node.classList.add("recent");
          const mine = takes.filter((c) => c.args.x === x && c.args.y === y);
          playable(node, mine, ctx, tileName(obs, ctx, tile, name));
          cell.appendChild(node);
        } else {
          if (obs.held_from && obs.held_from[0] === x && obs.held_from[1] === y) cell.classList.add("uv-from");
          else if (recentFrom.has(key)) cell.classList.add("uv-was");
          const spot = placeAt.get(key);
          if (spot) {
            const node = el("div", { class: "uv-spot" + (spot.args.diagonal ? " diagonal" : "") }, el("span", { class: "uv-spot-name", "aria-hidden": "true" }, name));
            playable(node, [spot], ctx, T("cell_name", { cell: name }));
            cell.appendChild(node);
          }
        }
        box.appendChild(cell);
      }
    }
    return el("div", { class: "uv-grid-wrap" }, box);
  }

  // -- the Information Track -------------------------------------------------------------------
  function track(obs, ctx) {
    const length = obs.track_length || 0;
    const classified = obs.variant === "classified";
    const line = classified ? obs.black_line_after : null;
    const table = el("table", { class: "uv-track" });
    const head = el("tr", {}, el("th", {}, ""), el("th", { class: "uv-home-head" }, T("home")));
    for (let sp = 1; sp <= length; sp++) {
      head.appendChild(el("th", { class: sp === line ? "line-after" : "" }, classified ? String(obs.column_values[sp - 1]) : String(sp)));
    }
    table.appendChild(el("thead", {}, head));
    const body = el("tbody");
    const staffer = (s, lane, space) => {
      const c = (obs.colours || [])[s];
      const frozen = lane.frozen && lane.frozen[s];
      const name = space ? T("staffer_name", { who: ctx.text.seat(s), colour: colourName(ctx, c), n: space })
        : T("staffer_home", { who: ctx.text.seat(s), colour: colourName(ctx, c) });
      return el("span", { class: "uv-staffer c-" + (c || "none") + (frozen ? " frozen" : "") + (ctx.seat === s ? " mine" : ""), "data-seat": s,
        title: name + (frozen ? " · " + T("staffer_frozen") : "") }, sym(c));
    };
    for (const lane of obs.lanes || []) {
      const row = el("tr", { "data-lane": lane.colour });
      row.appendChild(el("th", { class: "uv-lane-name", scope: "row" }, chip(ctx, lane.colour, true)));
      const home = el("td", { class: "uv-home" });
      lane.staffers.forEach((p, s) => { if (p === 0) home.appendChild(staffer(s, lane, 0)); });
      row.appendChild(home);
      for (let sp = 1; sp <= length; sp++) {
        const td = el("td", { class: "uv-space c-" + lane.colour + "-lane" + (sp === line ? " line-after" : "") + (classified && sp > line ? " past" : "") });
        const tok = (lane.tokens || [])[sp - 1];
        if (tok !== null && tok !== undefined) {
          td.appendChild(el("span", { class: "uv-token c-" + lane.colour, title: T("token_name", { colour: colourName(ctx, lane.colour), value: tok }) }, String(tok)));
        }
        if (lane.blocked_last && sp === length) td.appendChild(el("span", { class: "uv-blocked", title: T("blocked") }, "✖"));
        lane.staffers.forEach((p, s) => { if (p === sp) td.appendChild(staffer(s, lane, sp)); });
        row.appendChild(td);
      }
      body.appendChild(row);
    }
    table.appendChild(body);
    return table;
  }

  function legend() {
    const item = (node, text) => el("li", {}, node, " ", text);
    return el("section", { class: "uv-legend", id: "uv-legend" }, el("h3", {}, T("legend")), el("ul", {},
      item(el("span", { class: "uv-tile mini kind-hq c-Blue" }, el("span", { class: "uv-face" }, sym("Blue"))), T("legend_hq")),
      item(el("span", { class: "uv-tile mini kind-agent c-Green" }, el("span", { class: "uv-face" }, sym("Green"))), T("legend_agent")),
      item(el("span", { class: "uv-tile mini kind-hq c-Orange" }, el("span", { class: "uv-face" }, sym("Orange")), el("span", { class: "uv-hq-mark" }, "⌂")), T("legend_hq_mark")),
      item(el("span", { class: "uv-mask-legend" }, "◐"), T("legend_undercover")),
      item(el("span", { class: "uv-file-legend" }, "1"), T("legend_file")),
      item(el("span", { class: "uv-spot-legend" }), T("legend_spot")),
      item(el("span", { class: "uv-recent-legend" }), T("legend_recent")),
      item(el("span", { class: "uv-staffer frozen c-Red" }, sym("Red")), T("legend_frozen"))));
  }

  function draw(obs, given) {
    // A page that passes no renderer (an older replay page) still gets the reader's words.
    const ctx = Object.assign({}, given);
    currentObs = obs;
    if (!ctx.text) ctx.text = Boards.textFor(Boards.reader || { viewer: ctx.seat === undefined ? null : ctx.seat });
    const root = el("div", { class: "uv" + (ctx.disabled ? " disabled" : "") });
    const bits = [T("round", { n: obs.round })];
    if (obs.phase) bits.push(ctx.text.name("phase", obs.phase));
    if (obs.to_act !== null && obs.to_act !== undefined) bits.push(T("to_act", { who: ctx.text.seat(obs.to_act) }));
    if (obs.variant === "classified") bits.push(T("classified"));
    root.appendChild(el("div", { class: "status-line uv-status" }, bits.join(" · ")));
    if (obs.phase !== "over" && obs.phase !== "setup" && obs.evaluation_this_round === false) root.appendChild(el("p", { class: "uv-note uv-first" }, T("no_evaluation")));
    if (obs.end_triggered && obs.phase !== "over") root.appendChild(el("p", { class: "uv-note uv-last" }, T("last_round")));
    root.appendChild(seatsStrip(obs, ctx));
    root.appendChild(handPanel(obs, ctx));
    root.appendChild(grid(obs, ctx));
    root.appendChild(section(T("lanes"), track(obs, ctx)));
    root.appendChild(legend());
    return root;
  }

  // Cells as people read them (see frameOf), for the log and the choices too (boards.js).
  draw.frame = frameOf;

  // The seat list's line for a seat: its colour (everyone sees the colours) and its points.
  draw.seatInfo = (obs, s, ctx) => {
    const c = (obs.colours || [])[s];
    const score = (obs.scores || [])[s];
    return { score: typeof score === "number" ? score : null, facts: [c ? chip(ctx, c, true) : null] };
  };

  return draw;
});
