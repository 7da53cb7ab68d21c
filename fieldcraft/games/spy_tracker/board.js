// Spy Tracker's board: Sources and points per seat, the standing bid and this round's bids, this
// seat's hand, and the hands laid open at the last challenge.
// Registered with the shared Boards (server/static/boards.js); T reads this game's own words.
"use strict";

Boards.register(document.currentScript.dataset.game, (T, kit) => {
  const { section, seatName } = kit;

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

  function draw(obs, ctx) {
    const root = el("div", { class: "st" });
    root.appendChild(el("div", { class: "status-line" }, [T("round", { n: obs.round }), T("first_to", { n: obs.points_to_win }), T("cards_in_play", { n: obs.cards_in_play })].join(" · ")));
    const table = el("table", { class: "st-seats" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, T("sources")), el("th", {}, T("points")), el("th", {}, T("cards")))));
    const body = el("tbody");
    (obs.sources || []).forEach((active, s) => {
      body.appendChild(el("tr", { class: (s === obs.to_act ? "current " : "") + (s === ctx.seat ? "me" : ""), "data-seat": s },
        el("td", {}, s === obs.to_act ? "▶ " : "", seatName(ctx, s), active ? "" : " · " + T("eliminated")),
        el("td", {}, sourceDots(active, obs.start_sources)),
        el("td", { class: "points" }, "★".repeat(obs.points[s] || 0) || "0"),
        el("td", {}, (obs.hand_sizes || [])[s])));
    });
    table.appendChild(body);
    root.appendChild(table);

    const bid = obs.current_bid;
    root.appendChild(el("div", { class: "st-bid", id: "current-bid" }, el("h4", {}, T("current_bid")),
      bid ? el("div", { class: "bid-big" }, `${bid.count} × ${bid.attribute}`, el("small", {}, " — " + seatName(ctx, bid.seat)))
        : el("p", { class: "muted" }, obs.opener !== null && obs.opener !== undefined ? T("no_bid", { n: obs.opener }) : "—")));
    if ((obs.bids || []).length) {
      root.appendChild(section(T("bids"), el("ol", { class: "bids" }, obs.bids.map((b) => el("li", {}, `${seatName(ctx, b.seat)}: ${b.action} ${b.count} ${b.attribute}`)))));
    }
    if (ctx.seat !== null && ctx.seat !== undefined && obs.hand_cards) {
      root.appendChild(el("div", { class: "st-hand", id: "my-hand" }, el("h4", {}, T("hand")), el("div", { class: "hand" }, obs.hand_cards.map(stCard))));
    }
    const r = obs.last_reveal;
    if (r) {
      const lines = el("div", { class: "st-reveal", id: "last-reveal" }, el("h4", {}, T("last_reveal")),
        el("p", {}, T("reveal_line", { challenger: r.challenger, challenge: r.challenge, count: r.count, attribute: r.attribute, bidder: r.bidder, true: r.true_count })));
      (r.cards || []).forEach((cards, s) => {
        if (cards.length) lines.appendChild(el("div", { class: "reveal-seat" }, seatName(ctx, s), ": ", el("div", { class: "hand small" }, cards.map(stCard))));
      });
      let result = T("lost_source", { n: r.loser });
      if (r.eliminated) result += " · " + T("eliminated");
      if (r.point_to !== null && r.point_to !== undefined) result += " · " + T("scores", { n: r.point_to });
      lines.appendChild(el("p", {}, result));
      root.appendChild(lines);
    }
    return root;
  }

  return draw;
});
