// Against the Current's board: the river wheel (Start, the river spaces in a loop, River
// Sanctuary), each space's terrain as a symbol, a colour and a name, the markers, every token as
// its seat's colour and shape with its letter; in the hub the Current, the die and the event card;
// below, the players, the tributaries and what each terrain does to each animal.
// Every choice is played on the thing it acts on (a token, a landed space, a die face, the event
// card, a player, a marker, a tributary, an animal card) through kit.playable; the frame's
// fallback buttons stay below. Registered with the shared Boards (server/static/boards.js).
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName, playable } = kit;

  const ANIMALS = ["Axolotl", "Yangtze Porpoise", "European Eel", "Chinese Sturgeon"];
  const TERRAINS = ["Open Water", "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine"];
  // Each terrain's symbol and colour (its class), so no terrain is told by colour alone.
  const SYMBOL = { "Open Water": "≈", Pollution: "☣", "Fishing Nets": "▦", "Water Plants": "♣", Rapids: "»", Dam: "▥", Turbine: "✲" };
  // The rulebook's terrain table (the default ruleset).
  const TABLE = {
    Axolotl: ["pass", "back2", "back1", "fwd1", "back1", "back1", "back1"],
    "Yangtze Porpoise": ["pass", "back2", "stop", "back1", "pass", "back1", "pass"],
    "European Eel": ["pass", "back1", "pass", "pass", "back1", "back2", "back2"],
    "Chinese Sturgeon": ["pass", "back1", "back2", "back1", "fwd1", "back2", "back1"],
  };
  const CODES = { "+1": "fwd1", PASS: "pass", "-1": "back1", "-2": "back2", STOP: "stop" };
  // The table's own terrain table: the default, with the rows a ruleset override changes (the
  // table info carries the overrides; the observation does not carry the ruleset).
  function tableOf(ctx) {
    const given = ctx && ctx.overrides && ctx.overrides.terrain_table;
    if (!given) return TABLE;
    const out = {};
    for (const a of ANIMALS) {
      out[a] = TERRAINS.map((t, i) => (given[a] && CODES[given[a][t]]) || TABLE[a][i]);
    }
    return out;
  }
  // A seat is told by its shape as well as its colour: circle, square, diamond, triangle.
  const SHAPES = ["●", "■", "◆", "▲"];
  const LETTERS = ["A", "B", "C"];

  function cls(name) { return String(name || "").toLowerCase().replace(/[^a-z]+/g, "-"); }

  function draw(obs, ctx) {
    const text = ctx.text || Boards.textFor(Boards.reader || { viewer: ctx.seat, names: null });
    const K = (key, params) => text.key(key, params);
    const choices = ctx.choices || [];
    const players = obs.players || [];
    const sanctuary = obs.sanctuary || (obs.spaces || []).length + 1;
    const me = ctx.seat === null || ctx.seat === undefined ? null : ctx.seat;
    const spaceName = (p) => text.name("space", p >= sanctuary ? "sanctuary" : p);

    // Recent events name tokens (seat or owner + token) and spaces (to, end): the last moves.
    const recent = ctx.recent || [];
    const recentToken = (seat, token) => recent.some((e) => e.params && e.params.token === token &&
      (e.params.owner !== undefined ? e.params.owner === seat : e.params.seat === seat));
    const recentSpace = (sp) => recent.some((e) => e.params && (e.params.to === sp || e.params.end === sp));

    const root = el("div", { class: "atc" + (obs.phase === "game over" ? " over" : "") });
    root.appendChild(statusLine(obs, ctx, text, K));

    if (choices.some((c) => c.kind === "pick")) root.appendChild(pickCards(obs, ctx, text, K));

    const main = el("div", { class: "atc-main" });
    main.appendChild(wheel(obs, ctx, text, K, { sanctuary, spaceName, recentToken, recentSpace }));
    root.appendChild(main);

    const lower = el("div", { class: "atc-lower" });
    lower.appendChild(playersPanel(obs, ctx, text, K, spaceName, recentToken));
    lower.appendChild(tributaries(obs, ctx, text, K, recent));
    lower.appendChild(legend(obs, ctx, text, K, me));
    root.appendChild(lower);
    return root;
  }

  // -- the status line ----------------------------------------------------------------------------
  function statusLine(obs, ctx, text, K) {
    const bits = [el("span", { class: "atc-current", "data-current": obs.current },
      "⟳ ", K("ui.current", { n: obs.current, of: obs.currents }))];
    if (obs.extra_wheel_steps) bits.push(el("span", { class: "atc-extra" }, K("ui.extra_steps", { n: obs.extra_wheel_steps })));
    if (obs.turn_seat !== null && obs.turn_seat !== undefined && obs.phase !== "game over") {
      bits.push(el("span", { class: "atc-turn" }, shape(obs.turn_seat), " ", text.render("ui", "turn", { seat: obs.turn_seat })));
    }
    if (obs.phase) bits.push(el("span", { class: "atc-phase" }, text.name("phase", obs.phase)));
    const line = el("div", { class: "status-line atc-status" });
    bits.forEach((b, i) => { if (i) line.appendChild(document.createTextNode(" · ")); line.appendChild(b); });
    return line;
  }

  function shape(seat) {
    return el("span", { class: "atc-shape seat-" + (seat % 4), "aria-hidden": "true" }, SHAPES[seat % 4]);
  }

  // -- animal cards (the picks) -------------------------------------------------------------------
  function pickCards(obs, ctx, text, K) {
    const taken = new Map((obs.players || []).filter((p) => p.animal).map((p) => [p.animal, p.seat]));
    const row = el("div", { class: "atc-picks" });
    ANIMALS.forEach((animal, i) => {
      const card = el("div", { class: "atc-animal-card animal-" + cls(animal) + (taken.has(animal) ? " taken" : ""), "data-animal": animal },
        el("div", { class: "atc-animal-name" }, text.name("animal", animal)),
        el("div", { class: "atc-ability" }, K("ui.boost", { boost: boostOf(i) })),
        el("div", { class: "atc-ability-text" }, text.key("boost_text." + boostOf(i))),
        el("div", { class: "atc-ability" }, K("ui.pressure", { pressure: pressureOf(i) })),
        el("div", { class: "atc-ability-text" }, text.key("pressure_text." + pressureOf(i))),
        taken.has(animal) ? el("div", { class: "atc-taken" }, shape(taken.get(animal)), " ", seatName(ctx, taken.get(animal))) : null);
      playable(card, kit.choicesOf(ctx, "pick", { animal }), ctx, text.name("animal", animal));
      row.appendChild(card);
    });
    return section(K("ui.pick"), row);
  }

  function boostOf(i) { return ["Regeneration", "Echolocation", "Slip Through", "Migration Burst"][i]; }
  function pressureOf(i) { return ["Plant Tangle", "Turbine Wake", "Net Drift", "Strong Current"][i]; }

  // -- the wheel ----------------------------------------------------------------------------------
  // The path runs clockwise round the rim of a grid: Start in the top-left corner, the river
  // spaces, River Sanctuary, then one empty cell (the gap between the end and the start); the
  // hub fills the middle.
  function rim(cols, rows) {
    const cells = [];
    for (let c = 0; c < cols; c++) cells.push([c, 0]);
    for (let r = 1; r < rows; r++) cells.push([cols - 1, r]);
    for (let c = cols - 2; c >= 0; c--) cells.push([c, rows - 1]);
    for (let r = rows - 2; r >= 1; r--) cells.push([0, r]);
    return cells;
  }

  function wheel(obs, ctx, text, K, h) {
    const spaces = obs.spaces || [];
    const count = spaces.length + 2;
    const half = Math.ceil((count + 1 + 4) / 2);
    const cols = Math.max(3, Math.ceil(half / 2));
    const rows = Math.max(3, half - cols);
    const box = el("div", { class: "atc-wheel", role: "group", "aria-label": K("ui.wheel"),
      style: `grid-template-columns:repeat(${cols},1fr);grid-template-rows:repeat(${rows},auto)` });
    const tokensAt = new Map();
    for (const p of obs.players || []) {
      for (const tok of p.tokens || []) {
        const at = tok.arrived ? h.sanctuary : tok.position || 0;
        if (!tokensAt.has(at)) tokensAt.set(at, []);
        tokensAt.get(at).push([p.seat, tok]);
      }
    }
    const moverSpace = movingSpace(obs);
    const cells = rim(cols, rows);
    for (let i = 0; i < count && i < cells.length; i++) {
      const [c, r] = cells[i];
      const slot = el("div", { class: "atc-slot", style: `grid-column:${c + 1};grid-row:${r + 1}` });
      slot.appendChild(tile(obs, ctx, text, K, h, i, i > 0 && i < count - 1 ? spaces[i - 1] : null, tokensAt.get(i) || [], moverSpace));
      box.appendChild(slot);
    }
    const middle = hub(obs, ctx, text, K);
    middle.style.cssText = `grid-column:2 / ${cols};grid-row:2 / ${rows}`;
    box.appendChild(middle);
    return box;
  }

  function movingSpace(obs) {
    if (!obs.moving_token) return null;
    const [seat, letter] = obs.moving_token;
    const p = (obs.players || [])[seat];
    const tok = p && (p.tokens || []).find((x) => x.token === letter);
    return tok ? tok.position : null;
  }

  function tile(obs, ctx, text, K, h, i, space, tokens, moverSpace) {
    const isStart = i === 0;
    const isEnd = !isStart && !space && i === (obs.spaces || []).length + 1;
    const terrain = space && space.card !== null ? space.terrain : null;
    const kind = isStart ? "start" : isEnd ? "sanctuary" : terrain ? "terrain-" + cls(terrain) : "back";
    // data-motion-stop: a stop on the river's path, which a moved token travels (boards.js Motion)
    const node = el("div", { class: "atc-space " + kind + (h.recentSpace(i) ? " recent" : ""), "data-space": i,
      "data-terrain": terrain || "", "data-motion-stop": "river:" + i });
    const head = el("div", { class: "atc-space-head" }, el("span", { class: "atc-no" }, isStart || isEnd ? "" : String(i)));
    if (terrain) head.appendChild(el("span", { class: "atc-sym", "aria-hidden": "true" }, SYMBOL[terrain] || "?"));
    node.appendChild(head);
    let label;
    if (isStart) label = text.name("space", 0);
    else if (isEnd) label = text.name("space", "sanctuary");
    else if (terrain) label = text.name("terrain", terrain);
    else label = "?"; // a card not dealt yet is drawn as a back
    node.appendChild(el("div", { class: "atc-tname" }, label));
    if (space && space.marker) {
      const badge = el("span", { class: "atc-marker terrain-" + cls(space.marker), title: K("ui.space_marker", { marker: space.marker, printed: space.printed }) },
        "⚑ ", K("ui.marker_on", { printed: space.printed }));
      playable(badge, kit.choicesOf(ctx, "remove", { space: i }), ctx, K("ui.space_marker", { marker: space.marker, printed: space.printed }));
      node.appendChild(badge);
    }
    for (const o of (space && space.pressure) || []) {
      node.appendChild(el("span", { class: "atc-pmarker seat-" + (o % 4), title: text.render("ui", "pressure_on", { seat: o }) }, SHAPES[o % 4], "P"));
    }
    const row = el("div", { class: "atc-tokens" });
    for (const [seat, tok] of tokens) row.appendChild(token(obs, ctx, text, K, seat, tok, h, i));
    node.appendChild(row);
    // After landing, the space itself is what an ability acts on (no ability, a Boost, Pressure).
    if (moverSpace === i && !isStart) {
      const here = choices(ctx).filter((c) => c.kind === "pressure" || (c.kind === "boost" && c.args.space !== undefined) ||
        (c.kind === "decline" && ctx.choices.some((d) => d.kind === "pressure" || (d.kind === "boost" && d.args.space !== undefined))));
      if (here.length) playable(node, here, ctx, K("ui.space_name", { space: i, terrain: terrain || "" }));
    }
    return node;
  }

  function choices(ctx) { return ctx.choices || []; }

  function token(obs, ctx, text, K, seat, tok, h, space) {
    const where = tok.arrived ? "sanctuary" : tok.position;
    const name = text.render("ui", "token_name", { token: tok.token, seat, space: where });
    const marks = [];
    if (tok.stop) marks.push("stop");
    if (tok.safe_shelter) marks.push("shelter");
    if (tok.river_support) marks.push("support");
    if (tok.pressure_wave) marks.push("wave");
    const node = el("span", { class: "atc-token seat-" + (seat % 4) + (h.recentToken(seat, tok.token) ? " recent" : "") +
      marks.map((m) => " " + m).join(""), "data-seat": seat, "data-token": tok.token, title: name,
      "data-motion": "token:" + seat + ":" + tok.token, "data-motion-at": "river:" + space },
    el("span", { class: "atc-letter" }, tok.token));
    const mine = choices(ctx).filter((c) => (c.kind === "move" && c.args.seat === seat && c.args.token === tok.token) ||
      (c.kind === "target" && c.args.seat === seat && c.args.token === tok.token));
    playable(node, mine, ctx, name);
    return node;
  }

  // The hub: the Current, the die (and, after the roll, one die face per way to use it), the
  // event card drawn and the deck.
  function hub(obs, ctx, text, K) {
    const box = el("div", { class: "atc-hub" });
    box.appendChild(el("div", { class: "atc-hub-title" }, K("ui.wheel")));
    box.appendChild(el("div", { class: "atc-hub-current" }, "⟳ ", K("ui.current", { n: obs.current, of: obs.currents })));
    const roll = obs.roll;
    const dice = el("div", { class: "atc-dice" });
    dice.appendChild(el("span", { class: "atc-die" + (roll ? "" : " idle"), "data-roll": roll || "", title: roll ? K("ui.die_name", { n: roll }) : K("ui.no_roll"),
      "data-motion": roll ? "die:" + roll : null, "data-motion-in": "turn" },
      roll ? String(roll) : "–"));  // a dash, not a dot: an idle die must not read as a 1
    const options = choices(ctx).filter((c) => c.kind === "decline" || (c.kind === "boost" && c.args.change !== undefined));
    if (roll && options.some((c) => c.kind === "boost")) {
      const faces = el("div", { class: "atc-faces", "aria-label": K("ui.ability_window") });
      for (const c of options) {
        const n = Math.max(0, roll + (c.kind === "boost" ? c.args.change : 0));
        const face = el("span", { class: "atc-die face" + (c.kind === "boost" ? " boosted" : ""), "data-steps": n }, String(n));
        playable(face, [c], ctx, K("ui.die_option", { n }));
        faces.appendChild(face);
      }
      dice.appendChild(el("span", { class: "atc-arrow", "aria-hidden": "true" }, "→"));
      dice.appendChild(faces);
    }
    box.appendChild(dice);
    // The die is cleared when a turn ends: the last roll told is shown under it.
    const rolled = (ctx.recent || []).filter((e) => e.params && typeof e.params.roll === "number").pop();
    if (rolled && !roll) box.appendChild(el("div", { class: "atc-last-roll" }, text.render("ui", "last_roll", { seat: rolled.params.seat, n: rolled.params.roll })));
    if (obs.event) {
      const card = el("div", { class: "atc-event", "data-event": obs.event },
        el("div", { class: "atc-event-name" }, "★ ", text.name("event", obs.event)),
        el("div", { class: "atc-event-text" }, text.key("event_text." + obs.event)));
      playable(card, choices(ctx).filter((c) => c.kind === "attempt" || c.kind === "skip"), ctx, text.name("event", obs.event));
      box.appendChild(card);
    }
    // What the person is asked now, and where to click for it.
    const list = choices(ctx);
    let hint = null;
    if (list.some((c) => c.kind === "target" || c.kind === "remove") && obs.event) hint = K("ui.target_window", { event: obs.event });
    else if (list.some((c) => c.kind === "move")) hint = K("ui.token_window");
    else if (list.some((c) => c.kind === "tributary") && obs.moving_token) hint = K("ui.trib_window", { token: obs.moving_token[1] });
    else if (list.some((c) => c.kind === "attempt")) hint = K("ui.event_window");
    else if (list.some((c) => c.kind === "pressure" || (c.kind === "boost" && c.args.space !== undefined))) hint = K("ui.land_window");
    else if (list.some((c) => c.kind === "boost")) hint = K("ui.ability_window");
    else if (list.some((c) => c.kind === "pick")) hint = K("ui.pick");
    if (hint) box.appendChild(el("div", { class: "atc-hint" }, "▶ ", hint));
    const me = ctx.seat === null || ctx.seat === undefined ? null : ctx.seat;
    const mine = me !== null && obs.players && obs.players[me] ? obs.players[me].animal : null;
    const table = tableOf(ctx);
    if (mine && table[mine]) {
      box.appendChild(el("div", { class: "atc-mine" },
        el("div", { class: "atc-mine-title" }, K("ui.legend_mine", { animal: mine })),
        el("div", { class: "atc-mine-grid" }, TERRAINS.map((terrain, ti) => el("span", { class: "atc-mine-row terrain-" + cls(terrain) },
          el("span", { class: "atc-sym", "aria-hidden": "true" }, SYMBOL[terrain]), " ", text.name("terrain", terrain), " ",
          el("span", { class: "eff " + table[mine][ti] }, text.name("short", table[mine][ti])))))));
    }
    const deck = el("div", { class: "atc-deck" }, el("span", { class: "atc-back", "aria-hidden": "true" }, "▮"), " ", K("ui.deck", { n: obs.deck_size }));
    box.appendChild(deck);
    return box;
  }

  // -- players ------------------------------------------------------------------------------------
  function playersPanel(obs, ctx, text, K, spaceName, recentToken) {
    const list = el("div", { class: "atc-players" });
    for (const p of obs.players || []) {
      const flags = [];
      if (p.detour_next_turn) flags.push(K("ui.flag_detour"));
      if (p.squeezed_next_turn) flags.push(K("ui.flag_squeeze"));
      const card = el("div", { class: "atc-player seat-" + (p.seat % 4) + (p.seat === ctx.seat ? " me" : "") + (obs.turn_seat === p.seat && obs.phase !== "game over" ? " turn" : ""), "data-seat": p.seat },
        el("div", { class: "atc-player-head" }, shape(p.seat), " ", el("strong", {}, seatName(ctx, p.seat)),
          el("span", { class: "atc-score" }, K("ui.score", { n: p.score }))),
        p.animal ? el("div", { class: "atc-animal" }, text.name("animal", p.animal)) : null,
        p.animal ? el("div", { class: "atc-abilities" },
          el("span", { class: "atc-ab" + (p.boost_left ? "" : " used"), title: text.key("boost_text." + p.boost) },
            K("ui.boost", { boost: p.boost }), " (", K(p.boost_left ? "ui.ready" : "ui.used"), ")"), " ",
          el("span", { class: "atc-ab" + (p.pressure_left ? "" : " used"), title: text.key("pressure_text." + p.pressure) + " " + text.key("ui.pressure_help") },
            K("ui.pressure", { pressure: p.pressure }), " (", K(p.pressure_left ? "ui.ready" : "ui.used"), ")")) : null,
        el("div", { class: "atc-player-tokens" }, (p.tokens || []).map((tok) => el("span", { class: "atc-where" },
          el("span", { class: "atc-token mini seat-" + (p.seat % 4) + (recentToken(p.seat, tok.token) ? " recent" : "") }, el("span", { class: "atc-letter" }, tok.token)),
          " ", tok.arrived ? "✔ " + K("ui.home") : spaceName(tok.position),
          tok.stop ? el("span", { class: "atc-flag stop" }, " ■ " + K("ui.stopped")) : null,
          tok.safe_shelter ? el("span", { class: "atc-flag" }, " ⌂ " + K("ui.flag_shelter")) : null,
          tok.river_support ? el("span", { class: "atc-flag" }, " ✚ " + K("ui.flag_support")) : null,
          tok.pressure_wave ? el("span", { class: "atc-flag" }, " ≋ " + K("ui.flag_wave")) : null))),
        flags.length ? el("div", { class: "atc-flags" }, flags.join(" · ")) : null);
      playable(card, choices(ctx).filter((c) => c.kind === "target" && c.args.token === undefined && c.args.seat === p.seat), ctx, seatName(ctx, p.seat));
      list.appendChild(card);
    }
    return section(K("ui.players"), list);
  }

  // -- tributaries --------------------------------------------------------------------------------
  function tributaries(obs, ctx, text, K, recent) {
    const box = el("div", { class: "atc-tribs" });
    for (const tr of obs.tributaries || []) {
      const taken = tr.seat !== null && tr.seat !== undefined;
      const fresh = recent.some((e) => e.key === "tributary" && e.params && e.params.number === tr.number);
      const chip = el("div", { class: "atc-trib" + (taken ? " taken" : "") + (fresh ? " recent" : ""), "data-number": tr.number,
        title: K("ui.trib_name", { number: tr.number, points: tr.value }) },
      el("span", { class: "atc-trib-points" }, String(tr.value)),
      el("span", { class: "atc-trib-who" }, taken
        ? el("span", { class: "atc-token mini seat-" + (tr.seat % 4) }, el("span", { class: "atc-letter" }, tr.token))
        : K("ui.trib_free")));
    if (taken) chip.title += " · " + seatName(ctx, tr.seat) + " · " + tr.token;
      playable(chip, kit.choicesOf(ctx, "tributary", { number: tr.number }), ctx, K("ui.trib_name", { number: tr.number, points: tr.value }));
      box.appendChild(chip);
    }
    return section(K("ui.tributaries"), el("p", { class: "atc-help" }, K("ui.tribs_help")), box);
  }

  // -- the terrain table --------------------------------------------------------------------------
  function legend(obs, ctx, text, K, me) {
    const inPlay = (obs.players || []).map((p) => p.animal).filter(Boolean);
    const animals = inPlay.length ? ANIMALS.filter((a) => inPlay.includes(a)) : ANIMALS;
    const mine = me !== null && obs.players && obs.players[me] ? obs.players[me].animal : null;
    const head = el("tr", {}, el("th", {}, ""), animals.map((a) => el("th", { class: a === mine ? "mine" : "", scope: "col" }, text.name("animal", a))));
    const body = el("tbody");
    const table = tableOf(ctx);
    TERRAINS.forEach((terrain, ti) => {
      body.appendChild(el("tr", {},
        el("th", { scope: "row", class: "terrain-" + cls(terrain) }, el("span", { class: "atc-sym", "aria-hidden": "true" }, SYMBOL[terrain]), " ", text.name("terrain", terrain)),
        animals.map((a) => {
          const code = table[a][ti];
          return el("td", { class: "eff " + code + (a === mine ? " mine" : "") }, text.name("short", code));
        })));
    });
    const parts = [];
    if (mine) parts.push(el("p", { class: "atc-help" }, K("ui.legend_mine", { animal: mine })));
    parts.push(el("table", { class: "atc-legend" }, el("thead", {}, head), body));
    parts.push(el("p", { class: "atc-help" }, K("ui.legend_key")));
    return section(K("ui.legend"), ...parts);
  }

  // The seat list's line for a seat: its shape and colour on the river, its animal once picked
  // (the picks are in front of everyone) and its score.
  draw.seatInfo = (obs, seat, ctx) => {
    const p = (obs.players || [])[seat];
    if (!p) return null;
    const text = ctx.text || Boards.textFor(Boards.reader || { viewer: ctx.seat, names: null });
    return { score: typeof p.score === "number" ? p.score : null,
      facts: [el("span", { class: "atc-seat-fact" }, shape(seat), p.animal ? " " + text.name("animal", p.animal) : "")] };
  };

  return draw;
});
