// Undercover's board: the grid of placed tiles with this seat's placements drawn on it (clickable),
// the tile in hand, the draw piles and the Information Track.
// Registered with the shared Boards (server/static/boards.js); T reads this game's own words.
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName, value, choicesOf } = kit;

  const UV = { Purple: "#8e5ab5", Blue: "#3a78c2", Green: "#3f9c4f", Yellow: "#e3c23a", Orange: "#e8873a", Red: "#cc3f3f" };

  function uvTileFill(tile) {
    if (!tile) return "#fff";
    if (tile.kind === "joker") return "#bbb";
    return UV[tile.colour] || "#ddd";
  }

  function draw(obs, ctx) {
    const root = el("div", { class: "uv" });
    root.appendChild(el("div", { class: "status-line" }, T("round", { n: obs.round }), " · ", obs.phase || "",
      " · ", T("colours"), ": ", (obs.colours || []).map((c, s) => `${s}=${c || "?"}`).join(" ")));
    const tiles = obs.board || [];
    // Where this seat may place its tile: the notation's "place" choices carry their cell.
    const spots = choicesOf(ctx, "place").map((c) => ({ x: c.args.x, y: c.args.y, action: c.action, label: c.label }));
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
    if (obs.held) root.appendChild(section(T("held"), value(obs.held)));
    if (obs.piles) {
      root.appendChild(section(T("piles"), el("div", { class: "uv-piles" }, obs.piles.map((p) =>
        el("div", { class: "uv-pile" }, el("span", { class: "swatch", style: `background:${uvTileFill(p.top)}` }), ` ${p.name} (${p.count})`)))));
    }
    if (obs.lanes) {
      const lanes = el("table", { class: "uv-lanes" });
      for (const lane of obs.lanes) {
        lanes.appendChild(el("tr", {}, el("th", { style: `color:${UV[lane.colour] || "#000"}` }, lane.colour),
          (lane.tokens || []).map((tok) => el("td", {}, tok === null ? "·" : String(tok))),
          el("td", { class: "staffers" }, (lane.staffers || []).join("/"))));
      }
      root.appendChild(section(T("lanes"), lanes));
    }
    if (obs.scores) root.appendChild(el("p", {}, T("scores"), ": ", obs.scores.map((s, i) => `${seatName(ctx, i)} ${s}`).join(" · ")));
    return root;
  }

  return draw;
});
