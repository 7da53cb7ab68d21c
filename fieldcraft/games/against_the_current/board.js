// Against the Current's board: the river as a winding path of terrain spaces with every token on
// it, each seat's animal and tokens, the tributaries and the event in play.
// Registered with the shared Boards (server/static/boards.js); T reads this game's own words.
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName, value } = kit;

  const TERRAIN = {
    "Open Water": "#7fb8e6", Pollution: "#8d7b6a", "Fishing Nets": "#c9a46b", "Water Plants": "#79b36b",
    Rapids: "#a7d3f0", Dam: "#9a9a9a", Turbine: "#b58ad0",
  };
  const SEAT_COLOURS = ["#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#8e44ad", "#16a085", "#e67e22", "#34495e"];

  function draw(obs, ctx) {
    const root = el("div", { class: "atc" });
    const bits = [T("current", { n: obs.current })];
    if (obs.roll !== null && obs.roll !== undefined) bits.push(T("roll", { n: obs.roll }));
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
      // a space's terrain is unknown until it is dealt (step 0 of a replay)
      const label = (space ? space.terrain : i === 0 ? T("start") : T("sanctuary")) || "";
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
    root.appendChild(section(T("players"), players));
    if (obs.tributaries) {
      root.appendChild(section(T("tributaries"), el("div", { class: "tribs" }, obs.tributaries.map((tr) =>
        el("span", { class: "trib" + (tr.seat !== null ? " taken" : "") }, `${tr.number}: ${tr.value}` + (tr.seat !== null ? ` (${tr.seat})` : ""))))));
    }
    if (obs.event) root.appendChild(section(T("event"), value(obs.event)));
    return root;
  }

  return draw;
});
